"""The IREE adapter against the real compiler and runtime: declines, errors, dtypes, the compile cache."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto, helper

from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.compare import compare_outputs
from tests.single_node import model_file, raised

pytest.importorskip("iree.compiler")
rt = pytest.importorskip("iree.runtime")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("iree-cache")


@pytest.fixture(scope="module")
def adapter(cache_dir):
    return registry.load("iree", {"cache_dir": str(cache_dir)})


def _model(tmp_path, op, inputs, output, opset=13, ir=8, **attrs):
    return model_file(tmp_path, op, inputs, output, opset, ir, **attrs)[0]


X = np.array([[3.0, -1.0], [2.0, 5.0], [4.0, 0.5]], np.float32)


def _reduce_min(tmp_path, elem=TensorProto.FLOAT, opset=13):
    return _model(tmp_path, "ReduceMin", [("x", elem, [3, 2])], (elem, [1, 2]), opset=opset, axes=[0], keepdims=1)


def test_reduce_min_passes_and_a_wrong_expectation_fails(adapter, tmp_path):
    outputs = adapter.run(adapter.prepare(_reduce_min(tmp_path)), [X])
    assert compare_outputs([X.min(axis=0, keepdims=True)], outputs).status == "pass"
    result = compare_outputs([X.max(axis=0, keepdims=True)], outputs)
    assert result.status == "fail" and result.detail.startswith("output 0: 2 of 2 values differ")


def test_compiled_modules_are_reused_from_disk(adapter, cache_dir, tmp_path, monkeypatch):
    path = _reduce_min(tmp_path)
    adapter.prepare(path)
    assert list(cache_dir.glob("*.vmfb"))
    import iree.compiler.tools

    def no_compiling(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(iree.compiler.tools, "compile_str", no_compiling)
    fresh = registry.load("iree", {"cache_dir": str(cache_dir)})  # a new process's adapter: disk only
    (out,) = fresh.run(fresh.prepare(path), [X])
    assert out.tolist() == X.min(axis=0, keepdims=True).tolist()


# --- declined: unsupported -------------------------------------------------------------------


def test_operator_version_it_cannot_lower_is_unsupported_and_cached(adapter, cache_dir, tmp_path):
    path = _reduce_min(tmp_path, opset=1)
    exc = raised(adapter.prepare, path)
    assert "failed to legalize operation 'torch.operator' that was explicitly marked illegal" in str(exc)
    assert 'name = "onnx.ReduceMin"' in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"
    assert list(cache_dir.glob("*.error"))
    again = raised(registry.load("iree", {"cache_dir": str(cache_dir)}).prepare, path)
    assert str(again) == str(exc)


def test_type_unknown_to_the_importer_is_unsupported(adapter, tmp_path):
    path = _model(tmp_path, "Identity", [("x", TensorProto.FLOAT6E2M3, [2])], (TensorProto.FLOAT6E2M3, [2]), opset=26, ir=13)
    exc = raised(adapter.prepare, path)
    assert "Unknown ONNX tensor element type: 27" in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


# --- wrong: error ----------------------------------------------------------------------------


def test_operator_nobody_defines_is_error(adapter, tmp_path):
    exc = raised(adapter.prepare, _model(tmp_path, "NoSuchOp", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2])))
    assert "No Op registered for NoSuchOp" in str(exc)
    assert adapter.classify(exc, "load") == "error"


def test_mismatched_feed_is_refused_not_cast(adapter, tmp_path):
    prepared = adapter.prepare(_model(tmp_path, "Abs", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2])))
    exc = raised(adapter.run, prepared, [np.array([-1.5, 2.0], np.float64)])
    assert "tensor element type mismatch; expected f32" in str(exc)
    assert adapter.classify(exc, "run") == "error"


# --- dtypes survive the trip -----------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        np.array([[0, 2**32 - 1], [7, 2**31]], dtype=np.uint32),
        np.array([[0, 2**64 - 1], [7, 2**63]], dtype=np.uint64),
        np.array([[-128, 127], [5, -3]], dtype=np.int8),
    ],
    ids=lambda v: str(v.dtype),
)
def test_integer_reductions_keep_signedness(adapter, tmp_path, values):
    # IREE computes in signless integers and reports int32 for a uint32 result; the adapter
    # reads the bits in the declared type, so 2**32-1 stays 2**32-1.
    elem = helper.np_dtype_to_tensor_dtype(values.dtype)
    path = _model(tmp_path, "ReduceMax", [("x", elem, [2, 2])], (elem, [2]), axes=[1], keepdims=0)
    (out,) = adapter.run(adapter.prepare(path), [values])
    assert out.dtype == values.dtype
    assert out.tolist() == values.max(axis=1).tolist()


def test_a_signed_result_is_not_relabelled_unsigned(adapter):
    from onnx_conformance.harness.backends.iree import _to_numpy

    signed = rt.asdevicearray(adapter.config.device, np.array([1, 2], np.int64))  # SINT_64, not signless
    out = _to_numpy(signed, "uint64")
    assert out.dtype == np.int64
    result = compare_outputs([np.array([1, 2], np.uint64)], [out])
    assert result.status == "fail" and result.detail.startswith("output 0 dtype int64 != expected uint64;")


def test_bfloat16_reduction(adapter, tmp_path):
    x = np.array([[1.5, -2.0], [3.0, 0.25], [7.0, 8.0]], ml_dtypes.bfloat16)
    (out,) = adapter.run(adapter.prepare(_reduce_min(tmp_path, TensorProto.BFLOAT16)), [x])
    assert out.dtype == ml_dtypes.bfloat16 and out.tolist() == [[1.5, -2.0]]


def test_double_is_demoted_unless_told_otherwise(tmp_path, cache_dir):
    # iree-compile demotes f64 to f32 by default; a rank-0 double result then fails at run time.
    path = _model(tmp_path, "ReduceL1", [("x", TensorProto.DOUBLE, [2, 2])], (TensorProto.DOUBLE, []), axes=[0, 1], keepdims=0)
    x = np.array([[1.0, -2.0], [3.0, 0.1]])
    default = registry.load("iree", {"cache_dir": str(cache_dir)})
    exc = raised(default.run, default.prepare(path), [x])
    assert "buffer view byte length 8 exceeds backing buffer byte length 4" in str(exc)
    assert default.classify(exc, "run") == "error"
    kept = registry.load("iree", {"cache_dir": str(cache_dir), "flags": "--iree-input-demote-f64-to-f32=false"})
    (out,) = kept.run(kept.prepare(path), [x])
    assert out.dtype == np.float64 and out.tolist() == 6.1
