"""OptionalHasElement: whether the optional holds a value (from version 18: true for a plain tensor or sequence, false without input)."""

import numpy as np

from onnx_conformance.generators.case import Case, NotApplicable, Operator, Opt
from onnx_conformance.generators.values import value

OPERATOR = Operator("OptionalHasElement", primary="O")


def content(type_name):
    """'optional(tensor(int8))' -> 'int8'; 'optional(seq(tensor(int8)))' -> 'seq(tensor(int8))'."""
    inner = type_name[len("optional("):-1]
    return inner[len("tensor("):-1] if inner.startswith("tensor(") else inner


@OPERATOR.example
def full(v, t, rng):
    """An optional holding a value, or (version 18 on) a tensor or sequence itself."""
    return Case({"input": value(t["O"], (2, 3), rng)}, {"output": np.array(True)})


@OPERATOR.example
def empty(v, t, rng):
    if not t["O"].startswith("optional("):
        return NotApplicable("a tensor or sequence input always has an element")
    return Case({"input": Opt(None, content(t["O"]))}, {"output": np.array(False)})


@OPERATOR.example
def no_input(v, t, rng):
    """Version 18 on: 'If the input is not provided ... the op returns false.'"""
    if v.since_version < 18:
        return NotApplicable("OptionalHasElement-15's input is required")
    if t["O"] != "optional(tensor(float))":
        return NotApplicable("without an input the model has no O: emitted once, for optional(tensor(float))")
    return Case({"input": None}, {"output": np.array(False)})
