"""Concat: tensors joined along one axis, every other dimension equal."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import axis_in, data, declared
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, rule
from onnx_conformance.generators.slice_family import documented, variadic

OPERATOR = Operator("Concat", primary="T")

# The documented pairs: 1..4, 1..8, 1..16 split in two halves.
PAIRS = {
    "1d": ([1, 2], [3, 4]),
    "2d": ([[1, 2], [3, 4]], [[5, 6], [7, 8]]),
    "3d": ([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], [[[9, 10], [11, 12]], [[13, 14], [15, 16]]]),
}


@OPERATOR.semantics
def concat(v, attrs, inputs):
    """The inputs joined along axis (Concat-1's default 1); from version 11 'All input tensors must have the
    same shape, except for the dimension size of the axis', and axis is in [-r, r-1]."""
    xs = inputs["inputs"]
    axis = attr(attrs, "axis", 1)
    r = xs[0].ndim
    if v.since_version >= 11:
        axis = axis_in(axis, r, rule(v, r"Accepted range"))
    elif not 0 <= axis < r:
        raise Undefined(f"Concat-{v.since_version}: 'Which axis to concat on': the inputs of rank {r} have no "
                        f"axis {axis} (negative axes come with version 11)")
    off_axis = {x.shape[:axis] + x.shape[axis + 1:] if x.ndim == r else None for x in xs}
    if len(off_axis) > 1:
        same = rule(v, r"must have the same shape")
        if same is None:
            raise Undefined(f"Concat-{v.since_version}: inputs whose shapes differ off the axis (the rule "
                            "'All input tensors must have the same shape, ...' is Concat-11's)")
        raise Rejected(same)
    return {"concat_result": np.concatenate(xs, axis)}


def joined(v, t, xs, axis):
    if axis < 0 and v.since_version < 11:
        return NotApplicable(f"Concat-{v.since_version} gives 'axis' no negative values; "
                             "'A negative value means counting dimensions from the back.' is Concat-11's")
    return OPERATOR.expect(v, variadic("inputs", xs), {"axis": axis})


def documented_example(rank_name, axis):
    def example(v, t, rng):
        return joined(v, t, [documented(t, x, rng) for x in PAIRS[rank_name]], axis)
    return example


for _name, _pair in PAIRS.items():
    _rank = np.ndim(_pair[0])
    for _axis in range(_rank):
        OPERATOR.example(documented_example(_name, _axis), name=f"{_name}_axis_{_axis}")
    for _axis in range(-_rank, 0):
        OPERATOR.example(documented_example(_name, _axis), name=f"{_name}_axis_negative_{-_axis}")


@OPERATOR.example
def three_inputs_one_empty(v, t, rng):
    """Inputs of 3, 0 and 2 along the axis (an odd element count), with the type's special values."""
    xs = [data(t, (3, 3, 1), rng), data(t, (3, 0, 1), rng), data(t, (3, 2, 1), rng)]
    return joined(v, t, xs, 1)


@OPERATOR.rejection
def mismatched_ranks(v, t, rng):
    broken = rule(v, r"must have the same shape")
    if broken is None:
        return NotApplicable(f"Concat-{v.since_version} states no rule on the inputs' shapes ('All input tensors "
                             "must have the same shape, except for the dimension size of the axis to concatenate "
                             "on.' is Concat-11's)")
    xs = [data(t, (2, 3), rng), data(t, (2, 3, 1), rng)]
    return OPERATOR.reject(v, variadic("inputs", xs), {"axis": 0}, {"concat_result": declared(t.dtype, 2)})
