"""The reference adapter against the real ReferenceEvaluator: what it lacks reads as unsupported."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.compare import compare_outputs


@pytest.fixture(scope="module")
def ref():
    return registry.load("reference", {})


@pytest.fixture(scope="module")
def unchecked():
    return registry.load("reference", {"check": "0"})


def _model(tmp_path, op, inputs, output, opset=21, **attrs):
    """inputs: [(elem_type, shape)]; output: (elem_type, shape)."""
    names = [f"x{i}" for i in range(len(inputs))]
    node = helper.make_node(op, names, ["y"], **attrs)
    graph = helper.make_graph(
        [node], op.lower(),
        [helper.make_tensor_value_info(n, t, s) for n, (t, s) in zip(names, inputs)],
        [helper.make_tensor_value_info("y", *output)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    path = tmp_path / f"{op}_{opset}.onnx"
    onnx.save(model, path)
    return str(path)


def _failure(adapter, path, inputs):
    with pytest.raises(Exception) as info:
        adapter.run(adapter.prepare(path), inputs)
    return info.value


def test_operator_without_implementation_is_unsupported(ref, tmp_path):
    path = _model(tmp_path, "MaxRoiPool", [(TensorProto.FLOAT, [1, 1, 2, 2]), (TensorProto.FLOAT, [1, 5])],
                  (TensorProto.FLOAT, [1, 1, 1, 1]), opset=22, pooled_shape=[1, 1])
    exc = _failure(ref, path, [np.ones((1, 1, 2, 2), np.float32), np.zeros((1, 5), np.float32)])
    assert "No registered implementation for operator 'MaxRoiPool'" in str(exc)
    assert ref.classify(exc, "load") == "unsupported"


def test_operator_version_without_implementation_is_unsupported(ref, tmp_path):
    path = _model(tmp_path, "DequantizeLinear", [(TensorProto.UINT8, [2]), (TensorProto.FLOAT, [])],
                  (TensorProto.FLOAT, [2]), opset=10)
    exc = _failure(ref, path, [np.array([1, 2], np.uint8), np.array(0.5, np.float32)])
    assert "No implementation for operator 'DequantizeLinear' domain '' and version 10" in str(exc)
    assert ref.classify(exc, "load") == "unsupported"


def test_dtype_numpy_cannot_keep_is_unsupported(unchecked, tmp_path):
    path = _model(tmp_path, "Abs", [(TensorProto.INT4, [2])], (TensorProto.INT4, [2]))
    exc = _failure(unchecked, path, [np.array([1, -2], ml_dtypes.int4)])
    assert "Output type mismatch: input 'int4' != output 'int8'" in str(exc)
    assert unchecked.classify(exc, "run") == "unsupported"


def test_dtype_numpy_has_no_loop_for_is_unsupported(unchecked, tmp_path):
    path = _model(tmp_path, "Abs", [(TensorProto.STRING, [2])], (TensorProto.STRING, [2]), opset=13)
    exc = _failure(unchecked, path, [np.array(["a", "b"], object)])
    # The evaluator's "Issues with types ... (unary operator 'Abs')" is replaced by the words under it.
    assert str(exc) == "Abs: bad operand type for abs(): 'str'"
    assert unchecked.classify(exc, "run") == "unsupported"


def test_operator_declining_a_dtype_the_spec_allows_is_unsupported(ref, tmp_path):
    # ReduceLogSum-13 allows int32; the evaluator refuses it in its own words.
    path = _model(tmp_path, "ReduceLogSum", [(TensorProto.INT32, [2, 2])], (TensorProto.INT32, [1, 1]), opset=13)
    exc = _failure(ref, path, [np.array([[1, 2], [3, 4]], np.int32)])
    assert str(exc).startswith("ReduceLogSum_1: ReduceLogSum does not support integer input (got int32).")
    assert ref.classify(exc, "run") == "unsupported"


def test_evaluator_failing_on_a_valid_case_is_error(ref, tmp_path):
    # A rank-0 input trips numpy inside the evaluator's ReduceLogSumExp: its bug, not a missing feature.
    path = _model(tmp_path, "ReduceLogSumExp", [(TensorProto.FLOAT, [])], (TensorProto.FLOAT, []), opset=13)
    exc = _failure(ref, path, [np.array(1.5, np.float32)])
    assert str(exc) == "ReduceLogSumExp_1: TypeError: return arrays must be of ArrayType"
    assert ref.classify(exc, "run") == "error"


def test_invalid_model_is_rejected_as_error(ref, tmp_path):
    # The evaluator alone would compute Abs on strings; the checker says the model is wrong.
    path = _model(tmp_path, "Abs", [(TensorProto.STRING, [2])], (TensorProto.STRING, [2]), opset=13)
    with pytest.raises(Exception) as info:
        ref.prepare(path)
    assert "has unsupported type: tensor(string)" in str(info.value)
    assert ref.classify(info.value, "load") == "error"


def test_shape_failure_is_error(ref, tmp_path):
    path = _model(tmp_path, "Reshape", [(TensorProto.FLOAT, [2, 3]), (TensorProto.INT64, [2])],
                  (TensorProto.FLOAT, [None, None]))
    exc = _failure(ref, path, [np.ones((2, 3), np.float32), np.array([4, 4], np.int64)])
    assert "cannot reshape array of size 6 into shape (4,4)" in str(exc)
    assert ref.classify(exc, "run") == "error"


def test_shapes_numpy_rejects_under_a_type_message_are_error(unchecked, tmp_path):
    # The evaluator wraps numpy's ValueError about shapes in a TypeError "Issues with types".
    path = _model(tmp_path, "MatMul", [(TensorProto.FLOAT, [2, 3])] * 2, (TensorProto.FLOAT, [2, 3]), opset=13)
    exc = _failure(unchecked, path, [np.ones((2, 3), np.float32)] * 2)
    assert str(exc) == "MatMul: ValueError: shapes (2,3) and (2,3) not aligned: 3 (dim 1) != 2 (dim 0)"
    assert unchecked.classify(exc, "run") == "error"


def test_dtypes_are_kept(ref, tmp_path):
    for values in (np.array([0, 2**64 - 1], np.uint64), np.array([1.5, -2], ml_dtypes.bfloat16), np.array(7, np.uint32)):
        elem = helper.np_dtype_to_tensor_dtype(values.dtype)
        path = _model(tmp_path, "Identity", [(elem, list(values.shape))], (elem, list(values.shape)))
        (out,) = ref.run(ref.prepare(path), [values])
        assert out.dtype == values.dtype and out.shape == values.shape and out.tolist() == values.tolist()


def test_wrong_expectation_fails(ref, tmp_path):
    path = _model(tmp_path, "Add", [(TensorProto.INT64, [2])] * 2, (TensorProto.INT64, [2]), opset=14)
    outputs = ref.run(ref.prepare(path), [np.array([1, 2**61], np.int64)] * 2)
    assert compare_outputs([np.array([2, 2**62], np.int64)], outputs).status == "pass"
    wrong = compare_outputs([np.array([2, 2**62 + 1], np.int64)], outputs)
    assert wrong.status == "fail" and wrong.max_abs_err == 1


def test_check_option_is_validated():
    with pytest.raises(registry.BackendNotFound, match="check must be 0 or 1"):
        registry.load("reference", {"check": "yes"})
