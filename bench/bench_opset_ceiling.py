"""What running a case at the backend's own opset costs the harness per case (harness/opset_ceiling.py).

    python bench/bench_opset_ceiling.py [--cases cases] [--every 20] [--runs 5] [--backend onnxruntime] [--cpu]

Pairs each case the rule lowers (above the backend's maximum, its operator version in force there) with its
twin at the version's first opset (same operator, version, types and example), and times executor.run_case's
own work (its time less the adapter's prepare and run calls, as bench_executor_case.py splits it) over every
N-th pair, in this one process, each run after a warming pass: the lowered cases' minus the twins' is what
the rule, the rewrite, the checker and the rewritten model's file add to a case. The cases at or below the
ceiling are timed too: run with PYTHONPATH pointing at another checkout to compare the path every other case
takes. Medians of --runs runs. --cpu counts this process's CPU time instead of wall time, for a machine that
other work loads (its scheduling then stays out of the figures; its caches do not).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_executor_case import _Timed  # noqa: E402

from onnx_conformance.harness.backends import registry  # noqa: E402
from onnx_conformance.harness.corpus import find_cases  # noqa: E402
from onnx_conformance.harness.executor import run_case  # noqa: E402


def _own_seconds(adapter: _Timed, messages: list[dict]) -> tuple[float, dict]:
    """The harness's own seconds per case over `messages`, and the statuses (with `ran_opset`) they got."""
    adapter.seconds = 0.0
    statuses: dict = {}
    started = time.perf_counter()
    for m in messages:
        r = run_case(adapter, m)
        key = (r["status"], r.get("ran_opset"))
        statuses[key] = statuses.get(key, 0) + 1
    total = time.perf_counter() - started
    return (total - adapter.seconds) / max(1, len(messages)), statuses


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", default="cases")
    p.add_argument("--every", type=int, default=20, help="every N-th pair, every N-th other case (default 20)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--backend", default="onnxruntime")
    p.add_argument("--cpu", action="store_true", help="this process's CPU time, not wall time")
    a = p.parse_args(argv)
    if a.cpu:  # every clock the split reads (here, bench_executor_case._Timed's)
        time.perf_counter = time.process_time
    import onnx.defs

    adapter = _Timed(registry.load(a.backend, {}))
    top = adapter.capabilities.opset[1]
    cases = [dict(vars(c)) for c in find_cases(a.cases)]
    first = {}
    for c in cases:
        key = (c["op"], c["domain"], c["since_version"], c["dtype"], str(c["types"]), c["example"], c["kind"])
        if c["opset"] <= top and (key not in first or c["opset"] < first[key]["opset"]):
            first[key] = c
    pairs = []
    for c in cases:
        key = (c["op"], c["domain"], c["since_version"], c["dtype"], str(c["types"]), c["example"], c["kind"])
        if c["opset"] > top and not c["domain"] and key in first:
            try:
                if onnx.defs.get_schema(c["op"], top, "").since_version == c["since_version"]:
                    pairs.append((first[key], c))
            except onnx.defs.SchemaError:
                pass
    pairs = pairs[:: a.every]
    twins, lowered = [t for t, _ in pairs], [c for _, c in pairs]
    others = [c for c in cases if c["opset"] <= top][:: a.every]
    times: dict[str, list[float]] = {"twins": [], "lowered": [], "others": []}
    seen = {}
    for name, messages in (("twins", twins), ("lowered", lowered), ("others", others)):
        _own_seconds(adapter, messages)  # warm
    for _ in range(a.runs):
        for name, messages in (("twins", twins), ("lowered", lowered), ("others", others)):
            seconds, seen[name] = _own_seconds(adapter, messages)
            times[name].append(seconds)
    us = {k: statistics.median(v) * 1e6 for k, v in times.items()}
    clock = "CPU" if a.cpu else "wall"
    print(f"{a.backend}, maximum opset {top}; medians of {a.runs} runs; the harness's own {clock} time per case:")
    print(f"  {len(twins)} twins at their own opset: {us['twins']:.0f} us  {seen['twins']}")
    print(f"  {len(lowered)} cases above {top}, as the rule runs them: {us['lowered']:.0f} us  {seen['lowered']}")
    print(f"  -> the rule adds {us['lowered'] - us['twins']:.0f} us to a lowered case")
    print(f"  {len(others)} cases at or below {top} (every {a.every}th): {us['others']:.0f} us")


if __name__ == "__main__":
    main()
