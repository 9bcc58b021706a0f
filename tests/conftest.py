"""Tiny corpora built with onnx.helper, and a way to run run-conformance as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

REPO = Path(__file__).resolve().parent.parent
TOY = "tests.toybackends.toy:ToyAdapter"


def _write_case(root: Path, name: str, model: onnx.ModelProto, inputs, outputs) -> Path:
    case = root / name
    (case / "test_data_set_0").mkdir(parents=True)
    onnx.save(model, case / "model.onnx")
    for k, a in enumerate(inputs):
        (case / "test_data_set_0" / f"input_{k}.pb").write_bytes(
            numpy_helper.from_array(a).SerializeToString())
    for k, a in enumerate(outputs):
        (case / "test_data_set_0" / f"output_{k}.pb").write_bytes(
            numpy_helper.from_array(a).SerializeToString())
    return case


def add_case(root: Path, name: str, expect_error: bool = False) -> Path:
    """Add, opset 14, float: the workhorse case."""
    node = helper.make_node("Add", ["a", "b"], ["c"])
    vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in "abc"]
    graph = helper.make_graph([node], name, vi[:2], vi[2:])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.full((2, 3), 0.5, np.float32)
    return _write_case(root, name, model, [a, b], [] if expect_error else [a + b])


def reduce_sum_case(root: Path, name: str) -> Path:
    """ReduceSum-13 (axes as an input), float, keepdims."""
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=1)
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2]),
         helper.make_tensor_value_info("axes", TensorProto.INT64, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    return _write_case(root, name, model, [x, np.array([0], np.int64)],
                       [x.sum(axis=0, keepdims=True)])


def build_corpus(root: Path, adds=(), reduce_sums=(), errors=(), index: bool = False,
                 nested: bool = True) -> Path:
    """`root/node/<case>` (our layout) or `root/<case>` (onnx's), with an index.json if asked."""
    base = root / "node" if nested else root
    base.mkdir(parents=True, exist_ok=True)
    for name in adds:
        add_case(base, name)
    for name in reduce_sums:
        reduce_sum_case(base, name)
    for name in errors:
        add_case(base, name, expect_error=True)
    if index:
        cases = {}
        for name in adds:
            cases[name] = dict(op="Add", domain="", opset=14, since_version=14, dtype="float",
                               example="two_matrices", kind="expect-output", tolerance=None)
        for name in reduce_sums:
            cases[name] = dict(op="ReduceSum", domain="", opset=13, since_version=13,
                               dtype="float", example="keepdims", kind="expect-output",
                               tolerance=None)
        for name in errors:
            cases[name] = dict(op="Add", domain="", opset=14, since_version=14, dtype="float",
                               example="invalid", kind="expect-error",
                               reason="the spec says this must be rejected", tolerance=None)
        (root / "index.json").write_text(json.dumps({"format": 1, "cases": cases}))
    return root


def run_cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """run-conformance in a fresh interpreter, as CI would call it; toy backends importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run([sys.executable, "-m", "onnx_conformance.harness.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Three good cases, indexed: two Adds and a ReduceSum."""
    return build_corpus(tmp_path / "cases", adds=["test_add_a", "test_add_b"],
                        reduce_sums=["test_reduce_sum_keepdims"], index=True)


def identity_case(root: Path, name: str) -> Path:
    node = helper.make_node("Identity", ["x"], ["y"])
    graph = helper.make_graph([node], name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    x = np.arange(4, dtype=np.float32)
    return _write_case(root, name, model, [x], [x])


@pytest.fixture(scope="session")
def generated_corpus(tmp_path_factory) -> tuple[Path, dict]:
    """The project's whole corpus, generated once per test run (no cross-check): under xdist, the first
    worker to ask writes it and the others wait for it and read it (a generation costs minutes of CPU).

    A developer working on a few operators may set CONFORMANCE_OPS=Conv,MaxPool to generate only
    those; CI never sets it, and the tests about the whole corpus then fail as they should."""
    import fcntl

    from onnx_conformance.generators.emit import generate_corpus

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's, not the worker's
    out, done = shared / "generated", shared / "generated.done"
    with open(shared / "generated.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            only = [n for n in os.environ.get("CONFORMANCE_OPS", "").split(",") if n] or None
            generate_corpus(out, only, jobs=2, crosscheck=False)
            done.touch()
    return out, json.loads((out / "index.json").read_text(encoding="utf-8"))
