"""The onnxruntime adapter against the real runtime: what it declines, what it gets wrong, dtypes kept."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.compare import compare_outputs

pytest.importorskip("onnxruntime")


@pytest.fixture(scope="module")
def ort_adapter():
    return registry.load("onnxruntime", {})


def _model(tmp_path, op, in_types, out_type, opset=21, ir=10, domain="", extra_opsets=(), shape=None, **attrs):
    """One-node model saved to disk; inputs x0, x1, ... of the given element types."""
    names = [f"x{i}" for i in range(len(in_types))]
    node = helper.make_node(op, names, ["y"], domain=domain, **attrs)
    inputs = [helper.make_tensor_value_info(n, t, shape) for n, t in zip(names, in_types)]
    output = helper.make_tensor_value_info("y", out_type, None)
    graph = helper.make_graph([node], op.lower(), inputs, [output])
    opsets = [helper.make_opsetid("", opset), *(helper.make_opsetid(d, v) for d, v in extra_opsets)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = ir
    path = tmp_path / f"{op}_{opset}_{ir}.onnx"
    onnx.save(model, path)
    return str(path)


def _load_failure(adapter, path):
    """The error loading the model from its path raises; loading it from its bytes (as the executor
    does with the bytes its checks read) raises the same, in the same words but for the path."""
    with pytest.raises(Exception) as info:
        adapter.prepare(path)
    with open(path, "rb") as f:
        data = f.read()
    with pytest.raises(Exception) as from_bytes:
        adapter.prepare_checked(path, data)
    assert type(from_bytes.value) is type(info.value)
    assert str(from_bytes.value) == _without_path(str(info.value), path)
    assert adapter.classify(from_bytes.value, "load") == adapter.classify(info.value, "load")
    return info.value


def _without_path(text: str, path: str) -> str:
    """ORT's words for a model loaded from memory: those for its path less "Load model from PATH
    failed:", which some of them begin with."""
    return text.replace(f"Load model from {path} failed:", "")


# --- declined: unsupported -------------------------------------------------------------------


def test_missing_kernel_is_unsupported(ort_adapter, tmp_path):
    path = _model(tmp_path, "ReduceMin", [TensorProto.BFLOAT16], TensorProto.BFLOAT16, opset=20)
    exc = _load_failure(ort_adapter, path)
    assert "NOT_IMPLEMENTED : Could not find an implementation for ReduceMin(20)" in str(exc)
    assert ort_adapter.classify(exc, "load") == "unsupported"


def test_max_opset_is_read_from_the_runtime(ort_adapter, tmp_path):
    newest = onnx.defs.onnx_opset_version()
    low, high = ort_adapter.capabilities.opset
    assert low == 1 and high <= newest
    ir = ort_adapter.capabilities.ir[1]
    ort_adapter.prepare(_model(tmp_path, "Identity", [TensorProto.FLOAT], TensorProto.FLOAT, opset=high, ir=ir))
    if high == newest:
        pytest.skip("this onnxruntime accepts every opset the installed onnx defines")
    exc = _load_failure(ort_adapter, _model(tmp_path, "Identity", [TensorProto.FLOAT], TensorProto.FLOAT, opset=high + 1, ir=ir))
    assert f"is till opset {high}" in str(exc)
    assert ort_adapter.classify(exc, "load") == "unsupported"
    assert ort_adapter.capabilities.reason_unsupported(high + 1, None, None) == (
        f"opset {high + 1} above the backend's maximum {high}"
    )


def test_ir_version_above_max_is_unsupported(ort_adapter, tmp_path):
    max_ir = ort_adapter.capabilities.ir[1]
    if max_ir >= onnx.IR_VERSION:
        pytest.skip("this onnxruntime accepts the installed onnx's IR version")
    exc = _load_failure(ort_adapter, _model(tmp_path, "Identity", [TensorProto.FLOAT], TensorProto.FLOAT, ir=max_ir + 1))
    assert f"max supported IR version: {max_ir}" in str(exc)
    assert ort_adapter.classify(exc, "load") == "unsupported"


