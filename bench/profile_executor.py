"""Where a run's per-case time goes: the executor's loop over a corpus, in one process, under cProfile.

    python bench/profile_executor.py DIR [--backend onnxruntime] [--op NAME ...] [--top 25]

DIR is any corpus in the standard layout (e.g. `generate-cases --onnx-node-tests --out DIR`).
This is what each executor child does per case (harness.executor.run_case), without the
process boundary, pytest or xdist; the per-run start-up is what a run of one case takes.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from pathlib import Path

from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.corpus import find_cases
from onnx_conformance.harness.executor import run_case


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cases", type=Path)
    p.add_argument("--backend", default="onnxruntime")
    p.add_argument("--op", action="append", default=[], metavar="NAME",
                   help="only this operator's cases (repeatable), as run-conformance --op")
    p.add_argument("--top", type=int, default=25)
    a = p.parse_args(argv)
    cases = [c.as_message() for c in find_cases(a.cases) if not a.op or c.op in a.op]
    adapter = registry.load(a.backend, {})
    profile = cProfile.Profile()
    started = time.perf_counter()
    profile.enable()
    for case in cases:
        run_case(adapter, case)
    profile.disable()
    print(f"{len(cases)} cases through run_case in {time.perf_counter() - started:.2f} s (profiled)")
    pstats.Stats(profile).sort_stats("cumulative").print_stats(a.top)


if __name__ == "__main__":
    main()
