"""The OpenVINO adapter against the real runtime: what it declines, what it gets wrong, dtypes kept."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.compare import compare_outputs

ov = pytest.importorskip("openvino")


@pytest.fixture(scope="module")
def adapter():
    return registry.load("openvino", {})


def _model(tmp_path, op, inputs, output, opset=13, ir=8, domain="", extra_opsets=(), **attrs):
    """inputs: [(name, elem_type, shape)]; output: (elem_type, shape)."""
    node = helper.make_node(op, [n for n, _, _ in inputs], ["y"], domain=domain, **attrs)
    graph = helper.make_graph(
        [node], op.lower(),
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info("y", *output)],
    )
    opsets = [helper.make_opsetid("", opset), *(helper.make_opsetid(d, v) for d, v in extra_opsets)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = ir
    path = tmp_path / f"{op}_{opset}_{output[0]}.onnx"
    onnx.save(model, path)
    return str(path)


def _failure(call, *args):
    with pytest.raises(Exception) as info:
        call(*args)
    return info.value


def test_reduce_min_passes(adapter, tmp_path):
    path = _model(tmp_path, "ReduceMin", [("x", TensorProto.FLOAT, [3, 2])], (TensorProto.FLOAT, [1, 2]), axes=[0], keepdims=1)
    x = np.array([[3.0, -1.0], [2.0, 5.0], [4.0, 0.5]], np.float32)
    outputs = adapter.run(adapter.prepare(path), [x])
    assert compare_outputs([x.min(axis=0, keepdims=True)], outputs).status == "pass"


def test_wrong_expectation_fails(adapter, tmp_path):
    path = _model(tmp_path, "ReduceMin", [("x", TensorProto.FLOAT, [3, 2])], (TensorProto.FLOAT, [1, 2]), axes=[0], keepdims=1)
    x = np.array([[3.0, -1.0], [2.0, 5.0], [4.0, 0.5]], np.float32)
    outputs = adapter.run(adapter.prepare(path), [x])
    result = compare_outputs([x.max(axis=0, keepdims=True)], outputs)
    assert result.status == "fail"
    assert result.detail.startswith("output 0: 2 of 2 values differ")


# --- declined: unsupported -------------------------------------------------------------------


def test_operator_without_a_conversion_rule_is_unsupported(adapter, tmp_path):
    path = _model(
        tmp_path, "TfIdfVectorizer", [("x", TensorProto.INT64, [2])], (TensorProto.FLOAT, None), opset=9,
        mode="TF", min_gram_length=1, max_gram_length=1, max_skip_count=0, ngram_counts=[0], ngram_indexes=[0], pool_int64s=[1],
    )
    exc = _failure(adapter.prepare, path)
    assert "No conversion rule found for operations: TfIdfVectorizer-9" in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


def test_operator_of_a_domain_it_lacks_is_unsupported(adapter, tmp_path):
    path = _model(
        tmp_path, "FlexAttention", [(n, TensorProto.FLOAT, [1, 1, 2, 4]) for n in "qkv"], (TensorProto.FLOAT, None),
        opset=24, ir=11, domain="ai.onnx.preview", extra_opsets=[("ai.onnx.preview", 1)],
    )
    exc = _failure(adapter.prepare, path)
    assert "No conversion rule found for operations: ai.onnx.preview.FlexAttention" in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


def test_type_unknown_to_the_frontend_is_unsupported(adapter, tmp_path):
    dtypes = adapter.capabilities.dtypes
    assert {"bfloat16", "uint64", "float8e4m3fn"} <= dtypes and "float6e2m3" not in dtypes
    path = _model(tmp_path, "Identity", [("x", TensorProto.FLOAT6E2M3, [2])], (TensorProto.FLOAT6E2M3, [2]), opset=26, ir=13)
    exc = _failure(adapter.prepare, path)
    assert "Loading input model\nUnsupported type" in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


# --- wrong: error ----------------------------------------------------------------------------


def test_operator_nobody_defines_is_error(adapter, tmp_path):
    exc = _failure(adapter.prepare, _model(tmp_path, "NoSuchOp", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2])))
    assert "No conversion rule found for operations: NoSuchOp-13" in str(exc)
    assert adapter.classify(exc, "load") == "error"


def test_type_the_spec_forbids_is_error(adapter, tmp_path):
    exc = _failure(adapter.prepare, _model(tmp_path, "Neg", [("x", TensorProto.UINT32, [2])], (TensorProto.UINT32, [2])))
    assert "out of range for u32" in str(exc)
    assert adapter.classify(exc, "load") == "error"


def test_mismatched_feed_is_refused_not_cast(adapter, tmp_path):
    # OpenVINO itself would convert the float64 array to f32 and run.
    prepared = adapter.prepare(_model(tmp_path, "Abs", [("x", TensorProto.FLOAT, [2])], (TensorProto.FLOAT, [2])))
    exc = _failure(adapter.run, prepared, [np.array([-1.5, 2.0], np.float64)])
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
        np.array([1.5, -448.0], dtype=ml_dtypes.float8_e4m3fn),
        np.array([True, False]),
    ],
    ids=lambda v: str(v.dtype),
)
def test_identity_round_trip_keeps_dtype_and_bits(adapter, tmp_path, values):
    elem = helper.np_dtype_to_tensor_dtype(values.dtype)
    (out,) = adapter.run(adapter.prepare(_model(tmp_path, "Identity", [("x", elem, list(values.shape))], (elem, None))), [values])
    assert out.dtype == values.dtype and out.shape == values.shape
    assert out.tobytes() == values.tobytes()


def test_bfloat16_reduction_is_computed_on_the_real_bits(adapter, tmp_path):
    # ov.Tensor(bf16).data is a float16 view: bits fed as numbers would arrive as other values.
    x = np.array([[1.5, -2.0], [3.0, 0.25]], ml_dtypes.bfloat16)
    path = _model(tmp_path, "ReduceMin", [("x", TensorProto.BFLOAT16, [2, 2])], (TensorProto.BFLOAT16, [2]), axes=[1], keepdims=0)
    (out,) = adapter.run(adapter.prepare(path), [x])
    assert out.dtype == ml_dtypes.bfloat16 and out.tolist() == [-2.0, 0.25]
    assert compare_outputs([np.array([-2.0, 0.25], ml_dtypes.bfloat16)], [out]).status == "pass"


def test_a_different_output_type_reaches_the_comparator(adapter):
    # What OpenVINO hands back is returned as its own type, never cast to the declared one.
    from onnx_conformance.harness.backends.openvino import _from_tensor

    out = _from_tensor(ov.Tensor(np.array([1, 2], np.int64)))
    assert out.dtype == np.int64
    result = compare_outputs([np.array([1, 2], np.int32)], [out])
    assert result.status == "fail" and result.detail.startswith("output 0 dtype int64 != expected int32;")


def test_input_the_frontend_drops_is_fed_by_name(adapter, tmp_path):
    # ReduceMax-18 with axes of static shape [0]: the compiled model has no port for axes.
    path = _model(
        tmp_path, "ReduceMax", [("x", TensorProto.FLOAT, [2, 2]), ("axes", TensorProto.INT64, [0])],
        (TensorProto.FLOAT, [2, 2]), opset=18, noop_with_empty_axes=1,
    )
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    (out,) = adapter.run(adapter.prepare(path), [x, np.zeros(0, np.int64)])
    assert out.tolist() == x.tolist()


@pytest.mark.parametrize("op", ["Max", "Min", "Sum"])
def test_an_input_renamed_after_the_output_it_feeds_is_fed_in_its_place(adapter, tmp_path, op):
    # Max of one input is that input: the frontend's one port takes the output's name ('y'), not 'x'.
    path = _model(tmp_path, op, [("x", TensorProto.DOUBLE, [3])], (TensorProto.DOUBLE, [3]))
    compiled, _ = adapter.prepare(path)
    assert "x" not in {n for port in compiled.inputs for n in port.get_names()}
    x = np.array([3.0, -1.5, 2.0])
    (out,) = adapter.run(adapter.prepare(path), [x])
    assert out.dtype == np.float64 and out.tolist() == x.tolist()


@pytest.mark.parametrize(
    "op, elem, axes_input, opset, words",
    [
        ("ReduceMax", TensorProto.INT8, False, 12, "Unsupported input type i8"),
        ("ReduceL1", TensorProto.FLOAT, True, 18, "doesn't support ReduceL1 operation with dynamic rank"),
        ("ReduceL2", TensorProto.INT32, True, 18, "Unsupported operation of type: ReduceL2"),
    ],
)
def test_refusals_seen_on_the_reduce_corpus_are_unsupported(adapter, tmp_path, op, elem, axes_input, opset, words):
    # ReduceL1: axes naming every dimension, so the output rank is 0 whatever they hold; OpenVINO
    # still cannot tell the rank before run time.
    axes_shape = [2] if op == "ReduceL1" else [1]
    inputs = [("x", elem, [3, 2])] + ([("axes", TensorProto.INT64, axes_shape)] if axes_input else [])
    attrs = {} if axes_input else {"axes": [0]}
    path = _model(tmp_path, op, inputs, (elem, None), opset=opset, keepdims=0 if op == "ReduceL1" else 1, **attrs)
    exc = _failure(adapter.prepare, path)
    assert words in str(exc)
    assert adapter.classify(exc, "load") == "unsupported"


@pytest.mark.parametrize("type_name, elem", [("int4", TensorProto.INT4), ("uint4", TensorProto.UINT4)])
def test_four_bit_types_are_packed_as_onnx_packs_them(adapter, tmp_path, type_name, elem):
    """A Transpose moves elements between nibbles: a wrong nibble order would scramble them."""
    from onnx_conformance.generators import values

    x = values.sample(type_name, (3, 5), np.random.default_rng(3))  # odd count: a half-filled last byte
    path = _model(tmp_path, "Transpose", [("x", elem, [3, 5])], (elem, [5, 3]), opset=21, ir=10, perm=[1, 0])
    (y,) = adapter.run(adapter.prepare(path), [x])
    assert y.dtype == x.dtype and y.tobytes() == np.ascontiguousarray(x.T).tobytes()


def test_strings_go_in_as_utf8_text_and_come_back_in_shape(adapter, tmp_path):
    """Non-ASCII and N-d: bytes from a TensorProto are UTF-8, and str_data of an N-d tensor is N-d.
    The conversion is checked without inference: OpenVINO 2026.4's string Identity aborts the
    process ('free(): invalid pointer') when its request is freed, a `crash` in every run."""
    from onnx_conformance.harness.backends.openvino import _from_tensor, _to_tensor

    path = _model(tmp_path, "Identity", [("x", TensorProto.STRING, [2, 2])], (TensorProto.STRING, [2, 2]))
    compiled, _ = adapter.prepare(path)
    x = np.array([[b"a", "é".encode()], ["日本", ""]], dtype=object)
    tensor = _to_tensor(x, compiled.inputs[0], 0)
    assert _from_tensor(tensor).tolist() == [["a", "é"], ["日本", ""]]


def test_float_models_compute_in_float_on_every_cpu(adapter, tmp_path):
    """A float32 MatMul whose exact products need float's 24 bits: bfloat16 inference (the CPU
    plugin's own default where the CPU has bf16 arithmetic) would lose them; the adapter asks for
    f32 unless told `inference_precision=default`."""
    path = _model(tmp_path, "MatMul", [("a", TensorProto.FLOAT, [1, 2]), ("b", TensorProto.FLOAT, [2, 1])],
                  (TensorProto.FLOAT, [1, 1]))
    compiled, _ = adapter.prepare(path)
    assert compiled.get_property("INFERENCE_PRECISION_HINT") == ov.Type.f32
    a = np.array([[1.0 + 2.0**-20, 3.0]], np.float32)
    b = np.array([[1.0], [2.0**-20]], np.float32)
    (y,) = adapter.run(adapter.prepare(path), [a, b])
    assert y[0, 0] == np.float32(1.0 + 2.0**-20 + 3.0 * 2.0**-20)
    plugin = registry.load("openvino", {"inference_precision": "default"})
    assert "INFERENCE_PRECISION_HINT" not in plugin.config
