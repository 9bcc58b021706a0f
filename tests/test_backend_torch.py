"""The torch adapter (onnx2torch + PyTorch CPU) against the real libraries: declines, errors, dtypes, the torchvision shim."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto, helper

from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.compare import compare_outputs
from tests.single_node import model_file, raised

pytest.importorskip("torch")
# Not importorskip: onnx2torch's own import fails without torchvision; the adapter's does not.
if importlib.util.find_spec("onnx2torch") is None:
    pytest.skip("onnx2torch is not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def adapter():
    return registry.load("torch", {})


def _model(tmp_path, op, inputs, output, opset=13, ir=8, **attrs):
    return model_file(tmp_path, op, inputs, output, opset, ir, **attrs)[0]


def _reduce_min(tmp_path, elem=TensorProto.FLOAT):
    return _model(tmp_path, "ReduceMin", [("x", elem, [3, 2])], (elem, [1, 2]), axes=[0], keepdims=1)


X = np.array([[3.0, -1.0], [2.0, 5.0], [4.0, 0.5]], np.float32)


def test_the_module_named_torch_imports_the_real_torch():
    import onnx_conformance.harness.backends.torch as adapter_module

    assert adapter_module.torch.__name__ == "torch" and hasattr(adapter_module.torch, "tensor")


def test_reduce_min_passes(adapter, tmp_path):
    outputs = adapter.run(adapter.prepare(_reduce_min(tmp_path)), [X])
    assert compare_outputs([X.min(axis=0, keepdims=True)], outputs).status == "pass"


def test_wrong_expectation_fails(adapter, tmp_path):
    outputs = adapter.run(adapter.prepare(_reduce_min(tmp_path)), [X])
    result = compare_outputs([X.max(axis=0, keepdims=True)], outputs)
    assert result.status == "fail" and result.detail.startswith("output 0: 2 of 2 values differ")


# --- declined: unsupported -------------------------------------------------------------------


def test_operator_version_without_a_converter_is_unsupported(adapter, tmp_path):
    path = _model(
        tmp_path, "ReduceMin", [("x", TensorProto.FLOAT, [3, 2]), ("axes", TensorProto.INT64, [1])],
        (TensorProto.FLOAT, [1, 2]), opset=18, keepdims=1,
    )
    exc = raised(adapter.prepare, path)
    assert "Converter is not implemented (OperationDescription(domain='', operation_type='ReduceMin', version=18))" in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


def test_torch_kernel_missing_for_a_dtype_is_unsupported(adapter, tmp_path):
    prepared = adapter.prepare(_reduce_min(tmp_path, TensorProto.UINT32))
    exc = raised(adapter.run, prepared, [np.arange(6, dtype=np.uint32).reshape(3, 2)])
    assert "not implemented for 'UInt32'" in str(exc)
    assert adapter.classify(exc, "run") == "unsupported"


def test_integer_mean_torch_refuses_is_unsupported(adapter, tmp_path):
    prepared = adapter.prepare(_model(tmp_path, "ReduceMean", [("x", TensorProto.INT32, [2])], (TensorProto.INT32, []), keepdims=0))
    exc = raised(adapter.run, prepared, [np.array([2, 4], np.int32)])
    assert "Input dtype must be either a floating point or complex dtype" in str(exc)
    assert adapter.classify(exc, "run") == "unsupported"


def test_integer_norm_torch_refuses_is_unsupported(adapter, tmp_path):
    prepared = adapter.prepare(_model(tmp_path, "ReduceL2", [("x", TensorProto.INT32, [2])], (TensorProto.INT32, []), keepdims=0))
    exc = raised(adapter.run, prepared, [np.array([3, 4], np.int32)])
    assert "linalg.vector_norm: Expected a floating point or complex tensor as input" in str(exc)
    assert adapter.classify(exc, "run") == "unsupported"


def test_empty_reduction_torch_rejects_is_error(adapter, tmp_path):
    # The spec defines ReduceMax over an empty set (minus infinity); torch refuses it.
    prepared = adapter.prepare(_model(tmp_path, "ReduceMax", [("x", TensorProto.FLOAT, [2, 0])], (TensorProto.FLOAT, [2]), axes=[1], keepdims=0))
    exc = raised(adapter.run, prepared, [np.zeros((2, 0), np.float32)])
    assert "Expected reduction dim 1 to have non-zero size" in str(exc)
    assert adapter.classify(exc, "run") == "error"


def test_ir_version_below_three_is_unsupported(adapter, tmp_path):
    assert adapter.capabilities.reason_unsupported(13, 2, None) == "IR version 2 below the backend's minimum 3"
    exc = raised(adapter.prepare, _model(tmp_path, "Abs", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2]), ir=2))
    assert "Onnx IR is too old" in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


# --- wrong: error ----------------------------------------------------------------------------


def test_operator_nobody_defines_is_error(adapter, tmp_path):
    exc = raised(adapter.prepare, _model(tmp_path, "NoSuchOp", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2])))
    assert "operation_type='NoSuchOp'" in str(exc)
    assert adapter.classify(exc, "load") == "error"


def test_mismatched_feed_is_refused_not_computed(adapter, tmp_path):
    # The fx module would happily compute Abs in float64.
    prepared = adapter.prepare(_model(tmp_path, "Abs", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2])))
    exc = raised(adapter.run, prepared, [np.array([-1.5, 2.0], np.float64)])
    assert str(exc) == "input 0 is double, the model declares float"
    assert adapter.classify(exc, "run") == "error"


# --- dtypes survive the trip -----------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        np.array([[1.5, -2.0, 3.25], [0.0, -0.0, np.inf]], dtype=ml_dtypes.bfloat16),
        np.array([0, 1, 2**32 - 1], dtype=np.uint32),
        np.array([0, 2**63, 2**64 - 1], dtype=np.uint64),
        np.array([-128, 0, 127], dtype=np.int8),
        np.array([True, False]),
    ],
    ids=lambda v: str(v.dtype),
)
def test_identity_round_trip_keeps_dtype_and_bits(adapter, tmp_path, values):
    elem = helper.np_dtype_to_tensor_dtype(values.dtype)
    (out,) = adapter.run(adapter.prepare(_model(tmp_path, "Identity", [("x", elem, list(values.shape))], (elem, None))), [values])
    assert out.dtype == values.dtype and out.shape == values.shape
    assert out.tobytes() == values.tobytes()


def test_bfloat16_reduction(adapter, tmp_path):
    x = np.array([[1.5, -2.0], [3.0, 0.25], [7.0, 8.0]], ml_dtypes.bfloat16)
    (out,) = adapter.run(adapter.prepare(_reduce_min(tmp_path, TensorProto.BFLOAT16)), [x])
    assert out.dtype == ml_dtypes.bfloat16 and out.tolist() == [[1.5, -2.0]]


def test_widened_integer_result_is_a_dtype_failure_not_a_pass(adapter, tmp_path):
    # torch.prod of int8 returns int64 and onnx2torch does not cast back: the comparator must see it.
    path = _model(tmp_path, "ReduceProd", [("x", TensorProto.INT8, [2])], (TensorProto.INT8, []), keepdims=0)
    (out,) = adapter.run(adapter.prepare(path), [np.array([2, 3], np.int8)])
    assert out.dtype == np.int64
    result = compare_outputs([np.array(6, np.int8)], [out])
    assert result.status == "fail" and result.detail.startswith("output 0 dtype int64 != expected int8;")


# --- torchvision ------------------------------------------------------------------------------


def test_torchvision_converters_are_left_out_when_torchvision_is_broken(tmp_path):
    # A torchvision that fails to import the way PyPI's does beside a CPU torch build.
    fake = tmp_path / "torchvision"
    fake.mkdir()
    (fake / "__init__.py").write_text('raise RuntimeError("operator torchvision::nms does not exist")\n')
    probe = textwrap.dedent(
        """
        import numpy as np, onnx
        from onnx import helper, TensorProto
        import onnx_conformance.harness.backends.torch as t
        assert t.TORCHVISION_CONVERTERS_LEFT_OUT
        a = t.TorchAdapter({})
        node = helper.make_node("NonMaxSuppression", ["b", "s"], ["y"])
        g = helper.make_graph([node], "g", [helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 1, 4]),
            helper.make_tensor_value_info("s", TensorProto.FLOAT, [1, 1, 1])],
            [helper.make_tensor_value_info("y", TensorProto.INT64, None)])
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)]), "nms.onnx")
        try:
            a.prepare("nms.onnx")
        except Exception as e:
            assert a.classify(e, "load") == "unsupported", e
            print("declined:", e)
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "operation_type='NonMaxSuppression'" in done.stdout
