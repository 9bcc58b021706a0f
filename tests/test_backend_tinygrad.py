"""The tinygrad adapter against the real runtime: what it declines, what it gets wrong, dtypes kept."""

from __future__ import annotations

import shutil

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.compare import compare_outputs
from tests.single_node import model_file, prepare_model, raised

pytest.importorskip("tinygrad", reason="the tinygrad extra is not installed: pip install -e '.[tinygrad]'")
if shutil.which("clang") is None:
    pytest.skip("tinygrad's CPU device compiles with clang, which is not on PATH", allow_module_level=True)


@pytest.fixture(scope="module")
def adapter():
    return registry.load("tinygrad", {})


X = np.array([[3.0, -1.0], [2.0, 5.0], [4.0, 0.5]], np.float32)


def test_reduce_min_passes_and_a_wrong_expectation_fails(adapter, tmp_path):
    path_and_model = model_file(tmp_path, "ReduceMin", [("x", TensorProto.FLOAT, [3, 2])], (TensorProto.FLOAT, [1, 2]), axes=[0], keepdims=1)
    outputs = adapter.run(prepare_model(adapter, path_and_model), [X])
    assert compare_outputs([X.min(axis=0, keepdims=True)], outputs).status == "pass"
    result = compare_outputs([X.max(axis=0, keepdims=True)], outputs)
    assert result.status == "fail" and result.detail.startswith("output 0: 2 of 2 values differ")


def test_runs_on_the_cpu_device_it_was_given(adapter):
    assert adapter.version.startswith("0.14.0 (CPU:CLANG, clang ")
    with pytest.raises(registry.BackendNotFound, match="threads must be a positive whole number, got '0'"):
        registry.load("tinygrad", {"threads": "0"})


def test_capabilities_are_the_parsers_types(adapter):
    assert adapter.capabilities.dtypes == {"bool", "float16", "bfloat16", "float", "double", "int8", "int16", "int32",
                                            "int64", "uint8", "uint16", "uint32", "uint64"}
    assert adapter.capabilities.reason_unsupported(13, 8, "string") == "dtype string not supported by the backend"


# --- declined: unsupported -------------------------------------------------------------------


def test_operator_it_does_not_implement_is_unsupported(adapter, tmp_path):
    path_and_model = model_file(tmp_path, "ReverseSequence", [("x", TensorProto.FLOAT, [2, 2]), ("lens", TensorProto.INT64, [2])],
                                (TensorProto.FLOAT, [2, 2]))
    prepared = prepare_model(adapter, path_and_model)  # the runner looks operators up when it runs them
    exc = raised(adapter.run, prepared, [X[:2], np.array([1, 2], np.int64)])
    assert "op='ReverseSequence' is not supported" in str(exc)
    assert adapter.classify(exc, "run") == "unsupported"


def test_type_its_parser_does_not_list_is_unsupported(adapter, tmp_path):
    # Capabilities leave float8 out, so a run declines it unread; this is why.
    path_and_model = model_file(tmp_path, "Cast", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT8E4M3FN, [2]),
                                opset=19, ir=9, to=TensorProto.FLOAT8E4M3FN)
    exc = raised(prepare_model, adapter, path_and_model)
    assert str(exc) == "17 is not a valid OnnxDataType"
    assert adapter.classify(exc, "load") == "unsupported"


def test_attribute_kind_its_parser_does_not_list_is_unsupported(adapter, tmp_path):
    sparse = helper.make_sparse_tensor(helper.make_tensor("v", TensorProto.FLOAT, [1], [2.0]),
                                       helper.make_tensor("i", TensorProto.INT64, [1], [1]), [3])
    graph = helper.make_graph([helper.make_node("Constant", [], ["y"], sparse_value=sparse)], "g", [],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, tmp_path / "sparse.onnx")
    exc = raised(prepare_model, adapter, (str(tmp_path / "sparse.onnx"), model))
    assert str(exc) == "11 is not a valid AttributeType"
    assert adapter.classify(exc, "load") == "unsupported"


def test_sequence_of_differing_shapes_is_unsupported(adapter, tmp_path):
    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                              [helper.make_value_info("x", seq)], [helper.make_value_info("y", seq)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    model.ir_version = 8
    onnx.save(model, tmp_path / "seq.onnx")
    prepared = prepare_model(adapter, (str(tmp_path / "seq.onnx"), model))
    exc = raised(adapter.run, prepared, [[np.zeros(2, np.float32), np.zeros(3, np.float32)]])
    assert "Shapes for input x sequence must be homogeneous" in str(exc)
    assert adapter.classify(exc, "run") == "unsupported"


def test_map_input_is_unsupported(adapter, tmp_path):
    node = helper.make_node("DictVectorizer", ["x"], ["y"], domain="ai.onnx.ml", int64_vocabulary=[1, 2])
    graph = helper.make_graph([node], "g", [helper.make_value_info("x", helper.make_map_type_proto(
        TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, None)))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx.ml", 1)])
    model.ir_version = 8
    onnx.save(model, tmp_path / "map.onnx")
    exc = raised(prepare_model, adapter, (str(tmp_path / "map.onnx"), model))
    assert "graph value 'x' is a map" in str(exc) and "(AssertionError: {})" in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


# --- wrong: error ----------------------------------------------------------------------------


def test_operator_nobody_defines_is_error(adapter, tmp_path):
    prepared = prepare_model(adapter, model_file(tmp_path, "NoSuchOp", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2])))
    exc = raised(adapter.run, prepared, [np.array([1.0, 2.0], np.float32)])
    assert isinstance(exc, NotImplementedError) and "op='NoSuchOp' is not supported" in str(exc)
    assert adapter.classify(exc, "run") == "error"


def test_mismatched_feed_is_refused_not_cast(adapter, tmp_path):
    prepared = prepare_model(adapter, model_file(tmp_path, "Abs", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2])))
    exc = raised(adapter.run, prepared, [np.array([-1.5, 2.0], np.float64)])
    assert str(exc) == "input 0 is double, the model declares float"
    assert adapter.classify(exc, "run") == "error"


def test_unreadable_model_is_error(adapter, tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"not a model")
    exc = raised(adapter.prepare, str(path))
    assert adapter.classify(exc, "load") == "error"


# --- dtypes survive the trip -----------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        np.array([0, 2**63, 2**64 - 1], dtype=np.uint64),
        np.array([-128, 0, 127], dtype=np.int8),
        np.array([1.5, -0.0, np.inf], dtype=np.float16),
        np.array([True, False]),
    ],
    ids=lambda v: str(v.dtype),
)
def test_identity_round_trip_keeps_dtype_and_bits(adapter, tmp_path, values):
    elem = helper.np_dtype_to_tensor_dtype(values.dtype)
    prepared = prepare_model(adapter, model_file(tmp_path, "Identity", [("x", elem, list(values.shape))], (elem, list(values.shape))))
    (out,) = adapter.run(prepared, [values])
    assert out.dtype == values.dtype and out.shape == values.shape
    assert out.tobytes() == values.tobytes()


def test_bfloat16_moves_as_its_bits(adapter, tmp_path):
    import ml_dtypes

    values = np.array([1.5, -0.0, 3.0e38], ml_dtypes.bfloat16)
    prepared = prepare_model(adapter, model_file(tmp_path, "Neg", [("x", TensorProto.BFLOAT16, [3])], (TensorProto.BFLOAT16, [3])))
    (out,) = adapter.run(prepared, [values])
    assert out.dtype == ml_dtypes.bfloat16
    assert out.view(np.uint16).tolist() == (-values).view(np.uint16).tolist()
