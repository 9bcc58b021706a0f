"""Flatten: the input as a 2-D matrix, dimensions before `axis` making the rows and the rest the columns."""

import math

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import Rejected, attr, rule

OPERATOR = Operator("Flatten")


@OPERATOR.semantics
def flatten(v, attrs, inputs):
    """Shape (d_0 X .. d_(axis-1), d_axis X .. d_n), axis (default 1) in [0, R] (from version 11 [-r, r],
    a negative axis counting from the back)."""
    x = inputs["input"]
    r = x.ndim
    axis = attr(attrs, "axis", 1)
    low = -r if v.since_version >= 11 else 0
    if not low <= axis <= r:
        raise Rejected(rule(v, r"must be in the range"))
    k = axis + r if axis < 0 else axis
    return {"output": x.reshape(math.prod(x.shape[:k]), math.prod(x.shape[k:]))}


def flatten_case(v, t, rng, shape, axis=None):
    if axis is not None and axis < 0 and v.since_version < 11:
        return NotApplicable(f"Flatten-{v.since_version}: \"The value for axis must be in the range [0, R], "
                             "where R is the rank of the input tensor.\" (negative axes from version 11)")
    return OPERATOR.expect(v, {"input": data(t, shape, rng)}, {} if axis is None else {"axis": axis})


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
