"""Unsqueeze: the input with size-1 dimensions inserted where `axes` (attribute to version 11, input from 13) names them in the output."""

from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.shape_family import ints_argument

OPERATOR = Operator("Unsqueeze")


def unsqueeze_case(v, t, rng, shape, axes):
    if min(axes) < 0 and v.since_version < 11:
        return NotApplicable("Unsqueeze-1: axes is a \"List of non-negative integers, indicate the dimensions "
                             "to be inserted\" (negative axes from version 11)")
    x = data(t, shape, rng)
    rank = len(shape) + len(axes)
    new = {a % rank for a in axes}
    rest = iter(shape)
    inputs, attrs = {"data": x}, {}
    ints_argument(v, "axes", axes, inputs, attrs)
    return Case(inputs, {"expanded": x.reshape([1 if i in new else next(rest) for i in range(rank)])}, attrs)


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
def rank0(v, t, rng):
    return unsqueeze_case(v, t, rng, (), [0, 1])


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    '^unsorted_axes .*AxisError',
    "the evaluator's version-11 code applies the axes one at a time in the given order; the spec says their order does not matter",
)
