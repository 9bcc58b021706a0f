"""ONNX protos of the case model's values and of whole cases: a value's TypeProto and ValueInfo, its
TensorProto, SequenceProto, OptionalProto or MapProto file, the plain form the comparator and onnx's
evaluator take, the lowest IR version that knows a model's opsets, and a built case's files. What
emit.py (single nodes), graphs.py (patterns and models), expanded.py and the CLIs share."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from onnx_conformance.generators.case import Map, Opt, Seq
from onnx_conformance.harness.dtypes import elem_type_of, numpy_of


@dataclass
class Built:
    """One case, in memory: the model, its feeds and (for expect-output) its expected outputs."""

    name: str
    meta: dict
    model: onnx.ModelProto
    inputs: list[tuple[str, Any]]
    outputs: list[tuple[str, Any]] | None
    output_types: list[str]  # each expected output's element type, as the comparator names it


def value_info(name: str, type_name: str, value: Any = None, shape=None) -> onnx.ValueInfoProto:
    """A graph input or output: the value's type, and the concrete shape of a tensor value."""
    return helper.make_value_info(name, type_proto(type_name, value, shape))


def type_proto(type_name: str, value: Any = None, shape=None) -> onnx.TypeProto:
    if type_name.startswith("optional("):
        inner = type_name[len("optional("):-1]
        content = value.value if isinstance(value, Opt) else None
        return helper.make_optional_type_proto(type_proto(inner, content))
    if type_name.startswith("map("):
        key, val = map_types(type_name)
        return helper.make_map_type_proto(elem_type_of(key), type_proto(val))
    if type_name.startswith("seq(map("):
        return helper.make_sequence_type_proto(type_proto(type_name[len("seq("):-1]))
    if type_name.startswith("seq("):
        inner = type_name[len("seq("):-1]
        # The tensors of a sequence differ in shape: declare their rank only where they agree.
        ranks = {np.ndim(x) for x in value.items} if isinstance(value, Seq) else set()
        rank_shape = [None] * ranks.pop() if len(ranks) == 1 else None
        return helper.make_sequence_type_proto(type_proto(inner, None, rank_shape))
    elem = type_name[len("tensor("):-1] if type_name.startswith("tensor(") else type_name
    if shape is None and value is not None:
        shape = np.shape(value)
    return helper.make_tensor_type_proto(elem_type_of(elem), shape)


def map_types(type_name: str) -> tuple[str, str]:
    """'map(int64, string)' -> ('int64', 'string')."""
    key, val = type_name[len("map("):-1].split(",", 1)
    return key.strip(), val.strip()


def map_proto(name: str, value: Map) -> onnx.MapProto:
    """A map as onnx's loader reads it (numpy_helper.to_dict): the keys, and a sequence of one
    0-d tensor per value, in the keys' order."""
    proto = onnx.MapProto(name=name, key_type=elem_type_of(value.key))
    if value.key == "string":
        proto.string_keys.extend(str(k).encode() for k in value.items)
    else:
        proto.keys.extend(int(k) for k in value.items)
    seq = onnx.SequenceProto(elem_type=onnx.SequenceProto.TENSOR)
    dt = object if value.value == "string" else numpy_of(value.value)
    seq.tensor_values.extend(numpy_helper.from_array(np.array(x, dtype=dt)) for x in value.items.values())
    proto.values.CopyFrom(seq)
    return proto


def value_proto(name: str, value: Any):
    """A value as onnx's loader reads it: TensorProto, SequenceProto, OptionalProto or MapProto."""
    if isinstance(value, Map):
        return map_proto(name, value)
    if isinstance(value, Seq) and value.elem.startswith("map("):
        proto = onnx.SequenceProto(name=name, elem_type=onnx.SequenceProto.MAP)
        proto.map_values.extend(map_proto("", m) for m in value.items)
        return proto
    if isinstance(value, Opt):
        proto = onnx.OptionalProto(name=name)
        if value.value is None:
            proto.elem_type = onnx.OptionalProto.UNDEFINED
        elif isinstance(value.value, Seq):
            proto.elem_type = onnx.OptionalProto.SEQUENCE
            proto.sequence_value.CopyFrom(value_proto("", value.value))
        else:
            proto.elem_type = onnx.OptionalProto.TENSOR
            proto.tensor_value.CopyFrom(value_proto("", value.value))
        return proto
    if isinstance(value, Seq):
        proto = onnx.SequenceProto(name=name, elem_type=onnx.SequenceProto.TENSOR)
        proto.tensor_values.extend(value_proto("", x) for x in value.items)
        return proto
    return numpy_helper.from_array(np.asarray(value), name)


def plain(value: Any) -> Any:
    """A value as the comparator and the reference evaluator take it: arrays, lists, None."""
    if isinstance(value, Opt):
        return None if value.value is None else plain(value.value)
    if isinstance(value, Map):
        return plain_map(value)
    if isinstance(value, Seq):
        return [plain(x) if isinstance(x, Map) else np.asarray(x) for x in value.items]
    return np.asarray(value)


def plain_map(value: Map) -> dict:
    """A map as a dict: keys as Python int or str, values as 0-d arrays of the value type (how
    harness/corpus.py reads a MapProto back)."""
    dt = object if value.value == "string" else numpy_of(value.value)
    return {(str(k) if value.key == "string" else int(k)): np.array(x, dtype=dt) for k, x in value.items.items()}


def ir_version_for(opsets: list) -> int:
    """The lowest IR version that knows every opset imported. onnx.helper's table skips opsets
    2 to 4 (released under IR 3 between the opsets it lists): take the next opset it lists."""
    return _ir_version(tuple((o.domain or "ai.onnx", o.version) for o in opsets))


@lru_cache(maxsize=None)
def _ir_version(opsets: tuple[tuple[str, int], ...]) -> int:
    table = helper.OP_SET_ID_VERSION_MAP
    ir = 1
    for domain, version in opsets:
        known = sorted(v for d, v in table if d == domain and v >= version)
        if not known:
            raise ValueError(f"no IR version knows opset {version} of {domain!r}")
        ir = max(ir, table[(domain, known[0])])
    return ir


def files_of(b: Built) -> dict[str, bytes]:
    files = {"model.onnx": b.model.SerializeToString()}
    for k, (n, value) in enumerate(b.inputs):
        files[f"test_data_set_0/input_{k}.pb"] = value_proto(n, value).SerializeToString()
    for k, (n, value) in enumerate(b.outputs or []):
        files[f"test_data_set_0/output_{k}.pb"] = value_proto(n, value).SerializeToString()
    return files
