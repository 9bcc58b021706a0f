"""Body graphs for If, Loop, Scan and SequenceMap: value_info from the spec's type strings, and nodes that make a value."""

from __future__ import annotations

import re

import numpy as np
import onnx.defs
from onnx import helper, numpy_helper

from onnx_conformance.generators.case import Opt, Seq, type_of
from onnx_conformance.generators.values import value
from onnx_conformance.harness.dtypes import elem_type_of


def type_proto(type_name: str, shape=None):
    """'float', 'tensor(float)', 'seq(tensor(int8))', 'optional(seq(tensor(bool)))' -> TypeProto; tensor
    shapes as given (None: unknown)."""
    m = re.fullmatch(r"optional\((.*)\)", type_name)
    if m:
        return helper.make_optional_type_proto(type_proto(m.group(1), shape))
    m = re.fullmatch(r"seq\((.*)\)", type_name)
    if m:
        return helper.make_sequence_type_proto(type_proto(m.group(1), None))
    elem = type_name[len("tensor("):-1] if type_name.startswith("tensor(") else type_name
    return helper.make_tensor_type_proto(elem_type_of(elem), shape)


def info(name: str, type_name: str, shape=None):
    return helper.make_value_info(name, type_proto(type_name, shape))


def graph(name: str, nodes: list, inputs: list, outputs: list, initializers: list = ()):
    """inputs/outputs: (name, type string) or (name, type string, shape)."""
    return helper.make_graph(nodes, name, [info(*i) for i in inputs], [info(*o) for o in outputs],
                             initializer=list(initializers))


def producer(name: str, x) -> list:
    """The nodes that make `name` hold `x` in a body: a tensor by Constant, a sequence by
    SequenceConstruct (SequenceEmpty when empty), an optional by Optional."""
    if isinstance(x, Opt):
        if x.value is None:
            inner = x.type if "(" in x.type else f"tensor({x.type})"
            return [helper.make_node("Optional", [], [name], type=type_proto(inner))]
        return producer(f"{name}_content", x.value) + [helper.make_node("Optional", [f"{name}_content"], [name])]
    if isinstance(x, Seq):
        if not x.items:
            return [helper.make_node("SequenceEmpty", [], [name], dtype=elem_type_of(x.elem))]
        nodes = []
        for k, item in enumerate(x.items):
            nodes += producer(f"{name}_{k}", item)
        return nodes + [helper.make_node("SequenceConstruct", [f"{name}_{k}" for k in range(len(x.items))], [name])]
    return [helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(x)))]


def unmakeable(value, opset: int) -> str | None:
    """Why a body of opset `opset` cannot make `value` itself (its maker's type constraint at that opset
    omits the type), or None. Such a value could only come from the enclosing graph."""
    if isinstance(value, Opt):
        maker, param, type_name = "Optional", "V", value.type if "(" in value.type else f"tensor({value.type})"
        inner = None if value.value is None else value.value
    elif isinstance(value, Seq):
        maker, param, type_name = ("SequenceConstruct", "T", f"tensor({value.elem})") if value.items else \
            ("SequenceEmpty", "S", f"seq(tensor({value.elem}))")
        inner = value.items[0] if value.items else None
    else:
        maker, param, type_name = "Constant", "T", f"tensor({type_of(value)})"
        inner = None
    schema = onnx.defs.get_schema(maker, opset)
    allowed = next(c for c in schema.type_constraints if c.type_param_str == param)
    if type_name not in allowed.allowed_type_strs:
        return (f"at opset {opset} no operator makes a {type_of(value)} inside a body: {maker}-{schema.since_version}'s "
                f"{param} ('{allowed.description}') omits {type_name}; it could only come from the enclosing graph")
    return unmakeable(inner, opset) if inner is not None else None


def empty(type_name: str, rng) -> object:
    """The empty value of a type: an empty optional, an empty sequence, a tensor of shape [0, 3]."""
    m = re.fullmatch(r"optional\((.*)\)", type_name)
    if m:
        inner = m.group(1)
        return Opt(None, inner[len("tensor("):-1] if inner.startswith("tensor(") else inner)
    m = re.fullmatch(r"seq\(tensor\((.*)\)\)", type_name)
    if m:
        return Seq([], m.group(1))
    return value(type_name, (0, 3), rng)
