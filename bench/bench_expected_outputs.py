"""`expected-outputs` on a 10-node float model with tensors of 10,000 elements: seconds, median of several.

The model (built here, opset 21): X [100, 100] -> MatMul(X, W) -> Add(B) -> Relu -> Mul(S) -> Tanh -> Exp
-> Sqrt -> Softmax(axis=-1) -> Sub(X) -> Sigmoid: exact arithmetic (MatMul: a million products of exact
values), correctly rounded transcendentals (mpmath, one call per element), a row-wise softmax.

    python bench/bench_expected_outputs.py [--reps 3] [--size 100]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(n: int) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((n, n)) / n).astype(np.float32)
    b = rng.standard_normal((n,)).astype(np.float32)
    s = np.float32(0.5)
    nodes = [
        helper.make_node("MatMul", ["X", "W"], ["a"]),
        helper.make_node("Add", ["a", "B"], ["b"]),
        helper.make_node("Relu", ["b"], ["c"]),
        helper.make_node("Mul", ["c", "S"], ["d"]),
        helper.make_node("Tanh", ["d"], ["e"]),
        helper.make_node("Exp", ["e"], ["f"]),
        helper.make_node("Sqrt", ["f"], ["g"]),
        helper.make_node("Softmax", ["g"], ["h"], axis=-1),
        helper.make_node("Sub", ["h", "X"], ["i"]),
        helper.make_node("Sigmoid", ["i"], ["Y"]),
    ]
    graph = helper.make_graph(
        nodes, "ten_nodes", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [n, n])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [n, n])],
        initializer=[numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B"),
                     numpy_helper.from_array(np.array(s), "S")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    return m


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--size", type=int, default=100, help="the tensors are SIZE x SIZE (default 100: 10,000 elements)")
    a = p.parse_args()
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ten_nodes.onnx"
        onnx.save(model(a.size), path)
        for rep in range(a.reps):
            out = Path(tmp) / f"case{rep}"
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "onnx_conformance.generators.expected", str(path),
                                   "--out", str(out), "--quiet"], capture_output=True, text=True)
            times.append(time.perf_counter() - started)
            if done.returncode:
                print(done.stderr, file=sys.stderr)
                return 1
            print(f"rep {rep}: {times[-1]:.1f} s", file=sys.stderr)
    print(f"expected-outputs, 10 nodes, {a.size * a.size} elements a tensor: median {statistics.median(times):.1f} s "
          f"(min {min(times):.1f}, max {max(times):.1f}) over {a.reps}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