def test_dtype_unknown_to_the_runtime_is_unsupported(ort_adapter, tmp_path):
    if "float6e2m3" in ort_adapter.capabilities.dtypes:
        pytest.skip("this onnxruntime knows float6e2m3")
    assert ort_adapter.capabilities.reason_unsupported(None, None, "float6e2m3") == (
        "dtype float6e2m3 not supported by the backend"
    )
    path = _model(tmp_path, "Identity", [TensorProto.FLOAT6E2M3], TensorProto.FLOAT6E2M3, opset=26, ir=13)
    exc = _load_failure(ort_adapter, path)
    assert "Invalid tensor data type" in str(exc)
    assert ort_adapter.classify(exc, "load") == "unsupported"


def test_operator_of_a_domain_it_lacks_is_unsupported(ort_adapter, tmp_path):
    path = _model(
        tmp_path, "FlexAttention", [TensorProto.FLOAT] * 3, TensorProto.FLOAT, opset=24,
        domain="ai.onnx.preview", extra_opsets=[("ai.onnx.preview", 1)], shape=[1, 1, 2, 4],
    )
    exc = _load_failure(ort_adapter, path)
    assert "FlexAttention(-1) is not a registered function/op" in str(exc)
    assert ort_adapter.classify(exc, "load") == "unsupported"


# --- wrong: error ----------------------------------------------------------------------------


def test_type_the_spec_forbids_is_error(ort_adapter, tmp_path):
    exc = _load_failure(ort_adapter, _model(tmp_path, "Neg", [TensorProto.UINT32], TensorProto.UINT32, opset=13))
    assert "INVALID_GRAPH" in str(exc)
    assert ort_adapter.classify(exc, "load") == "error"


def test_operator_nobody_defines_is_error(ort_adapter, tmp_path):
    exc = _load_failure(ort_adapter, _model(tmp_path, "NoSuchOp", [TensorProto.FLOAT], TensorProto.FLOAT))
    assert "No Op registered for NoSuchOp" in str(exc)
    assert ort_adapter.classify(exc, "load") == "error"


def test_runtime_failures_are_errors(ort_adapter, tmp_path):
    prepared = ort_adapter.prepare(_model(tmp_path, "Reshape", [TensorProto.FLOAT, TensorProto.INT64], TensorProto.FLOAT))
    with pytest.raises(Exception) as info:
        ort_adapter.run(prepared, [np.zeros((2, 3), np.float32), np.array([4, 4], np.int64)])
    assert "The input tensor cannot be reshaped to the requested shape" in str(info.value)
    assert ort_adapter.classify(info.value, "run") == "error"

    with pytest.raises(Exception) as info:
        ort_adapter.run(prepared, [np.zeros((2, 3), np.float64), np.array([6], np.int64)])
    assert "INVALID_ARGUMENT : Unexpected input data type" in str(info.value)
    assert ort_adapter.classify(info.value, "run") == "error"


# --- dtypes survive the trip -----------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        np.array([[1.5, -2.0, 3.25], [0.0, -0.0, np.inf]], dtype=ml_dtypes.bfloat16),
        np.array([0, 1, 2**32 - 1], dtype=np.uint32),
        np.array([0, 2**63, 2**64 - 1], dtype=np.uint64),
        np.array([1.5, -448.0], dtype=ml_dtypes.float8_e4m3fn),
        np.array(["a", "bé"], dtype=object),
        np.array(True),
    ],
    ids=lambda v: str(v.dtype),
)
def test_identity_round_trip_keeps_dtype_and_bits(ort_adapter, tmp_path, values):
    elem = helper.np_dtype_to_tensor_dtype(values.dtype)
    prepared = ort_adapter.prepare(_model(tmp_path, "Identity", [elem], elem))
    (out,) = ort_adapter.run(prepared, [values])
    assert out.dtype == values.dtype and out.shape == values.shape
    assert out.tolist() == values.tolist()


def test_bfloat16_is_computed_not_just_copied(ort_adapter, tmp_path):
    prepared = ort_adapter.prepare(_model(tmp_path, "Cast", [TensorProto.FLOAT], TensorProto.BFLOAT16, to=TensorProto.BFLOAT16))
    (out,) = ort_adapter.run(prepared, [np.array([1.0, 3.14159, -1e30], np.float32)])
    assert out.dtype == ml_dtypes.bfloat16
    assert out.tolist() == np.array([1.0, 3.14159, -1e30], np.float32).astype(ml_dtypes.bfloat16).tolist()


