"""Times run-conformance against onnx's own Runner on onnx's node tests, same backend, same workers.

    python bench/bench_node_tests.py [--cases DIR] [-n 2] [--reps 3]

Corpus: `generate-cases --onnx-node-tests` (written to a temporary directory unless --cases names
one). Peer: onnx's `Runner` driving `onnxruntime.backend` over that directory
(bench/onnx_runner_cases.py), run by pytest with the same number of xdist workers. Ours:
`run-conformance --backend onnxruntime`. Each side runs as a fresh process, alternating A B A B;
the first pair warms the file cache and is dropped; the medians of wall time and their ratio are
printed. Not a test: nothing fails on a slow machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import agreement  # noqa: E402  (bench/ is not a package; the two runners are started there)


def timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", type=Path, help="an onnx node corpus (default: write one to a temporary directory)")
    p.add_argument("-n", dest="workers", default="2", help="pytest-xdist workers for both runners (0: none)")
    p.add_argument("--reps", type=int, default=3)
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cases = a.cases
        if cases is None:
            cases = tmp / "onnx-node"
            subprocess.run([sys.executable, "-W", "ignore", "-m", "onnx_conformance.generators.cli", "--onnx-node-tests",
                            "--out", str(cases)], cwd=BENCH.parent, check=True, stdout=subprocess.DEVNULL)
        cases = cases.resolve()
        ours, peer = [], []
        for rep in range(a.reps + 1):
            ours.append(timed(agreement.ours, cases, a.workers, tmp / f"ours-{rep}"))
            peer.append(timed(agreement.onnx_runner, cases, a.workers, tmp / f"onnx-{rep}.xml"))
            print(f"  rep {rep}{' (warm-up, dropped)' if rep == 0 else ''}: "
                  f"run-conformance {ours[-1]:.1f} s, onnx Runner {peer[-1]:.1f} s", flush=True)
        n_cases = len(agreement.our_outcomes(tmp / f"ours-{a.reps}"))
        n_peer = len(agreement.onnx_outcomes(tmp / f"onnx-{a.reps}.xml"))
    o, q = statistics.median(ours[1:]), statistics.median(peer[1:])
    workers = f"-n {a.workers}" if a.workers not in ("0", "") else "no xdist workers"
    print(f"run-conformance --backend onnxruntime ({workers}): {n_cases} cases, median {o:.1f} s")
    print(f"onnx Runner + onnxruntime.backend ({workers}): {n_peer} cases, median {q:.1f} s")
    print(f"ratio (onnx Runner / run-conformance): {q / o:.1f}x over {a.reps} alternating runs")


if __name__ == "__main__":
    main()
