"""ReverseSequence: per batch slice, the first sequence_lens[i] steps along the time axis reversed, the rest copied."""

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.movement import data, declared, indices
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, described

OPERATOR = Operator("ReverseSequence", primary="T")


def _description(v, name: str) -> str:
    """An attribute's or input's description without its '(Optional) ' prefix: the rule it states."""
    return described(v, name).removeprefix("(Optional) ")


@OPERATOR.semantics
def reverse_sequence(v, attrs, inputs):
    """'For each slice i iterating on batch axis, the operator reverses the first sequence_lens[i] elements on
    time axis, and copies elements whose index's beyond sequence_lens[i] to the output'; batch_axis 1 or 0,
    time_axis 0 or 1, input of rank >= 2, sequence_lens of shape [batch_size]."""
    x, lens = inputs["input"], np.asarray(inputs["sequence_lens"], np.int64)
    batch_axis, time_axis = attr(attrs, "batch_axis", 1), attr(attrs, "time_axis", 0)
    if batch_axis not in (0, 1):
        raise Rejected(_description(v, "batch_axis"))
    if time_axis not in (0, 1):
        raise Rejected(_description(v, "time_axis"))
    if batch_axis == time_axis:
        raise Undefined(f"batch_axis and time_axis are both {batch_axis}: the spec does not say what that means")
    if x.ndim < 2:
        raise Rejected(_description(v, "input"))
    if lens.shape != (x.shape[batch_axis],):
        raise Rejected(_description(v, "sequence_lens"))
    if lens.size and (lens.min() < 0 or lens.max() > x.shape[time_axis]):
        raise Undefined(f"sequence_lens {lens.tolist()} outside [0, {x.shape[time_axis]}]: no elements to reverse")
    y = x.copy()
    for i, n in enumerate(lens.tolist()):
        src = [slice(None)] * x.ndim
        src[batch_axis] = i
        dst = list(src)
        dst[time_axis] = slice(0, n)
        src[time_axis] = slice(n - 1, None, -1) if n else slice(0, 0)
        y[tuple(dst)] = x[tuple(src)]
    return {"Y": y}

NUMERIC = ("uint", "int", "float", "double", "bfloat16", "complex")


def documented(t, shape, rng):
    """The documented 0..15 where the type holds them, typed data elsewhere."""
    if t.dtype.startswith(NUMERIC):
        return np.arange(int(np.prod(shape))).reshape(shape).astype(t.np())
    return data(t, shape, rng)


def case(v, x, lens, batch_axis=None, time_axis=None):
    """An axis left as None is left out of the node (batch_axis 1, time_axis 0 by default)."""
    attrs = {k: a for k, a in (("batch_axis", batch_axis), ("time_axis", time_axis)) if a is not None}
    return OPERATOR.expect(v, {"input": x, "sequence_lens": indices(lens)}, attrs)


@OPERATOR.example
def time(v, t, rng):
    """The schema's Example 1: time along axis 0, batch along axis 1."""
    return case(v, documented(t, (4, 4), rng).T.copy(), [4, 3, 2, 1], batch_axis=1, time_axis=0)


@OPERATOR.example
def default_axes(v, t, rng):
    """Example 1 with both axes left out: "Must be one of 1 (default), or 0." (batch_axis) and "Must be one
    of 0 (default), or 1." (time_axis); the input is square, so swapped defaults give other values."""
    return case(v, documented(t, (4, 4), rng).T.copy(), [4, 3, 2, 1])


@OPERATOR.example
def batch(v, t, rng):
    """The schema's Example 2 as onnx's node test writes it: the first sequence has length 0."""
    return case(v, documented(t, (4, 4), rng), [0, 2, 3, 4], batch_axis=0, time_axis=1)


@OPERATOR.example
def rank3_batch_first(v, t, rng):
    """[3, 5, 3] (45 elements): lengths equal to, shorter than, and 1."""
    return case(v, data(t, (3, 5, 3), rng), [5, 3, 1], batch_axis=0, time_axis=1)


@OPERATOR.example
def rank3_time_first(v, t, rng):
    return case(v, data(t, (4, 3, 2), rng), [2, 4, 3], batch_axis=1, time_axis=0)


@OPERATOR.example
def empty_inner(v, t, rng):
    """A zero-sized trailing dimension: nothing to move, the shape stays."""
    return case(v, data(t, (3, 2, 0), rng), [3, 1], batch_axis=1, time_axis=0)


@OPERATOR.rejection
def batch_axis_2(v, t, rng):
    x = data(t, (2, 3, 2), rng)
    return OPERATOR.reject(v, {"input": x, "sequence_lens": indices([1, 2])}, {"batch_axis": 2, "time_axis": 0},
                           {"Y": declared(t.dtype, 3)})


@OPERATOR.rejection
def time_axis_2(v, t, rng):
    x = data(t, (2, 3, 2), rng)
    return OPERATOR.reject(v, {"input": x, "sequence_lens": indices([1, 2, 3])}, {"batch_axis": 1, "time_axis": 2},
                           {"Y": declared(t.dtype, 3)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    'returned outputs for an expect-error case',
    'the evaluator does not check batch_axis/time_axis against the values the schema allows (0 or 1)',
)
