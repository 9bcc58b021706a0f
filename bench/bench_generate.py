"""Times `generate-cases` over the whole corpus against a named peer, in one invocation; reports peak memory.

Peak memory is the largest resident set of the generating process and of any of its workers
(getrusage; Linux reports it in KiB).

Peer: onnx's own node-test machinery, `onnx.backend.test.case.node.collect_testcases()`, which
builds its ~1,900 expect() cases in memory (it writes nothing). Each side runs in a fresh
process, alternating A B A B, and the medians of wall time and of cases per second are printed.

    python bench/bench_generate.py [--reps 5] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time

OURS = """
import json, resource, sys
from onnx_conformance.generators.emit import generate_corpus
index = generate_corpus(sys.argv[1], jobs=int(sys.argv[2]), crosscheck=sys.argv[3] == "1")
main = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps([len(index["cases"]), main, workers]))
"""
PEER = """
import json
from onnx.backend.test.case.node import collect_testcases
print(json.dumps(len(collect_testcases())))
"""


def timed(code: str, *args: str) -> tuple[float, int | list]:
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code, *args], check=True, capture_output=True, text=True)
    return time.perf_counter() - t, json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--crosscheck", action="store_true", help="include the ReferenceEvaluator cross-check")
    a = p.parse_args()
    ours, peer = [], []
    for _ in range(a.reps + 1):  # the first pair warms the file cache and is dropped
        with tempfile.TemporaryDirectory() as tmp:
            ours.append(timed(OURS, tmp, str(a.jobs), "1" if a.crosscheck else "0"))
        peer.append(timed(PEER))
    ours, peer = ours[1:], peer[1:]
    o_t, p_t = statistics.median(t for t, _ in ours), statistics.median(t for t, _ in peer)
    (o_n, _, _), p_n = ours[0][1], peer[0][1]
    main_kib = max(r[1] for _, r in ours)
    worker_kib = max(r[2] for _, r in ours)
    print(f"generate-cases (jobs={a.jobs}, crosscheck={a.crosscheck}): {o_n} cases written, median {o_t:.2f} s, "
          f"{o_n / o_t:.0f} cases/s")
    print(f"peak resident memory: main process {main_kib / 1024:.0f} MiB, largest worker {worker_kib / 1024:.0f} MiB, "
          f"at most {(main_kib + a.jobs * worker_kib) / 1024:.0f} MiB together")
    print(f"onnx collect_testcases (in memory): {p_n} cases built, median {p_t:.2f} s, {p_n / p_t:.0f} cases/s")
    print(f"throughput ratio (ours / onnx): {(o_n / o_t) / (p_n / p_t):.2f}x over {a.reps} alternating runs")


if __name__ == "__main__":
    main()
