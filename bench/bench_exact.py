"""The exact backend over a corpus against onnx's ReferenceEvaluator on the same cases, in one run.

Each rep runs `run-conformance --backend exact -n N` and `--backend reference -n N` over the same
cases (alternating; the first pair warms the file cache and is dropped) and prints, for each, the
median wall time, cases per second, the sum of every process's peak resident memory sampled from
/proc every 50 ms, and the status counts of the last run; then the ratio. The exact backend's
statuses say what the semantics cover: `pass` and `fail` for expect-output cases, `pass` for
rejected expect-error cases, `unsupported` where no semantics is stated yet (or random).

    python bench/bench_exact.py [--cases cases] [-n 2] [--reps 3] [--op NAME ...]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def tree_rss(root: int) -> int:
    """The resident memory of a process and all its descendants, in bytes (from /proc)."""
    children: dict[int, list[int]] = collections.defaultdict(list)
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        children[int(fields[1])].append(pid)
        rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total


def timed(backend: str, cases: str, workers: int, ops: list[str]) -> tuple[float, int, collections.Counter]:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "onnx_conformance.harness.cli", "--backend", backend, "--cases", cases,
               "--report-dir", tmp, "-n", str(workers), "-q"]
        for op in ops:
            cmd += ["--op", op]
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        peak = 0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, tree_rss(proc.pid))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        proc.wait()
        seconds = time.perf_counter() - started
        done.set()
        sampler.join()
        counts = collections.Counter(json.loads(line)["status"] for line in Path(tmp, "results.jsonl").open())
    return seconds, peak, counts


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", default="cases")
    p.add_argument("-n", type=int, default=2)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--op", action="append", default=[], help="only this operator (repeatable)")
    a = p.parse_args()
    runs: dict[str, list] = {"exact": [], "reference": []}
    for rep in range(a.reps + 1):
        for backend in runs:
            got = timed(backend, a.cases, a.n, a.op)
            if rep:
                runs[backend].append(got)
            print(f"rep {rep}{' (warm-up, dropped)' if not rep else ''}: {backend} {got[0]:.1f} s, "
                  f"peak {got[1] / 2**20:.0f} MiB", file=sys.stderr)
    medians = {}
    for backend, results in runs.items():
        seconds = statistics.median(r[0] for r in results)
        peak = max(r[1] for r in results)
        counts = results[-1][2]
        total = sum(counts.values())
        medians[backend] = seconds
        print(f"{backend}: {total} cases, median {seconds:.1f} s, {total / seconds:.0f} cases/s at -n {a.n}, "
              f"peak {peak / 2**20:.0f} MiB; {dict(sorted(counts.items()))}")
    print(f"exact / reference wall time: {medians['exact'] / medians['reference']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
