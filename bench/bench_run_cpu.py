"""Where a whole-corpus run's CPU goes: the pytest process against its executor children.

    python bench/bench_run_cpu.py [run-conformance arguments]
    python bench/bench_run_cpu.py --cases cases -n 2 -q --report-dir /tmp/r \
        --expectations reports/onnxruntime/expectations.txt

Runs run-conformance in this process and prints its wall time, this process's CPU seconds (the
pytest process: collection, grading, recording, reports) and its children's (the executors, each
running cases). On 2 cores with 2 executors the wall time follows their sum.
"""

from __future__ import annotations

import resource
import sys
import time

from onnx_conformance.harness import cli

if __name__ == "__main__":  # the executors are spawned: they import this module again
    started = time.perf_counter()
    rc = cli.main(sys.argv[1:])
    wall = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"exit {rc}: wall {wall:.1f} s, pytest process {own.ru_utime + own.ru_stime:.1f} s CPU, "
          f"executors {children.ru_utime + children.ru_stime:.1f} s CPU", file=sys.stderr)
