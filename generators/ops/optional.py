"""Optional: an optional holding the input, or an empty optional of the `type` attribute."""

from onnx_conformance.generators import subgraph
from onnx_conformance.generators.case import Case, NotApplicable, Operator, Opt
from onnx_conformance.generators.values import value

OPERATOR = Operator("Optional", primary="V", defaults={"O": lambda v, b: f"optional({spelled(b['V'])})"})


def spelled(type_name):
    return type_name if "(" in type_name else f"tensor({type_name})"


def unpaired(t):
    if t["O"] != f"optional({spelled(t['V'])})":
        return NotApplicable("O is the optional of V: the output holds the input's type")
    return None


@OPERATOR.example
def full(v, t, rng):
    x = value(t["V"], (2, 3), rng)
    return unpaired(t) or Case({"input": x}, {"output": Opt(x, t["V"])})


@OPERATOR.example
def empty(v, t, rng):
    """No input: 'an empty optional-type ... of the given type' in the `type` attribute."""
    return unpaired(t) or Case({"input": None}, {"output": Opt(None, t["V"])}, {"type": subgraph.type_proto(t["V"])})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    '.',
    "the evaluator's Optional returns its input wrapped in a one-element list ([None] when empty), not the optional's value",
)
