"""A whole-corpus run of `run-conformance --backend onnxruntime -n N` against the bare runtime on the same cases.

Bare: N plain processes, each taking every N-th case, that create an onnxruntime InferenceSession
for the model, read the test data with onnx's numpy_helper and run it, catching any exception
(no isolation, no safety checks, no comparison, no reports). Ours: the full harness (executor
processes, safety checks, grading against the committed baseline, results.jsonl, matrices, junit). The two
alternate; the first pair warms the file cache and is dropped; medians and the ratio are printed.

    python bench/bench_run.py [--cases cases] [-n 2] [--reps 3] [--ours-args=ARGS]

--ours-args passes more arguments to run-conformance: `--ours-args=--plain-pytest` times it without
the shortcuts into pytest's internals (harness/fastpath.py), so the two figures show what they buy.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

BARE = r"""
import os, sys, warnings
import onnx, onnxruntime as ort
from onnx import numpy_helper
root, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
names = sorted(os.listdir(os.path.join(root, "node")))[k::n]
so = ort.SessionOptions(); so.intra_op_num_threads = 1; so.log_severity_level = 4
ran = 0
for name in names:
    case = os.path.join(root, "node", name)
    try:
        sess = ort.InferenceSession(os.path.join(case, "model.onnx"), so, providers=["CPUExecutionProvider"])
        data = os.path.join(case, "test_data_set_0")
        files = sorted(f for f in os.listdir(data) if f.startswith("input_"))
        feeds = {}
        for i, f in zip(sess.get_inputs(), files):
            t = onnx.TensorProto()
            with open(os.path.join(data, f), "rb") as fh:
                t.ParseFromString(fh.read())
            feeds[i.name] = numpy_helper.to_array(t)
        sess.run(None, feeds)
        ran += 1
    except Exception:
        pass
print(ran)
"""


def bare(cases: str, workers: int) -> float:
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-W", "ignore", "-c", BARE, cases, str(k), str(workers)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) for k in range(workers)]
    for p in procs:
        p.communicate()
    return time.perf_counter() - started


def ours(cases: str, workers: int, expectations: str | None, extra: list[str] = ()) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        gate = ["--expectations", expectations] if expectations else []
        subprocess.run([sys.executable, "-m", "onnx_conformance.harness.cli", "--backend", "onnxruntime", "--cases", cases,
                        "--report-dir", tmp, "-n", str(workers), "-q", *gate, *extra],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - started


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", default="cases")
    p.add_argument("-n", type=int, default=2)
    p.add_argument("--reps", type=int, default=3)
    # As CI runs it: against the committed baseline, so only regressions print a failure block
    p.add_argument("--expectations", default="reports/onnxruntime/expectations.txt",
                   help="baseline to gate against ('' for none: every non-pass then prints as FAILED)")
    p.add_argument("--ours-args", default="", help="more arguments for run-conformance, one string (shell words)")
    a = p.parse_args()
    extra = shlex.split(a.ours_args)
    b, o = [], []
    for _ in range(a.reps + 1):
        b.append(bare(a.cases, a.n))
        o.append(ours(a.cases, a.n, a.expectations or None, extra))
    b, o = b[1:], o[1:]
    mb, mo = statistics.median(b), statistics.median(o)
    print(f"bare onnxruntime, {a.n} processes: median {mb:.1f} s ({', '.join(f'{x:.1f}' for x in b)})")
    print(f"run-conformance -n {a.n}{' ' + a.ours_args if a.ours_args else ''}: median {mo:.1f} s ({', '.join(f'{x:.1f}' for x in o)})")
    print(f"ratio (ours / bare): {mo / mb:.2f}x over {a.reps} alternating runs")


if __name__ == "__main__":
    main()
