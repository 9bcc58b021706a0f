"""What a case costs inside the executors of a real run, stage by stage, with their caches as the run
leaves them (onnxruntime's session creation evicts the harness's code and data between cases, which
an in-process loop over warm cases, bench_executor_case.py, does not show).

    python bench/bench_executor_stages.py [run-conformance arguments]
    python bench/bench_executor_stages.py --cases cases -n 2 -q --report-dir /tmp/r \
        --expectations reports/onnxruntime/expectations.txt

Runs run-conformance in this process. The executors are spawned, so each imports this module first
(as __mp_main__): there it wraps the safety checks' and the executor's steps with timers, and each
executor writes its sums to a file when the run tells it to end. Prints each step's mean time and
how often it ran, over all executors (each timer adds about a microsecond to what it times).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

_OUT = "CONFORMANCE_STAGES_DIR"  # where the executors write their sums


def _timed(owner, name: str, label: str, sums: dict) -> None:
    inner = getattr(owner, name)

    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            total = sums.setdefault(label, [0.0, 0])
            total[0] += time.perf_counter() - started
            total[1] += 1

    setattr(owner, name, timed)


def _instrument() -> None:
    """In an executor: time its steps; write the sums when it is told to end."""
    from onnx_conformance.harness import case_data, case_files, executor_child, safety, verdict

    sums: dict = {}
    case_dir = case_files.CaseDir
    listing = case_dir.listing

    def listed(self, folder):
        if folder in self._listings:  # listed already: reused, not timed
            return self._listings[folder]
        started = time.perf_counter()
        try:
            return listing(self, folder)
        finally:
            total = sums.setdefault("a folder listed (os.scandir)", [0.0, 0])
            total[0] += time.perf_counter() - started
            total[1] += 1

    case_dir.listing = listed
    _timed(case_dir, "read", "a file read (open, fstat, read, close)", sums)
    _timed(case_dir, "check_tensor", "a tensor's declared size checked", sums)
    _timed(case_data, "check_data_sets", "the test data checked (listing, reads and checks)", sums)
    _timed(safety, "check_model", "model.onnx checked in its turn (listing, read, parse, tensors)", sums)
    _timed(safety, "check_model_ahead", "model.onnx checked ahead, the test_data_set_N folders listed", sums)
    _timed(executor_child, "_check_ahead", "a batch's models checked ahead (their sum)", sums)
    _timed(verdict, "data_sets", "the test data made arrays", sums)
    _timed(verdict, "compare_outputs", "outputs compared", sums)
    _timed(executor_child, "run_case", "a case in its turn (the backend's session teardown included)", sums)
    answer = executor_child._answer

    def answered(conn, adapter, case, *args, **kwargs):
        # The backend's prepare and run, timed by wrapping the adapter object once it is known.
        if not getattr(adapter, "_stages_timed", False):
            _timed(adapter, "prepare", "the backend's prepare (its session creation)", sums)
            _timed(adapter, "prepare_checked", "the backend's prepare from the checked bytes", sums)
            _timed(adapter, "run", "the backend's run (the adapter's feeds and fetches included)", sums)
            adapter._stages_timed = True
        return answer(conn, adapter, case, *args, **kwargs)

    executor_child._answer = answered
    leave = os._exit

    def exit_and_write(code):
        with open(os.path.join(os.environ[_OUT], f"{os.getpid()}.json"), "w") as f:
            json.dump(sums, f)
        leave(code)

    os._exit = exit_and_write


def main(argv: list[str]) -> int:
    from onnx_conformance.harness import cli

    with tempfile.TemporaryDirectory() as out:
        os.environ[_OUT] = out
        rc = cli.main(argv)
        sums: dict = {}
        for name in os.listdir(out):
            with open(os.path.join(out, name)) as f:
                for label, (seconds, count) in json.load(f).items():
                    total = sums.setdefault(label, [0.0, 0])
                    total[0] += seconds
                    total[1] += count
    cases = sums.get("a case in its turn (the backend's session teardown included)", [0, 1])[1]
    print(f"exit {rc}; {cases} cases in the executors; mean time a call, calls, and their sum a case:",
          file=sys.stderr)
    for label, (seconds, count) in sorted(sums.items(), key=lambda kv: -kv[1][0]):
        print(f"  {seconds / count * 1e6:8.1f} us x {count:7d}  {seconds / cases * 1e6:7.1f} us/case  {label}",
              file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
elif __name__ == "__mp_main__" and _OUT in os.environ:  # an executor of the run above
    _instrument()
