"""OptionalHasElement: whether the optional holds a value (from version 18: true for a plain tensor or sequence, false without input)."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator, Opt
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.generators.values import value

OPERATOR = Operator("OptionalHasElement", primary="O")


def content(type_name):
    """'optional(tensor(int8))' -> 'int8'; 'optional(seq(tensor(int8)))' -> 'seq(tensor(int8))'."""
    inner = type_name[len("optional("):-1]
    return inner[len("tensor("):-1] if inner.startswith("tensor(") else inner


@OPERATOR.semantics
def optional_has_element(v, attrs, inputs):
    """True for an optional holding a value, false for an empty one; from version 18 also true for a
    tensor or sequence, and false for no input at all ("If the input is not provided ...")."""
    x = inputs.get("input")
    if x is None:
        if v.since_version < 18:
            raise Rejected(f"OptionalHasElement-{v.since_version}'s input is required")
        return {"output": np.array(False)}
    return {"output": np.array(x.value is not None if isinstance(x, Opt) else True)}


@OPERATOR.example
def full(v, t, rng):
    """An optional holding a value, or (version 18 on) a tensor or sequence itself."""
    return OPERATOR.expect(v, {"input": value(t["O"], (2, 3), rng)})


@OPERATOR.example
def zero_elements(v, t, rng):
    """An optional holding a (0, 3) tensor (or a sequence whose first tensor is (0, 3)) holds an element: a
    tensor with no elements is still a value ('contains an element'); version 18 on, such a plain tensor too."""
    return OPERATOR.expect(v, {"input": value(t["O"], (0, 3), rng)})


@OPERATOR.example
def empty(v, t, rng):
    if not t["O"].startswith("optional("):
        return NotApplicable("a tensor or sequence input always has an element")
    return OPERATOR.expect(v, {"input": Opt(None, content(t["O"]))})


@OPERATOR.example
def no_input(v, t, rng):
    """Version 18 on: 'If the input is not provided ... the op returns false.'"""
    if v.since_version < 18:
        return NotApplicable("OptionalHasElement-15's input is required")
    if t["O"] != "optional(tensor(float))":
        return NotApplicable("without an input the model has no O: emitted once, for optional(tensor(float))")
    return OPERATOR.expect(v, {"input": None})
