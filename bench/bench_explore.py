"""explore-cases on onnxruntime: inputs tried per second for a few operators, where the time goes, and onnxruntime's own time on the same inputs.

Each operator version is searched alone for --budget seconds (one process, its executor started
before the clock). The time of each input is split into drawing it (hypothesis and the family's
strategies), building it (the exact semantics, the model, onnx.checker, the files) and judging it
(writing the case, the executor's round trip: the checks, onnxruntime, the compare). The peer is
onnxruntime alone on the same models and inputs, in this process: a session made from the model's
bytes and run once, what an input costs the runtime itself.

    python bench/bench_explore.py [--budget 20] [--op Add-14 ...]
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


def explore_one(op: str, budget: float) -> dict:
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
            explore.main(["--backend", "onnxruntime", "--op", op, "--budget", str(budget),
                          "--out", str(Path(out) / "finds"), "--quiet"])
    finally:
        explore.build, explore_verdicts.Judge.judge = build, judge
    return {"op": op, "ran": len(kept), "seconds": budget, "build": spent["build"], "judge": spent["judge"],
            "peer": peer_seconds(kept), "finds": summary.getvalue().count("run-conformance --backend")}


def peer_seconds(probes: list) -> float:
    """onnxruntime alone on the inputs explore-cases ran and onnxruntime accepted: session from the
    model's bytes, one run."""
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 4  # its own error messages: a failed run is timed, not shown
    total = 0.0
    for probe in probes:
        inputs = []
        for rel in sorted(r for r in probe.files if "/input_" in r):
            tensor = onnx.TensorProto()
            tensor.ParseFromString(probe.files[rel])
            inputs.append(numpy_helper.to_array(tensor))
        started = time.perf_counter()
        try:
            session = ort.InferenceSession(probe.files["model.onnx"], options, providers=["CPUExecutionProvider"])
            session.run(None, {i.name: x for i, x in zip(session.get_inputs(), inputs)})
        except Exception:  # noqa: BLE001 - declined or failed: what it cost still counts
            pass
        total += time.perf_counter() - started
    return total


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--budget", type=float, default=20.0, help="seconds per operator version (default 20)")
    p.add_argument("--op", action="append", default=[], help=f"operator versions (default {' '.join(OPS)})")
    a = p.parse_args()
    print("| operator | inputs | inputs/s | draw ms | build ms | judge ms | onnxruntime alone ms | finds |")
    print("|---|---|---|---|---|---|---|---|")
    for op in a.op or OPS:
        r = explore_one(op, a.budget)
        n = max(r["ran"], 1)
        draw = r["seconds"] - r["build"] - r["judge"]
        print(f"| {op} | {r['ran']} | {r['ran'] / r['seconds']:.1f} | {1000 * draw / n:.1f} | "
              f"{1000 * r['build'] / n:.1f} | {1000 * r['judge'] / n:.1f} | {1000 * r['peer'] / n:.2f} | "
              f"{r['finds']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
