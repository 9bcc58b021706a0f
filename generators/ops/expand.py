"""Expand: the input broadcast against `shape` (dimensions right-aligned, equal or one of them 1)."""

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.movement import broadcast_shape, data, indices, ints_of
from onnx_conformance.generators.semantics import Undefined

OPERATOR = Operator("Expand")


@OPERATOR.semantics
def expand(v, attrs, inputs):
    """The input broadcast with `shape`: 'Dimensions are right alignment; Two corresponding dimensions must
    have the same value, or one of them is equal to 1' (so the output may be larger than `shape`)."""
    x, shape = inputs["input"], ints_of(inputs["shape"])
    if any(d < 0 for d in shape):
        raise Undefined(f"shape {shape} has a negative dimension: the spec gives no broadcast with it")
    out = broadcast_shape([x.shape, shape], v.sentence(r"Two corresponding dimensions"))
    return {"output": np.broadcast_to(x, out).copy()}


def one_two_three(t, rng):
    """The documented [[1], [2], [3]] where the type holds 1, 2 and 3 exactly, else the type's own test data."""
    if t.dtype not in ("bool", "string"):
        x = np.array([[1], [2], [3]]).astype(t.np())
        if np.array_equal(x.astype(np.complex128), np.array([[1], [2], [3]])):
            return x
    return data(t, (3, 1), rng)


def expand_case(v, x, shape):
    return OPERATOR.expect(v, {"input": x, "shape": indices(shape)})


@OPERATOR.example
def dim_changed(v, t, rng):
    return expand_case(v, one_two_three(t, rng), [2, 1, 6])


@OPERATOR.example
def dim_unchanged(v, t, rng):
    return expand_case(v, one_two_three(t, rng), [3, 4])


@OPERATOR.example
def shape_smaller_rank(v, t, rng):
    """'It is possible that the output.shape is not equal to shape, when some dimensions in shape is equal to 1,
    or the shape.ndim < input.shape.ndim.'"""
    return expand_case(v, data(t, (2, 1, 5), rng), [3, 1])


@OPERATOR.example
def largest_rank(v, t, rng):
    """A rank-8 result from a rank-3 input with an odd element count."""
    return expand_case(v, data(t, (3, 1, 5), rng), [2, 1, 1, 1, 1, 1, 4, 1])


@OPERATOR.example
def rank0(v, t, rng):
    return expand_case(v, data(t, (), rng), [3])


@OPERATOR.example
def zero_dim(v, t, rng):
    return expand_case(v, data(t, (1, 3), rng), [2, 0, 1])


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    'complex\\d+: .*nan',
    'the evaluator computes data * ones, turning a complex infinity into NaN; Expand copies elements',
)