@pytest.mark.parametrize("dtype", [ml_dtypes.int4, ml_dtypes.uint4])
def test_four_bit_values_are_packed_and_unpacked(ort_adapter, tmp_path, dtype):
    values = np.array([1, 2, 3, 7, 0], dtype=dtype) if dtype == ml_dtypes.uint4 else np.array([1, -2, 3, 7, -8], dtype=dtype)
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    to_4bit = ort_adapter.prepare(_model(tmp_path, "Cast", [TensorProto.FLOAT], elem, to=elem))
    (packed,) = ort_adapter.run(to_4bit, [values.astype(np.float32)])
    assert packed.dtype == dtype and packed.tolist() == values.tolist()
    back = ort_adapter.prepare(_model(tmp_path, "Cast", [elem], TensorProto.FLOAT, to=TensorProto.FLOAT, opset=21))
    (floats,) = ort_adapter.run(back, [values])
    assert floats.tolist() == values.astype(np.float32).tolist()


def test_wrong_expectation_fails(ort_adapter, tmp_path):
    prepared = ort_adapter.prepare(_model(tmp_path, "Abs", [TensorProto.FLOAT], TensorProto.FLOAT, opset=13))
    outputs = ort_adapter.run(prepared, [np.array([-1.0, 2.0], np.float32)])
    assert compare_outputs([np.array([1.0, 2.0], np.float32)], outputs).status == "pass"
    result = compare_outputs([np.array([-1.0, 2.0], np.float32)], outputs)
    assert result.status == "fail"
    assert result.detail == "output 0: 1 of 2 values differ; max abs err 2 at index (0,): got 1.0 expected -1.0; max ulp 2130706432"


def test_options(tmp_path):
    adapter = registry.load("onnxruntime", {"provider": "cpu", "intra_op_num_threads": "2", "graph_optimization_level": "disable"})
    assert adapter.providers == ["CPUExecutionProvider"]
    with pytest.raises(registry.BackendNotFound, match="provider NoSuchExecutionProvider is not available"):
        registry.load("onnxruntime", {"provider": "NoSuchExecutionProvider"})
    with pytest.raises(registry.BackendNotFound, match="unknown option 'threads'"):
        registry.load("onnxruntime", {"threads": "2"})


def test_io_binding_path_for_device_providers_keeps_bfloat16(tmp_path):
    # Non-CPU providers fetch through IO binding to host memory; exercise that path on the CPU.
    adapter = registry.load("onnxruntime", {})
    adapter.cpu_only = adapter.direct = False
    prepared = adapter.prepare(_model(tmp_path, "Identity", [TensorProto.BFLOAT16], TensorProto.BFLOAT16))
    values = np.array([1.5, -2.0, 3.25], ml_dtypes.bfloat16)
    (out,) = adapter.run(prepared, [values])
    assert out.dtype == ml_dtypes.bfloat16 and out.tolist() == values.tolist()


def _outcome(adapter, path, inputs, from_bytes=False):
    """What the adapter makes of a model: its outputs (dtype, shape, values), or the error it raised;
    `from_bytes`: the model loaded from its bytes (an error's words less the path, either way)."""
    try:
        if from_bytes:
            with open(path, "rb") as f:
                prepared = adapter.prepare_checked(path, f.read())
        else:
            prepared = adapter.prepare(path)
        outputs = adapter.run(prepared, inputs)
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return type(e), _without_path(str(e), path)
    return [(o.dtype, o.shape, o.tolist()) if hasattr(o, "dtype") else (type(o), repr(o)) for o in outputs]


