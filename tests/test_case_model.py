"""The case model: type bindings, names, test data for every element type, values that are not tensors."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import helper

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Case, Operator, Opt, Seq, case_name, snake
from onnx_conformance.generators.emit import build_model
from onnx_conformance.generators.protos import ir_version_for, value_proto
from onnx_conformance.generators.spec import versions
from onnx_conformance.harness.corpus import read_value


def _version(op: str, since: int):
    return next(v for v in versions(op) if v.since_version == since)


def test_every_type_of_every_parameter_is_bound_once_with_the_others_at_their_defaults():
    v = _version("Gather", 13)
    bindings = Operator("Gather").bindings(v)
    cells = {(p, t) for b in bindings for p, t in b.items()}
    assert cells == {(p, t) for p, allowed in v.type_params.items() for t in allowed}
    assert len(bindings) == len(v.type_params["T"]) + 1  # every T with Tind=int64, then Tind=int32
    odd = [b for b in bindings if b.suffix]
    assert [(dict(b), b.suffix) for b in odd] == [({"T": "float", "Tind": "int32"}, ("int32",))]
    assert case_name("Gather", "0", 13, odd[0].dtype, odd[0].suffix) == "test_gather_0_opset13_float_int32"


def test_a_binding_names_its_input_where_two_parameters_allow_the_same_type():
    v = _version("OneHot", 11)
    names = [case_name("OneHot", "x", 11, b.dtype, b.suffix) for b in Operator("OneHot", primary="T3").bindings(v)]
    assert "test_one_hot_x_opset11_float_indices_uint8" in names and "test_one_hot_x_opset11_float_depth_uint8" in names
    assert len(names) == len(set(names))


def test_snake_case_of_operator_names():
    assert [snake(n) for n in ("ReduceLogSumExp", "ReduceL1", "GatherND", "Col2Im", "DepthToSpace")] == [
        "reduce_log_sum_exp", "reduce_l1", "gather_nd", "col2im", "depth_to_space"]


def test_an_operator_refuses_two_examples_of_one_name():
    op = Operator("Identity")
    op.example(lambda v, t, rng: None, name="a")
    with pytest.raises(ValueError, match="two examples named a"):
        op.example(lambda v, t, rng: None, name="a")


def test_opsets_two_to_four_get_ir_version_3():
    assert [ir_version_for([helper.make_opsetid("", o)]) for o in (1, 2, 3, 4, 5, 9)] == [3, 3, 3, 3, 3, 4]


EVERY_TENSOR_TYPE = [t for t in _version("Identity", 25).type_params["V"] if "(" not in t]


@pytest.mark.parametrize("type_name", EVERY_TENSOR_TYPE)
def test_test_data_of_every_element_type_round_trips_and_has_distinct_values(type_name, tmp_path):
    x = values.sample(type_name, (3, 5), np.random.default_rng(0))
    path = tmp_path / "x.pb"
    path.write_bytes(value_proto("x", x).SerializeToString())
    back, name = read_value(str(path))
    assert name == type_name and back.shape == (3, 5)
    if type_name == "string":
        assert [v.decode() if isinstance(v, bytes) else v for v in back.reshape(-1)] == list(x.reshape(-1))
        assert {"", "é"} <= set(x.reshape(-1))
        return
    assert back.tobytes() == x.tobytes()  # every bit survives, NaN payloads and 4-bit packing included
    distinct = len({bytes(v) for v in np.ascontiguousarray(x.reshape(-1)).view(np.uint8).reshape(15, -1)})
    assert distinct >= min(4 if type_name == "uint2" or type_name == "int2" else 2 if type_name == "bool" else 8, 15)


@pytest.mark.parametrize("type_name", ["float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz",
                                       "float16", "bfloat16", "float", "double"])
def test_float_data_carries_nan_and_the_type_s_edges(type_name):
    x = values.sample(type_name, (5, 7), np.random.default_rng(1)).astype(np.float64).reshape(-1)
    assert np.isnan(x).any()
    fmax = float(ml_dtypes.finfo(values.numpy_of(type_name)).max)
    assert np.any(np.abs(x) == fmax)


def test_small_float_specials_are_every_nan_encoding_first():
    special, ordinary = values._small_float_encodings("float8e5m2")
    codes = {int(np.array(c).view(np.uint8)) for c in special}
    assert {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF, 0x7C, 0xFC, 0x80} <= codes  # NaNs, ±inf, -0.0
    assert len(special) + len(ordinary) == 256


def test_sequences_and_optionals_are_written_as_onnx_loader_reads_them(tmp_path):
    seq = Seq([np.arange(3, dtype=np.int8), np.zeros((0,), np.int8)], "int8")
    for value, type_proto, expect in [
        (seq, helper.make_sequence_type_proto(helper.make_tensor_type_proto(onnx.TensorProto.INT8, None)), list),
        (Seq([], "float"), helper.make_sequence_type_proto(helper.make_tensor_type_proto(1, None)), list),
        (Opt(None, "float"), helper.make_optional_type_proto(helper.make_tensor_type_proto(1, None)), type(None)),
        (Opt(seq, "seq(tensor(int8))"), helper.make_optional_type_proto(
            helper.make_sequence_type_proto(helper.make_tensor_type_proto(onnx.TensorProto.INT8, None))), list),
    ]:
        path = tmp_path / "v.pb"
        path.write_bytes(value_proto("v", value).SerializeToString())
        back, _ = read_value(str(path), type_proto)
        assert isinstance(back, expect)


def test_a_constant_input_is_an_initializer_and_not_test_data():
    from onnx_conformance.generators.case import Const

    op = Operator("Reshape")
    v = _version("Reshape", 21)
    x = np.arange(6, dtype=np.float32)
    case = Case({"data": x, "shape": Const(np.array([2, 3], np.int64))}, {"reshaped": x.reshape(2, 3)})
    model, feeds = build_model(op, v, 21, case, "t")
    assert [i.name for i in model.graph.input] == ["data"] and [t.name for t in model.graph.initializer] == ["shape"]
    assert [n for n, _ in feeds] == ["data"]
    onnx.checker.check_model(model, full_check=True)
