"""onnxruntime's session creation from model.onnx's path against from its bytes already in memory.

    python bench/bench_ort_load.py [--cases cases] [--every 7] [--limit 6000] [--reps 3]

The executor loads a small model from the bytes its safety checks read (Adapter.prepare_checked);
this measures what that saves. Each run is a fresh process that creates a session (as the
onnxruntime adapter does: one thread, fatal-only logging, the CPU provider) for every N-th case's
model, from its path or from its bytes read beforehand, and reports the CPU time per session. The two
kinds alternate, each over its own slice of the corpus; medians are printed.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

LOAD = r"""
import os, sys, time
import onnxruntime as ort
from onnxruntime.capi import onnxruntime_pybind11_state as binding
root, kind, start, every, limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
names = sorted(os.listdir(os.path.join(root, "node")))[start::every][:limit]
so = ort.SessionOptions(); so.intra_op_num_threads = 1; so.inter_op_num_threads = 1; so.log_severity_level = 4
paths = [os.path.join(root, "node", n, "model.onnx") for n in names]
models = []
for p in paths:
    with open(p, "rb") as f:
        models.append(f.read())
started = time.process_time()
for path, data in zip(paths, models):
    try:
        if kind == "path":
            session = binding.InferenceSession(so, path, True, False)
        else:
            session = binding.InferenceSession(so, data, False, False)
        session.initialize_session(["CPUExecutionProvider"], [{}], set())
    except Exception:
        pass
print((time.process_time() - started) / len(paths) * 1e6)
"""


def one(cases: str, kind: str, start: int, every: int, limit: int) -> float:
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", LOAD, cases, kind, str(start), str(every),
                          str(limit)], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", default="cases")
    p.add_argument("--every", type=int, default=7)
    p.add_argument("--limit", type=int, default=6000)
    p.add_argument("--reps", type=int, default=3)
    a = p.parse_args()
    path, data = [], []
    for k in range(a.reps):
        # each kind on both slices, in turn
        path.append(one(a.cases, "path", 2 * k, a.every, a.limit))
        data.append(one(a.cases, "bytes", 2 * k + 1, a.every, a.limit))
        data.append(one(a.cases, "bytes", 2 * k, a.every, a.limit))
        path.append(one(a.cases, "path", 2 * k + 1, a.every, a.limit))
    mp, md = statistics.median(path), statistics.median(data)
    print(f"from the path:  median {mp:.1f} us a session ({', '.join(f'{x:.0f}' for x in path)})")
    print(f"from the bytes: median {md:.1f} us a session ({', '.join(f'{x:.0f}' for x in data)})")
    print(f"the bytes save {mp - md:.1f} us a session")


if __name__ == "__main__":
    main()
