"""The OpenCV DNN adapter against the real runtime: what it declines, what it gets wrong, dtypes kept or changed by OpenCV itself."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.compare import compare_outputs
from tests.single_node import model_file, prepare_model, raised

pytest.importorskip("cv2", reason="the opencv extra is not installed: pip install -e '.[opencv]'")


@pytest.fixture(scope="module")
def adapter():
    return registry.load("opencv", {})


@pytest.fixture(scope="module")
def classic():
    return registry.load("opencv", {"engine": "classic"})


X = np.array([[3.0, -1.0], [2.0, 5.0], [4.0, 0.5]], np.float32)


def _reduce_min(tmp_path):
    return model_file(tmp_path, "ReduceMin", [("x", TensorProto.FLOAT, [3, 2])], (TensorProto.FLOAT, [1, 2]), axes=[0], keepdims=1)


def test_reduce_min_passes_and_a_wrong_expectation_fails(adapter, tmp_path):
    outputs = adapter.run(prepare_model(adapter, _reduce_min(tmp_path)), [X])
    assert compare_outputs([X.min(axis=0, keepdims=True)], outputs).status == "pass"
    result = compare_outputs([X.max(axis=0, keepdims=True)], outputs)
    assert result.status == "fail" and result.detail.startswith("output 0: 2 of 2 values differ")


def test_engine_option_is_checked():
    with pytest.raises(registry.BackendNotFound, match="engine must be one of auto, new, classic, got 'fast'"):
        registry.load("opencv", {"engine": "fast"})


def test_capabilities_are_the_mat_depths(adapter):
    assert adapter.capabilities.dtypes == {"bool", "float16", "float", "double", "int8", "int16", "int32", "int64",
                                            "uint8", "uint16", "uint32", "uint64"}
    assert adapter.capabilities.reason_unsupported(13, 8, "bfloat16") == "dtype bfloat16 not supported by the backend"


# --- declined: unsupported -------------------------------------------------------------------


def test_operator_without_a_layer_is_unsupported(adapter, tmp_path):
    path_and_model = model_file(tmp_path, "ReverseSequence", [("x", TensorProto.FLOAT, [2, 2]), ("lens", TensorProto.INT64, [2])],
                                (TensorProto.FLOAT, [2, 2]))
    exc = raised(prepare_model, adapter, path_and_model)
    assert 'of type "ReverseSequence"' in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


def test_operator_of_the_ml_domain_without_a_layer_is_unsupported(adapter, tmp_path):
    node = helper.make_node("Binarizer", ["x"], ["y"], domain="ai.onnx.ml", threshold=0.5)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx.ml", 1)])
    model.ir_version = 8
    onnx.save(model, tmp_path / "binarizer.onnx")
    exc = raised(prepare_model, adapter, (str(tmp_path / "binarizer.onnx"), model))
    assert 'of type "ai.onnx.ml.Binarizer"' in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


def test_layer_without_the_element_type_is_unsupported(adapter, tmp_path):
    # The layer's type check lists the depths it has kernels for: "'input == CV_32F || ...' where 'input' is 3 (CV_16SC1)".
    prepared = prepare_model(adapter, model_file(tmp_path, "Abs", [("x", TensorProto.INT16, [2])], (TensorProto.INT16, [2])))
    exc = raised(adapter.run, prepared, [np.array([-3, 4], np.int16)])
    assert "::getTypes(" in str(exc) and "(CV_16SC1)" in str(exc)
    assert adapter.classify(exc, "run") == "unsupported"


def test_matmul_of_doubles_is_unsupported(adapter, tmp_path):
    path_and_model = model_file(tmp_path, "MatMul", [("a", TensorProto.DOUBLE, [2, 3]), ("b", TensorProto.DOUBLE, [3, 2])],
                                (TensorProto.DOUBLE, [2, 2]))
    exc = raised(adapter.run, prepare_model(adapter, path_and_model), [np.ones((2, 3)), np.ones((3, 2))])
    assert "fastGemmPackB: only float32 is supported for now" in str(exc)
    assert adapter.classify(exc, "run") == "unsupported"


def test_sequence_input_is_unsupported(adapter, tmp_path):
    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                              [helper.make_value_info("x", seq)], [helper.make_value_info("y", seq)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    model.ir_version = 8
    onnx.save(model, tmp_path / "seq.onnx")
    exc = raised(prepare_model, adapter, (str(tmp_path / "seq.onnx"), model))
    assert "typeProto.has_tensor_type() in function 'parseValueInfo'" in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


def test_bfloat16_feed_is_unsupported(adapter, tmp_path):
    import ml_dtypes

    # Capabilities leave bfloat16 out, so a run declines it unread; this is why.
    prepared = prepare_model(adapter, model_file(tmp_path, "Identity", [("x", TensorProto.BFLOAT16, [2])], (TensorProto.BFLOAT16, [2])))
    exc = raised(adapter.run, prepared, [np.array([1, 2], ml_dtypes.bfloat16)])
    assert "blob data type = bfloat16 is not supported" in str(exc)
    assert adapter.classify(exc, "run") == "unsupported"


# --- wrong: error ----------------------------------------------------------------------------


def test_operator_nobody_defines_is_error(adapter, tmp_path):
    exc = raised(prepare_model, adapter, model_file(tmp_path, "NoSuchOp", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2])))
    assert 'of type "NoSuchOp"' in str(exc)
    assert adapter.classify(exc, "load") == "error"


def test_mismatched_feed_is_refused_not_cast(adapter, tmp_path):
    prepared = prepare_model(adapter, model_file(tmp_path, "Abs", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2])))
    exc = raised(adapter.run, prepared, [np.array([-1.5, 2.0], np.float64)])
    assert str(exc) == "input 0 is double, the model declares float"
    assert adapter.classify(exc, "run") == "error"


def test_unreadable_model_is_error(adapter, tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"not a model")
    exc = raised(adapter.prepare, str(path))
    assert "(-210:Unsupported format or combination of formats) Failed to parse ONNX model" in str(exc)
    assert adapter.classify(exc, "load") == "error"


def test_output_without_a_shape_is_error(adapter, tmp_path):
    # The spec lets a graph output's type carry no shape; both parsers assert one.
    exc = raised(prepare_model, adapter, model_file(tmp_path, "Abs", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, None)))
    assert "tensor.has_shape()" in str(exc)
    assert adapter.classify(exc, "load") == "error"


# --- OpenCV's own answers, which the adapter passes on unchanged -------------------------------


def test_float16_comes_back_as_float(adapter, tmp_path):
    prepared = prepare_model(adapter, model_file(tmp_path, "Identity", [("x", TensorProto.FLOAT16, [2])], (TensorProto.FLOAT16, [2])))
    (out,) = adapter.run(prepared, [np.array([1.5, -0.0], np.float16)])
    assert out.dtype == np.float32
    result = compare_outputs([np.array([1.5, -0.0], np.float16)], [out])
    assert result.status == "fail" and result.detail.startswith("output 0 dtype float != expected float16;")


def test_int64_inputs_are_narrowed_to_32_bits(adapter, classic, tmp_path):
    # The new engine keeps int64 inside the graph (3 + 2**31 - 1 is right) but cuts a fed int64 to 32 bits.
    path_and_model = model_file(tmp_path, "Add", [("a", TensorProto.INT64, [2]), ("b", TensorProto.INT64, [2])], (TensorProto.INT64, [2]))
    a, b = np.array([2**40, 3], np.int64), np.array([1, 2**31 - 1], np.int64)
    (out,) = adapter.run(prepare_model(adapter, path_and_model), [a, b])
    assert out.dtype == np.int64 and out.tolist() == [1, 2**31 + 2]
    # The classic engine computes int64 as int32 throughout and says so in the output's type.
    (out,) = classic.run(prepare_model(classic, path_and_model), [a, b])
    assert out.dtype == np.int32 and out.tolist() == [1, -(2**31) + 2]


def test_rank0_output_of_size_comes_back_rank1(adapter, tmp_path):
    prepared = prepare_model(adapter, model_file(tmp_path, "Size", [("x", TensorProto.FLOAT, [3, 2])], (TensorProto.INT64, [])))
    (out,) = adapter.run(prepared, [X])
    assert out.shape == (1,) and out.tolist() == [6]


def test_zero_sized_output_comes_back_as_none(adapter, tmp_path):
    path_and_model = model_file(tmp_path, "Identity", [("x", TensorProto.FLOAT, [2, 0, 3])], (TensorProto.FLOAT, [2, 0, 3]))
    (out,) = adapter.run(prepare_model(adapter, path_and_model), [np.zeros((2, 0, 3), np.float32)])
    assert out is None


def test_check_adapter_notes_the_four_and_finds_nothing_broken(tmp_path, capsys):
    """The four above are declared (runtime_breaks) and each shows in --check-adapter as a note; none is stale."""
    from onnx_conformance.harness import cli

    rc = cli.main(["--backend", "opencv", "--check-adapter", "--report-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    notes = [line for line in out.splitlines() if line.startswith("note: ")]
    assert [n.split("(runtime_breaks[")[1].split("]")[0] for n in notes] == ["'dtype'", "'bits'", "'rank-0 out'", "'zero-sized'"]
    assert "BROKEN" not in out and "stale:" not in out
