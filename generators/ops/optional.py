"""Optional: an optional holding the input, or an empty optional of the `type` attribute."""

from onnx_conformance.generators import subgraph
from onnx_conformance.generators.case import NotApplicable, Operator, Opt, type_of
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.generators.values import value

OPERATOR = Operator("Optional", primary="V", defaults={"O": lambda v, b: f"optional({spelled(b['V'])})"})


@OPERATOR.semantics
def optional(v, attrs, inputs):
    """An optional holding the input; with no input, an empty optional of the `type` attribute's type."""
    x = inputs.get("input")
    if x is not None:
        return {"output": Opt(x, type_of(x))}
    if "type" not in attrs:
        raise Rejected(" ".join(v.schema.attributes["type"].description.split()))
    from onnx_conformance.generators.exact import type_name

    name = type_name(attrs["type"])
    return {"output": Opt(None, name[len("tensor("):-1] if name.startswith("tensor(") else name)}


def spelled(type_name):
    return type_name if "(" in type_name else f"tensor({type_name})"


def unpaired(t):
    if t["O"] != f"optional({spelled(t['V'])})":
        return NotApplicable("O is the optional of V: the output holds the input's type")
    return None


@OPERATOR.example
def full(v, t, rng):
    x = value(t["V"], (2, 3), rng)
    return unpaired(t) or OPERATOR.expect(v, {"input": x})


@OPERATOR.example
def zero_elements(v, t, rng):
    """A (0, 3) tensor (or a sequence whose first tensor is (0, 3)) as input: 'a non-empty value containing the
    input element', not an empty optional."""
    x = value(t["V"], (0, 3), rng)
    return unpaired(t) or OPERATOR.expect(v, {"input": x})


@OPERATOR.example
def empty(v, t, rng):
    """No input: 'an empty optional-type ... of the given type' in the `type` attribute."""
    return unpaired(t) or OPERATOR.expect(v, {"input": None}, {"type": subgraph.type_proto(t["V"])})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    '.',
    "the evaluator's Optional returns its input wrapped in a one-element list ([None] when empty), not the optional's value",
)
