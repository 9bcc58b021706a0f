"""OptionalGetElement: the value an optional holds (from version 18, a plain tensor or sequence is its own value)."""

from onnx_conformance.generators.case import Case, NotApplicable, Operator, Opt, Seq
from onnx_conformance.generators.values import value

OPERATOR = Operator("OptionalGetElement", primary="O", defaults={"V": lambda v, b: content(b["O"])})


def content(type_name):
    """'optional(tensor(int8))' -> 'int8'; 'optional(seq(tensor(int8)))' -> 'seq(tensor(int8))'; 'int8' -> 'int8'."""
    if not type_name.startswith("optional("):
        return type_name
    inner = type_name[len("optional("):-1]
    return inner[len("tensor("):-1] if inner.startswith("tensor(") else inner


def get_case(t, x):
    if content(t["O"]) != t["V"]:
        return NotApplicable("V is the type O holds: the output is the optional's content")
    return Case({"input": x}, {"output": x.value if isinstance(x, Opt) else x})


@OPERATOR.example
def get(v, t, rng):
    return get_case(t, value(t["O"], (2, 3), rng))


@OPERATOR.example
def empty_content(v, t, rng):
    """A held tensor with a zero dimension, or a held empty sequence."""
    V = content(t["O"])
    inner = Seq([], V[len("seq(tensor("):-2]) if V.startswith("seq(") else value(V, (0, 3), rng)
    x = Opt(inner, V) if t["O"].startswith("optional(") else inner
    return get_case(t, x)
