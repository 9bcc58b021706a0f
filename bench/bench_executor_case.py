"""The harness's own work per case in an executor: run_case's time less the backend's own calls.

    python bench/bench_executor_case.py [--cases cases] [--every 10] [--backend onnxruntime]

Runs every N-th case of the corpus through executor.run_case twice in this one process (the
first pass warms the caches and the page cache, the second is timed) and splits each case's time
into the backend's prepare and run calls (the adapter, timed from outside) and everything else:
the safety checks, reading the test data, comparing, building the result. The last figure is what
the harness adds to a bare runtime loop per case.
"""

from __future__ import annotations

import argparse
import time

from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.corpus import find_cases
from onnx_conformance.harness.executor import run_case


class _Timed:
    """The adapter, with the seconds spent in its prepare and run added up."""

    def __init__(self, adapter):
        self._adapter = adapter
        self._last = None
        self.seconds = 0.0

    def __getattr__(self, name):
        return getattr(self._adapter, name)

    def prepare(self, path):
        t = time.perf_counter()
        try:
            # The last case's session is dropped here, so its teardown counts as the backend's.
            self._last = None
            self._last = self._adapter.prepare(path)
            return self._last
        finally:
            self.seconds += time.perf_counter() - t

    def prepare_checked(self, path, model):
        t = time.perf_counter()
        try:
            self._last = None
            self._last = self._adapter.prepare_checked(path, model)
            return self._last
        finally:
            self.seconds += time.perf_counter() - t

    def run(self, prepared, inputs):
        t = time.perf_counter()
        try:
            return self._adapter.run(prepared, inputs)
        finally:
            self.seconds += time.perf_counter() - t


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", default="cases")
    p.add_argument("--every", type=int, default=10, help="every N-th case (default 10)")
    p.add_argument("--backend", default="onnxruntime")
    a = p.parse_args(argv)
    messages = [dict(vars(c)) for c in find_cases(a.cases)][:: a.every]
    adapter = _Timed(registry.load(a.backend, {}))
    for m in messages:  # warm
        run_case(adapter, m)
    adapter.seconds = 0.0
    started = time.perf_counter()
    for m in messages:
        run_case(adapter, m)
    total = time.perf_counter() - started
    n = len(messages)
    own = total - adapter.seconds
    print(f"{n} cases: {total / n * 1e6:.0f} us/case in run_case, of which the backend's prepare+run "
          f"{adapter.seconds / n * 1e6:.0f} us, the harness's own {own / n * 1e6:.0f} us")


if __name__ == "__main__":
    main()