def test_the_binding_path_does_what_the_wrapper_does(tmp_path):
    """On the CPU the adapter makes its sessions through the binding ort.InferenceSession wraps: the
    same outputs, dtypes and errors (type and words) as the wrapper, over loads that fail, runs
    that fail, and every kind of feed (OrtValues, bfloat16 and 4-bit bits, strings)."""
    direct = registry.load("onnxruntime", {})
    assert direct.direct, "the binding ort.InferenceSession wraps was not found"
    wrapper = registry.load("onnxruntime", {})
    wrapper.direct = False
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    ir_max = direct.capabilities.ir[1]
    cases = [
        (_model(tmp_path, "ReduceMin", [TensorProto.BFLOAT16], TensorProto.BFLOAT16, opset=20), []),
        (_model(tmp_path, "Neg", [TensorProto.UINT32], TensorProto.UINT32, opset=13), []),
        (_model(tmp_path, "NoSuchOp", [f32], f32), []),
        (_model(tmp_path, "Identity", [f32], f32, opset=13, ir=ir_max + 1), []),
        (_model(tmp_path, "Reshape", [f32, i64], f32), [np.zeros((2, 3), np.float32), np.array([4, 4], np.int64)]),
        (_model(tmp_path, "Reshape", [f32, i64], f32), [np.zeros((2, 3), np.float64), np.array([6], np.int64)]),
        (_model(tmp_path, "Reshape", [f32, i64], f32), [np.arange(6, dtype=np.float32), np.array([3, 2], np.int64)]),
        (_model(tmp_path, "Identity", [TensorProto.BFLOAT16], TensorProto.BFLOAT16),
         [np.array([1.5, -2.0, np.inf], ml_dtypes.bfloat16)]),
        (_model(tmp_path, "Identity", [TensorProto.INT4], TensorProto.INT4), [np.array([1, -2, 7], ml_dtypes.int4)]),
        (_model(tmp_path, "Identity", [TensorProto.STRING], TensorProto.STRING), [np.array(["a", "bé", ""], object)]),
        (_model(tmp_path, "Abs", [f32], f32, opset=13), [np.array([-1.0, 2.0], np.float32)]),
    ]
    for path, inputs in cases:
        got = _outcome(direct, path, inputs)
        assert got == _outcome(wrapper, path, inputs), path
        # and from the bytes the checks read, as the executor loads a small model
        assert got == _outcome(direct, path, inputs, True) == _outcome(wrapper, path, inputs, True), path


def test_a_sparse_result_is_returned_as_such_and_fails_as_the_wrong_kind_of_output(ort_adapter, tmp_path):
    """Constant's sparse_value: the graph declares a dense tensor; onnxruntime hands back a SparseTensor.
    The adapter does not densify it, so the comparator says what came back."""
    values = helper.make_tensor("v", TensorProto.FLOAT, [2], [1.5, -2.0])
    idx = helper.make_tensor("i", TensorProto.INT64, [2], [1, 4])
    sparse = helper.make_sparse_tensor(values, idx, [2, 3])
    node = helper.make_node("Constant", [], ["y"], sparse_value=sparse)
    graph = helper.make_graph([node], "c", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    path = tmp_path / "sparse.onnx"
    onnx.save(model, path)
    got = ort_adapter.run(ort_adapter.prepare(str(path)), [])
    expected = np.array([[0, 1.5, 0], [0, -2.0, 0]], np.float32)
    cmp = compare_outputs([expected], got)
    assert cmp.status == "fail" and cmp.detail == "output 0 is SparseTensor, expected a float tensor of shape (2, 3)"


@pytest.mark.parametrize("type_name, op, opset", [
    ("float8e4m3fn", "Identity", 21), ("float8e5m2fnuz", "Identity", 21), ("bfloat16", "Identity", 21),
    ("string", "Identity", 21), ("bool", "Identity", 21), ("uint64", "Identity", 21),
    # onnxruntime has no Identity kernel for the packed types; Transpose moves their elements too
    ("int4", "Transpose", 25), ("uint4", "Transpose", 25), ("int2", "Transpose", 25), ("uint2", "Transpose", 25),
])
def test_every_type_onnxruntime_holds_goes_in_and_out_with_its_bits(ort_adapter, tmp_path, type_name, op, opset):
    """The corpus's own test data for the type (odd element count, specials included) through a node
    that only moves elements: what comes back is exactly what went in, in the declared type."""
    from onnx_conformance.generators import values
    from onnx_conformance.harness.dtypes import elem_type_of

    elem = elem_type_of(type_name)
    x = values.sample(type_name, (3, 5), np.random.default_rng(7))
    path = _model(tmp_path, op, [elem], elem, opset=opset, ir=10 if opset < 23 else 11, shape=[3, 5])
    (got,) = ort_adapter.run(ort_adapter.prepare(path), [x])
    want = x if op == "Identity" else x.T
    if type_name == "string":
        assert [str(v) for v in got.reshape(-1)] == list(want.reshape(-1))
    else:
        assert got.dtype == want.dtype and got.tobytes() == np.ascontiguousarray(want).tobytes()
