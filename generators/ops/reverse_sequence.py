"""ReverseSequence: per batch slice, the first sequence_lens[i] steps along the time axis reversed, the rest copied."""

import numpy as np

from onnx_conformance.generators.case import Case, Operator
from onnx_conformance.generators.movement import data, declared, indices

OPERATOR = Operator("ReverseSequence", primary="T")

NUMERIC = ("uint", "int", "float", "double", "bfloat16", "complex")


def documented(t, shape, rng):
    """The documented 0..15 where the type holds them, typed data elsewhere."""
    if t.dtype.startswith(NUMERIC):
        return np.arange(int(np.prod(shape))).reshape(shape).astype(t.np())
    return data(t, shape, rng)


def case(x, lens, batch_axis, time_axis):
    y = x.copy()
    for i, n in enumerate(lens):
        src = [slice(None)] * x.ndim
        src[batch_axis] = i
        dst = list(src)
        dst[time_axis] = slice(0, n)
        src[time_axis] = slice(n - 1, None, -1) if n else slice(0, 0)
        y[tuple(dst)] = x[tuple(src)]
    return Case({"input": x, "sequence_lens": indices(lens)}, {"Y": y},
                {"batch_axis": batch_axis, "time_axis": time_axis})


@OPERATOR.example
def time(v, t, rng):
    """The schema's Example 1: time along axis 0, batch along axis 1."""
    return case(documented(t, (4, 4), rng).T.copy(), [4, 3, 2, 1], batch_axis=1, time_axis=0)


@OPERATOR.example
def batch(v, t, rng):
    """The schema's Example 2 as onnx's node test writes it: the first sequence has length 0."""
    return case(documented(t, (4, 4), rng), [0, 2, 3, 4], batch_axis=0, time_axis=1)


@OPERATOR.example
def rank3_batch_first(v, t, rng):
    """[3, 5, 3] (45 elements): lengths equal to, shorter than, and 1."""
    return case(data(t, (3, 5, 3), rng), [5, 3, 1], batch_axis=0, time_axis=1)


@OPERATOR.example
def rank3_time_first(v, t, rng):
    return case(data(t, (4, 3, 2), rng), [2, 4, 3], batch_axis=1, time_axis=0)


@OPERATOR.example
def empty_inner(v, t, rng):
    """A zero-sized trailing dimension: nothing to move, the shape stays."""
    return case(data(t, (3, 2, 0), rng), [3, 1], batch_axis=1, time_axis=0)


@OPERATOR.rejection
def batch_axis_2(v, t, rng):
    x = data(t, (2, 3, 2), rng)
    return Case({"input": x, "sequence_lens": indices([1, 2])}, {"Y": declared(t.dtype, 3)},
                {"batch_axis": 2, "time_axis": 0},
                error="Specify which axis is batch axis. Must be one of 1 (default), or 0.")


@OPERATOR.rejection
def time_axis_2(v, t, rng):
    x = data(t, (2, 3, 2), rng)
    return Case({"input": x, "sequence_lens": indices([1, 2, 3])}, {"Y": declared(t.dtype, 3)},
                {"batch_axis": 1, "time_axis": 2},
                error="Specify which axis is time axis. Must be one of 0 (default), or 1.")


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    'returned outputs for an expect-error case',
    'the evaluator does not check batch_axis/time_axis against the values the schema allows (0 or 1)',
)
