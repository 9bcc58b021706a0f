"""explore-cases per backend (onnxruntime, OpenVINO, tract): inputs tried per second for a few operators, where the time goes, and the runtime's own time on the same inputs.

Each operator version is searched alone for --budget seconds (one process, its executor started
before the clock). The time of each input is split into drawing it (hypothesis and the family's
strategies), building it (the exact semantics, the model, onnx.checker, the files) and judging it
(writing the case, the executor's round trip: the checks, the backend, the compare). The peer is
the backend alone on the same models and inputs, in this process, through its adapter (for
onnxruntime: a session made from the model's bytes and run once): what an input costs the runtime
itself.

    python bench/bench_explore.py [--budget 20] [--op Add-14 ...] [--backend onnxruntime ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

OPS = ["Add-14", "Relu-14", "Sin-7", "ReduceSum-13", "Transpose-21", "Split-18"]
BACKENDS = ["onnxruntime", "openvino", "tract"]


def explore_one(backend: str, op: str, budget: float) -> dict:
    from onnx_conformance.harness import explore, explore_verdicts

    spent = {"build": 0.0, "judge": 0.0}
    kept: list = []
    build, judge = explore.build, explore_verdicts.Judge.judge

    def timed_build(*args):
        started = time.perf_counter()
        try:
            return build(*args)
        finally:
            spent["build"] += time.perf_counter() - started

    def timed_judge(self, probe):
        started = time.perf_counter()
        try:
            return judge(self, probe)
        finally:
            spent["judge"] += time.perf_counter() - started
            kept.append(probe)

    explore.build, explore_verdicts.Judge.judge = timed_build, timed_judge
    summary = io.StringIO()
    try:
        with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(summary):
            explore.main(["--backend", backend, "--op", op, "--budget", str(budget),
                          "--out", str(Path(out) / "finds"), "--quiet"])
    finally:
        explore.build, explore_verdicts.Judge.judge = build, judge
    return {"op": op, "ran": len(kept), "seconds": budget, "build": spent["build"], "judge": spent["judge"],
            "peer": peer_seconds(backend, kept), "finds": summary.getvalue().count("run-conformance --backend")}


def peer_seconds(backend: str, probes: list) -> float:
    """The backend alone on the inputs explore-cases ran: onnxruntime a session from the model's bytes
    and one run, another backend its adapter's prepare (from the model written to a file) and run, in
    this process."""
    import onnx
    from onnx import numpy_helper

    if backend == "onnxruntime":
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.log_severity_level = 4  # its own error messages: a failed run is timed, not shown

        def once(model: bytes, inputs: list) -> None:
            session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
            session.run(None, {i.name: x for i, x in zip(session.get_inputs(), inputs)})
    else:
        from onnx_conformance.harness.backends import registry

        adapter = registry.load(backend, {})
        path = Path(tempfile.mkdtemp(prefix="bench-explore-")) / "model.onnx"

        def once(model: bytes, inputs: list) -> None:
            path.write_bytes(model)  # the adapter loads from a path, as the executor's does
            adapter.run(adapter.prepare(str(path)), inputs)
    total = 0.0
    for probe in probes:
        inputs = []
        for rel in sorted(r for r in probe.files if "/input_" in r):
            tensor = onnx.TensorProto()
            tensor.ParseFromString(probe.files[rel])
            inputs.append(numpy_helper.to_array(tensor))
        started = time.perf_counter()
        try:
            once(probe.files["model.onnx"], inputs)
        except Exception:  # noqa: BLE001 - declined or failed: what it cost still counts
            pass
        total += time.perf_counter() - started
    return total


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--budget", type=float, default=20.0, help="seconds per operator version (default 20)")
    p.add_argument("--op", action="append", default=[], help=f"operator versions (default {' '.join(OPS)})")
    p.add_argument("--backend", action="append", default=[], help=f"backends (default {' '.join(BACKENDS)})")
    a = p.parse_args()
    print("| backend | operator | inputs | inputs/s | draw ms | build ms | judge ms | backend alone ms | finds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for backend in a.backend or BACKENDS:
        for op in a.op or OPS:
            r = explore_one(backend, op, a.budget)
            n = max(r["ran"], 1)
            draw = r["seconds"] - r["build"] - r["judge"]
            print(f"| {backend} | {op} | {r['ran']} | {r['ran'] / r['seconds']:.1f} | {1000 * draw / n:.1f} | "
                  f"{1000 * r['build'] / n:.1f} | {1000 * r['judge'] / n:.1f} | {1000 * r['peer'] / n:.2f} | "
                  f"{r['finds']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
