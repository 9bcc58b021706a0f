"""OptionalGetElement: the value an optional holds (from version 18, a plain tensor or sequence is its own value)."""

from onnx_conformance.generators.case import NotApplicable, Operator, Opt, Seq, type_of
from onnx_conformance.generators.semantics import Rejected, Undefined
from onnx_conformance.generators.values import value

OPERATOR = Operator("OptionalGetElement", primary="O", defaults={"V": lambda v, b: content(b["O"])})


def content(type_name):
    """'optional(tensor(int8))' -> 'int8'; 'optional(seq(tensor(int8)))' -> 'seq(tensor(int8))'; 'int8' -> 'int8'."""
    if not type_name.startswith("optional("):
        return type_name
    inner = type_name[len("optional("):-1]
    return inner[len("tensor("):-1] if inner.startswith("tensor(") else inner


@OPERATOR.semantics
def optional_get_element(v, attrs, inputs):
    """The optional's content; from version 18 a tensor or sequence is returned as it is. An empty
    optional: "It is an error ... and the behavior is undefined in this case"."""
    x = inputs["input"]
    if not isinstance(x, Opt):
        if type_of(x) not in v.type_params["O"]:
            raise Rejected(f"OptionalGetElement-{v.since_version}'s input is of type O, one of "
                           f"{', '.join(v.type_params['O'])}; {type_of(x)} is not")
        return {"output": x}
    if x.value is None:
        raise Undefined(v.sentence(r"It is an error if the input"))
    return {"output": x.value}


def get_case(v, t, x):
    if content(t["O"]) != t["V"]:
        return NotApplicable("V is the type O holds: the output is the optional's content")
    return OPERATOR.expect(v, {"input": x})


@OPERATOR.example
def get(v, t, rng):
    return get_case(v, t, value(t["O"], (2, 3), rng))


@OPERATOR.example
def empty_content(v, t, rng):
    """A held tensor with a zero dimension, or a held empty sequence."""
    V = content(t["O"])
    inner = Seq([], V[len("seq(tensor("):-2]) if V.startswith("seq(") else value(V, (0, 3), rng)
    x = Opt(inner, V) if t["O"].startswith("optional(") else inner
    return get_case(v, t, x)
