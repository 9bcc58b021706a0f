"""Any module speaking onnx's Backend API, exercised through onnxruntime.backend for real."""

from __future__ import annotations

import types
import unittest

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnx_conformance.harness.backends import registry, standard
from onnx_conformance.harness.backends.base import Unsupported
from onnx_conformance.harness.compare import compare_outputs

pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.filterwarnings("ignore:onnx.version is deprecated:DeprecationWarning")


@pytest.fixture(scope="module")
def std():
    return registry.load("onnxruntime.backend", {})


def _model(tmp_path, op, in_types, out_type, opset=21, ir=10, in_shape=(None,), out_shape=(None,), **attrs):
    # onnxruntime.backend runs onnx.checker, which wants a shape (here: rank 1, any size) on graph I/O.
    names = [f"x{i}" for i in range(len(in_types))]
    graph = helper.make_graph(
        [helper.make_node(op, names, ["y"], **attrs)], op.lower(),
        [helper.make_tensor_value_info(n, t, list(in_shape if i == 0 else [None])) for i, (n, t) in enumerate(zip(names, in_types))],
        [helper.make_tensor_value_info("y", out_type, list(out_shape))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir
    path = tmp_path / f"{op}_{opset}_{ir}.onnx"
    onnx.save(model, path)
    return str(path)


def test_onnxruntime_backend_runs_through_the_generic_adapter(std, tmp_path):
    assert isinstance(std, standard.StandardAdapter)
    assert std.name == "onnxruntime.backend"
    import onnxruntime

    assert std.version == onnxruntime.__version__
    prepared = std.prepare(_model(tmp_path, "Add", [TensorProto.UINT64] * 2, TensorProto.UINT64, opset=14))
    outputs = std.run(prepared, [np.array([2**63, 1], np.uint64), np.array([2**63 - 1, 2], np.uint64)])
    assert outputs[0].dtype == np.uint64 and outputs[0].tolist() == [2**64 - 1, 3]
    assert compare_outputs([np.array([2**64 - 1, 3], np.uint64)], outputs).status == "pass"
    assert compare_outputs([np.array([2**64 - 2, 3], np.uint64)], outputs).status == "fail"


def test_runtime_own_not_implemented_type_is_unsupported(std, tmp_path):
    with pytest.raises(Exception) as info:
        std.prepare(_model(tmp_path, "ReduceMin", [TensorProto.BFLOAT16], TensorProto.BFLOAT16, opset=20))
    assert type(info.value).__name__ == "NotImplemented"  # onnxruntime's pybind type, not Python's
    assert std.classify(info.value, "load") == "unsupported"


def test_declining_words_are_unsupported(std, tmp_path):
    with pytest.raises(Exception) as info:
        std.prepare(_model(tmp_path, "Identity", [TensorProto.FLOAT], TensorProto.FLOAT, ir=onnx.IR_VERSION))
    if "Unsupported model IR version" not in str(info.value):
        pytest.skip("this onnxruntime accepts the installed onnx's IR version")
    assert std.classify(info.value, "load") == "unsupported"


def test_failures_are_errors(std, tmp_path):
    with pytest.raises(Exception) as info:
        std.prepare(_model(tmp_path, "Neg", [TensorProto.UINT32], TensorProto.UINT32, opset=13))
    assert std.classify(info.value, "load") == "error"
    prepared = std.prepare(_model(tmp_path, "Reshape", [TensorProto.FLOAT, TensorProto.INT64], TensorProto.FLOAT, in_shape=(None, None), out_shape=(None, None)))
    with pytest.raises(Exception) as info:
        std.run(prepared, [np.zeros((2, 3), np.float32), np.array([4, 4], np.int64)])
    assert "cannot be reshaped" in str(info.value)
    assert std.classify(info.value, "run") == "error"


def test_generic_rules():
    adapter = standard.StandardAdapter({}, api=_fake_backend())
    assert adapter.classify(NotImplementedError("x"), "load") == "unsupported"
    assert adapter.classify(unittest.SkipTest("only released opsets"), "load") == "unsupported"
    assert adapter.classify(Unsupported("x"), "load") == "unsupported"
    assert adapter.classify(RuntimeError("Op Foo is not supported for int4"), "run") == "unsupported"
    assert adapter.classify(RuntimeError("shape mismatch\nnot implemented elsewhere"), "run") == "error"
    assert adapter.classify(ValueError("bad"), "run") == "error"


def test_supports_device_and_is_compatible_are_respected(tmp_path):
    with pytest.raises(registry.BackendNotFound, match="does not support device 'CUDA'"):
        registry.load("onnxruntime.backend", {"device": "CUDA"})
    adapter = standard.StandardAdapter({}, api=_fake_backend(compatible=False))
    with pytest.raises(Unsupported, match="is_compatible returned False"):
        adapter.prepare(_model(tmp_path, "Abs", [TensorProto.FLOAT], TensorProto.FLOAT, opset=13))


def test_outputs_become_a_list_of_arrays_keeping_dtype(tmp_path):
    adapter = standard.StandardAdapter({}, api=_fake_backend())
    rep = adapter.prepare(_model(tmp_path, "Abs", [TensorProto.FLOAT], TensorProto.FLOAT, opset=13))
    out = adapter.run(rep, [np.array([1.5], ml_dtypes.bfloat16)])
    assert isinstance(out, list)
    assert out[0].dtype == ml_dtypes.bfloat16 and out[1].dtype == np.uint32 and out[1].shape == ()


def _fake_backend(compatible=True):
    """A minimal Backend-API module: a tuple of outputs, one of them a numpy scalar."""

    class Rep:
        def run(self, inputs):
            return (inputs[0], np.uint32(7))

    module = types.ModuleType("fake_backend")
    module.__version__ = "0.0"
    module.prepare = lambda model, device="CPU": Rep()
    module.run_model = lambda model, inputs, device="CPU": Rep().run(inputs)
    module.supports_device = lambda device: True
    module.is_compatible = lambda model, device="CPU": compatible
    return module


def test_a_backend_declining_an_operator_passes_none_of_its_expect_error_cases(tmp_path):
    """Through onnx's Backend API by dotted path: every ReduceProd model is declined, so its rejection
    cases are `unsupported`, not `pass`; another operator's rejection cases still pass."""
    from onnx_conformance.generators.emit import generate_corpus
    from tests.conftest import read_jsonl, run_cli

    generate_corpus(tmp_path / "c", ops=["ReduceProd", "ReduceSum"], jobs=1, crosscheck=False)
    proc = run_cli("--backend", "tests.toybackends.declines:DecliningBackend", "--cases", str(tmp_path / "c"),
                   "--report-dir", str(tmp_path / "r"), "-k", "axes_out_of_range", cwd=tmp_path, timeout=300)
    rows = read_jsonl(tmp_path / "r" / "results.jsonl")
    assert rows, proc.stdout[-2000:] + proc.stderr[-2000:]
    prod = {r["status"] for r in rows if r["op"] == "ReduceProd"}
    other = {r["status"] for r in rows if r["op"] == "ReduceSum"}
    assert prod == {"unsupported"} and "pass" in other, (prod, other)
    assert any("no ReduceProd kernel" in r["detail"] for r in rows if r["op"] == "ReduceProd")
