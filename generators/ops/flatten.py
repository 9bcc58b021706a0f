"""Flatten: the input as a 2-D matrix, dimensions before `axis` making the rows and the rest the columns."""

import math

from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import data

OPERATOR = Operator("Flatten")


def flatten_case(v, t, rng, shape, axis=None):
    if axis is not None and axis < 0 and v.since_version < 11:
        return NotApplicable(f"Flatten-{v.since_version}: \"The value for axis must be in the range [0, R], "
                             "where R is the rank of the input tensor.\" (negative axes from version 11)")
    x = data(t, shape, rng)
    k = 1 if axis is None else axis  # 1 is the default
    if k < 0:
        k += len(shape)
    y = x.reshape(math.prod(shape[:k]), math.prod(shape[k:]))
    return Case({"input": x}, {"output": y}, {} if axis is None else {"axis": axis})


def documented(shape, axis):
    return lambda v, t, rng: flatten_case(v, t, rng, shape, axis)


# The documented examples: a [2, 3, 4, 5] tensor at each axis, then each negative axis.
for _axis in range(4):
    OPERATOR.example(documented((2, 3, 4, 5), _axis), name=f"axis{_axis}")
OPERATOR.example(documented((5, 4, 3, 2), None), name="default_axis")
for _axis in range(-4, 0):
    OPERATOR.example(documented((2, 3, 4, 5), _axis), name=f"negative_axis{-_axis}")


@OPERATOR.example
def axis_rank(v, t, rng):
    """axis = rank, the top of the range [0, R]: one column; an odd element count."""
    return flatten_case(v, t, rng, (3, 1, 5), 3)


@OPERATOR.example
def zero_dim(v, t, rng):
    return flatten_case(v, t, rng, (2, 0, 3), 2)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    'cannot reshape array of size 0',
    "the evaluator reshapes to (prod, -1), which numpy cannot do for an empty array; the spec's formula gives the shape",
)
