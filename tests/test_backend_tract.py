"""The tract adapter against the real runtime: what it declines, what it gets wrong, dtypes kept."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.compare import compare_outputs
from tests.single_node import model_file, raised

pytest.importorskip("tract")


@pytest.fixture(scope="module")
def adapter():
    return registry.load("tract", {})


def _model(tmp_path, op, inputs, output, opset=13, ir=8, **attrs):
    return model_file(tmp_path, op, inputs, output, opset, ir, **attrs)[0]


def _reduce_min(tmp_path):
    return _model(tmp_path, "ReduceMin", [("x", TensorProto.FLOAT, [3, 2])], (TensorProto.FLOAT, [1, 2]), axes=[0], keepdims=1)


X = np.array([[3.0, -1.0], [2.0, 5.0], [4.0, 0.5]], np.float32)


def test_reduce_min_passes(adapter, tmp_path):
    outputs = adapter.run(adapter.prepare(_reduce_min(tmp_path)), [X])
    assert compare_outputs([X.min(axis=0, keepdims=True)], outputs).status == "pass"


def test_wrong_expectation_fails(adapter, tmp_path):
    outputs = adapter.run(adapter.prepare(_reduce_min(tmp_path)), [X])
    result = compare_outputs([X.max(axis=0, keepdims=True)], outputs)
    assert result.status == "fail" and result.detail.startswith("output 0: 2 of 2 values differ")


# --- declined: unsupported -------------------------------------------------------------------


def test_operator_it_does_not_translate_is_unsupported(adapter, tmp_path):
    path = _model(
        tmp_path, "TfIdfVectorizer", [("x", TensorProto.INT64, [2])], (TensorProto.FLOAT, None), opset=9,
        mode="TF", min_gram_length=1, max_gram_length=1, max_skip_count=0, ngram_counts=[0], ngram_indexes=[0], pool_int64s=[1],
    )
    exc = raised(adapter.prepare, path)
    assert "Unimplemented(TfIdfVectorizer)" in str(exc)
    assert "Stack backtrace" not in str(exc)  # RUST_BACKTRACE=1 would add one; the adapter cuts it
    assert adapter.classify(exc, "load") == "unsupported"


def test_type_without_a_datum_type_is_unsupported(adapter, tmp_path):
    assert adapter.capabilities.reason_unsupported(13, 8, "bfloat16") == "dtype bfloat16 not supported by the backend"
    assert {"float", "float16", "double", "uint64", "int8", "bool"} <= adapter.capabilities.dtypes
    path = _model(tmp_path, "Identity", [("x", TensorProto.BFLOAT16, [2])], (TensorProto.BFLOAT16, [2]))
    exc = raised(adapter.prepare, path)
    assert "Unknown DatumType Bfloat16" in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


def test_sequence_input_is_unsupported_and_a_typeless_one_is_an_error(adapter, tmp_path):
    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                              [helper.make_value_info("x", seq)], [helper.make_value_info("y", seq)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    model.ir_version = 8
    onnx.save(model, tmp_path / "seq.onnx")
    exc = raised(adapter.prepare, str(tmp_path / "seq.onnx"))
    assert "graph input `x` has no type value" in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"
    untyped = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                                [onnx.ValueInfoProto(name="x")], [helper.make_value_info("y", seq)])
    model = helper.make_model(untyped, opset_imports=[helper.make_opsetid("", 16)])
    model.ir_version = 8
    onnx.save(model, tmp_path / "untyped.onnx")
    exc = raised(adapter.prepare, str(tmp_path / "untyped.onnx"))
    assert adapter.classify(exc, "load") == "error"


def test_reducer_without_the_type_is_unsupported(adapter, tmp_path):
    prepared = adapter.prepare(_model(tmp_path, "ReduceMax", [("x", TensorProto.UINT64, [2])], (TensorProto.UINT64, []), keepdims=0))
    exc = raised(adapter.run, prepared, [np.array([2**64 - 1, 5], np.uint64)])
    assert "U64 is not a number" in str(exc)
    assert adapter.classify(exc, "run") == "unsupported"


def test_axes_given_as_an_input_is_unsupported(adapter, tmp_path):
    path = _model(
        tmp_path, "ReduceMin", [("x", TensorProto.FLOAT, [3, 2]), ("axes", TensorProto.INT64, [1])],
        (TensorProto.FLOAT, [1, 2]), opset=18, keepdims=1,
    )
    exc = raised(adapter.prepare, path)
    assert "expected axes as a constant" in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


# --- wrong: error ----------------------------------------------------------------------------


def test_operator_nobody_defines_is_error(adapter, tmp_path):
    exc = raised(adapter.prepare, _model(tmp_path, "NoSuchOp", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2])))
    assert "Unimplemented(NoSuchOp)" in str(exc)
    assert adapter.classify(exc, "load") == "error"


def test_unreadable_model_is_error(adapter, tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"not a model")
    exc = raised(adapter.prepare, str(path))
    assert "failed to decode Protobuf message" in str(exc)
    assert adapter.classify(exc, "load") == "error"


def test_mismatched_feed_is_refused_not_cast(adapter, tmp_path):
    prepared = adapter.prepare(_model(tmp_path, "Abs", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2])))
    exc = raised(adapter.run, prepared, [np.array([-1.5, 2.0], np.float64)])
    assert "Input at index 0 has incorrect dtype or shape" in str(exc)
    assert adapter.classify(exc, "run") == "error"


# --- dtypes survive the trip -----------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        np.array([0, 1, 2**32 - 1], dtype=np.uint32),
        np.array([0, 2**63, 2**64 - 1], dtype=np.uint64),
        np.array([-128, 0, 127], dtype=np.int8),
        np.array([1.5, -0.0, np.inf], dtype=np.float16),
        np.array([True, False]),
    ],
    ids=lambda v: str(v.dtype),
)
def test_identity_round_trip_keeps_dtype_and_bits(adapter, tmp_path, values):
    elem = helper.np_dtype_to_tensor_dtype(values.dtype)
    (out,) = adapter.run(adapter.prepare(_model(tmp_path, "Identity", [("x", elem, list(values.shape))], (elem, None))), [values])
    assert out.dtype == values.dtype and out.shape == values.shape
    assert out.tobytes() == values.tobytes()


def test_int8_reduction_keeps_int8(adapter, tmp_path):
    path = _model(tmp_path, "ReduceMax", [("x", TensorProto.INT8, [2])], (TensorProto.INT8, []), keepdims=0)
    (out,) = adapter.run(adapter.prepare(path), [np.array([-128, 5], np.int8)])
    assert out.dtype == np.int8 and out.tolist() == 5
    result = compare_outputs([np.array(5, np.int64)], [out])
    assert result.status == "fail" and result.detail.startswith("output 0 dtype int8 != expected int64;")
