"""Identity: the output is the input, for every tensor, sequence and optional type the version allows."""


from onnx_conformance.generators.case import NotApplicable, Operator, Opt, Seq
from onnx_conformance.generators.movement import data

OPERATOR = Operator("Identity")


@OPERATOR.semantics
def identity(v, attrs, inputs):
    """'Tensor to copy input into': the value itself, a tensor, a sequence (14 on) or an optional (16 on)."""
    return {"output": inputs["input"]}


def _case(v, x):
    return OPERATOR.expect(v, {"input": x})


@OPERATOR.example(name="identity")
def rank3(v, t, rng):
    return _case(v, data(t, (2, 3, 5), rng))


@OPERATOR.example
def rank0(v, t, rng):
    if "(" in t.dtype:
        return NotApplicable("rank-0 is an example for tensor types")
    return _case(v, data(t, (), rng))


@OPERATOR.example
def empty(v, t, rng):
    """A tensor with a zero dimension; an empty sequence; an empty optional."""
    if t.dtype.startswith("optional("):
        inner = t.dtype[len("optional("):-1]
        x = Opt(None, inner[len("tensor("):-1] if inner.startswith("tensor(") else inner)
    elif t.dtype.startswith("seq("):
        x = Seq([], t.dtype[len("seq(tensor("):-2])
    else:
        x = data(t, (2, 0, 3), rng)
    return _case(v, x)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    '^empty optional\\(.*has an unexpected type',
    'the evaluator cannot return an empty optional (None) from Identity',
)
