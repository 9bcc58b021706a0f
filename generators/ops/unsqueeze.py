"""Unsqueeze: the input with size-1 dimensions inserted where `axes` (attribute to version 11, input from 13) names them in the output."""

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import Rejected, Undefined, rule
from onnx_conformance.generators.shape_family import ints_argument, ints_given

OPERATOR = Operator("Unsqueeze")


@OPERATOR.semantics
def unsqueeze(v, attrs, inputs):
    """The input with a dimension 1 at each of `axes`, 'as seen in the output tensor' of rank r + len(axes):
    non-negative in version 1; from version 11 in [-output_rank, output_rank - 1], without duplicates."""
    x = inputs["data"]
    axes = ints_given(v, "axes", attrs, inputs) or []
    rank = x.ndim + len(axes)
    if v.since_version >= 11:
        if any(not -rank <= a < rank for a in axes):
            raise Rejected(v.sentence(r"Each value in `axes` should be within"))
        if len({a % rank for a in axes}) != len(axes):
            raise Rejected(v.sentence(r"It is an error if it contains duplicates"))
    else:
        if any(not 0 <= a < rank for a in axes):
            raise Rejected(rule(v, r"List of non-negative integers"))
        if len(set(axes)) != len(axes):
            raise Undefined(f"axes {axes} name one dimension twice: Unsqueeze-1 does not say what that means")
    new = {a % rank for a in axes}
    rest = iter(x.shape)
    return {"expanded": x.reshape([1 if i in new else next(rest) for i in range(rank)])}


def unsqueeze_case(v, t, rng, shape, axes):
    if min(axes) < 0 and v.since_version < 11:
        return NotApplicable("Unsqueeze-1: axes is a \"List of non-negative integers, indicate the dimensions "
                             "to be inserted\" (negative axes from version 11)")
    inputs, attrs = {"data": data(t, shape, rng)}, {}
    ints_argument(v, "axes", axes, inputs, attrs)
    return OPERATOR.expect(v, inputs, attrs)


def one_axis(axis):
    return lambda v, t, rng: unsqueeze_case(v, t, rng, (3, 4, 5), [axis])


# The documented examples: a [3, 4, 5] tensor with one new axis at each of 0, 1, 2.
for _axis in range(3):
    OPERATOR.example(one_axis(_axis), name=f"axis_{_axis}")


@OPERATOR.example
def two_axes(v, t, rng):
    return unsqueeze_case(v, t, rng, (3, 4, 5), [1, 4])


@OPERATOR.example
def three_axes(v, t, rng):
    return unsqueeze_case(v, t, rng, (3, 4, 5), [2, 4, 5])


@OPERATOR.example
def unsorted_axes(v, t, rng):
    if v.since_version < 11:
        return NotApplicable("Unsqueeze-1 does not say what unsorted axes mean; \"The order of values in `axes` "
                             "does not matter and can come in any order.\" is said from version 11")
    return unsqueeze_case(v, t, rng, (3, 4, 5), [5, 4, 2])


@OPERATOR.example
def negative_axes(v, t, rng):
    return unsqueeze_case(v, t, rng, (1, 3, 1, 5), [-2])


@OPERATOR.example
def negative_axis_rank4(v, t, rng):
    """-2 into 2x3x4x5 counts from the output's rank (5): [2, 3, 4, 1, 5]; counted from the input's rank (4)
    it would be [2, 3, 1, 4, 5]. In `negative_axes`' 1x3x1x5 both readings give the same shape."""
    return unsqueeze_case(v, t, rng, (2, 3, 4, 5), [-2])


@OPERATOR.example
def rank0(v, t, rng):
    return unsqueeze_case(v, t, rng, (), [0, 1])


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    '^unsorted_axes .*AxisError',
    "the evaluator's version-11 code applies the axes one at a time in the given order; the spec says their order does not matter",
)
