"""Mutants of the gather, scatter and select operators: negative axes and indices clamped or counted from
the wrong end, rank-0 indices read as vectors, reductions and modes not honoured, and numpy's layouts."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import Mutant, default, ignored, with_attributes, with_inputs

FAMILY = "Gather, scatter and select"

NEGATIVE_AXIS = "Negative value means counting dimensions from the back."


def _axis_clamped(call, a):
    """A negative axis clamped to 0 instead of counted from the back."""
    if a.get("axis") is not None and not isinstance(a["axis"], float) and a["axis"] < 0:
        a["axis"] = 0
    return a


def _indices_clamped(k: int):
    """Input k's negative indices clamped to 0 (a kernel that bounds-checks instead of wrapping)."""
    def inputs(*xs, **_):
        x = xs[k]
        if not isinstance(x, np.ndarray) or x.dtype.kind != "i" or not (x < 0).any():
            return xs
        return xs[:k] + (np.where(x < 0, 0, x).astype(x.dtype),) + xs[k + 1:]
    return with_inputs(inputs)


def _gather_scalar_indices(call, data, indices, **attrs):
    """Rank-0 indices read as a 1-element vector: the gathered axis stays, with length 1."""
    if indices.ndim == 0:
        indices = indices.reshape(1)
    return call.run(data, indices, **attrs)


def _nonzero_argwhere(call, x, **attrs):
    """numpy.argwhere's layout: one row per element, (N, rank), not one row per dimension."""
    (y,) = call.run(x, **attrs)
    return (np.ascontiguousarray(y.T),)


def _onehot_negative_off(call, indices, depth, values, **attrs):
    """Negative indices taken as out of range (all off) rather than counted from the back."""
    (y,) = call.run(indices, depth, values, **attrs)
    if not (np.asarray(indices) < 0).any():
        return (y,)
    axis = attrs.get("axis")
    axis = -1 if axis is None else int(axis)
    axis = axis + y.ndim if axis < 0 else axis
    off = np.asarray(values).reshape(-1)[0]
    negative = np.expand_dims(np.asarray(indices) < 0, axis)
    return (np.where(negative, off, y).astype(y.dtype),)


def _onehot_values_swapped(call, indices, depth, values, **attrs):
    """'values' read as [on_value, off_value]."""
    return call.run(indices, depth, np.asarray(values)[::-1].copy(), **attrs)


def _unique_negative_axis(call, a):
    if a.get("axis") is not None and a["axis"] < 0:
        a["axis"] = 0
    return a


def _tensor_scatter_at_zero(call, past_cache, update, *rest, **attrs):
    """write_indices not read: every batch row written from position 0."""
    return call.run(past_cache, update, **attrs)


MUTANTS = [
    Mutant("Compress.negative_axis_clamped", "Compress", "negative axes",
           "Negative value means counting dimensions from the back.", with_attributes(_axis_clamped), since=(11, None)),
    Mutant("Compress.ignores_axis", "Compress", "ignored attributes",
           "In case axis is not provided, input is flattened before elements are selected.", ignored("axis")),
    Mutant("Gather.negative_indices_clamped", "Gather", "index edges",
           "All index values are expected to be within bounds [-s, s-1] along axis of size s.", _indices_clamped(1),
           since=(11, None)),
    Mutant("Gather.negative_axis_clamped", "Gather", "negative axes", NEGATIVE_AXIS,
           with_attributes(_axis_clamped), since=(11, None)),
    Mutant("Gather.scalar_indices_as_rank1", "Gather", "scalars",
           "gather entries of the axis dimension of `data` (by default outer-most one as axis=0) indexed by "
           "`indices`, and concatenates them in an output tensor of rank q + (r - 1).", _gather_scalar_indices),
    Mutant("GatherElements.negative_indices_clamped", "GatherElements", "index edges",
           "All index values are expected to be within bounds [-s, s-1] along axis of size s.", _indices_clamped(1)),
    Mutant("GatherElements.axis_default_last", "GatherElements", "wrong defaults",
           "Which axis to gather on. Negative value means counting dimensions from the back.",
           default("axis", -1), note="the schema's default axis is 0; TensorFlow's gather along the last"),
    Mutant("GatherND.ignores_batch_dims", "GatherND", "ignored attributes",
           "The number of batch dimensions.", ignored("batch_dims"), since=(12, None)),
    Mutant("GatherND.negative_indices_clamped", "GatherND", "index edges",
           "All values in `indices` are expected to be within bounds [-s, s-1] along axis of size `s`",
           _indices_clamped(1)),
    Mutant("NonZero.argwhere_layout", "NonZero", "layout modes",
           "Returns the indices of the elements that are non-zero (in row-major order - by dimension).",
           _nonzero_argwhere),
    Mutant("OneHot.negative_indices_off", "OneHot", "index edges",
           "Any entries in the 'indices' input tensor with values outside the range [-depth, depth-1] will result "
           "in one-hot representation with all 'off_value' values in the output tensor.", _onehot_negative_off,
           since=(11, None)),
    Mutant("OneHot.axis_default_0", "OneHot", "wrong defaults",
           "If 'axis' is not specified then the additional dimension will be inserted as the innermost dimension, "
           "i.e. axis=-1.", default("axis", 0)),
    Mutant("OneHot.values_swapped", "OneHot", "layout modes",
           "a two-element tensor of format [off_value, on_value]", _onehot_values_swapped),
    Mutant("Scatter.negative_axis_clamped", "Scatter", "negative axes", NEGATIVE_AXIS,
           with_attributes(_axis_clamped)),
    Mutant("ScatterElements.negative_indices_clamped", "ScatterElements", "index edges",
           "All index values are expected to be within bounds [-s, s-1] along axis of size s.", _indices_clamped(1)),
    Mutant("ScatterElements.ignores_reduction", "ScatterElements", "ignored attributes",
           "Type of reduction to apply: none (default), add, mul, max, min.", ignored("reduction"), since=(16, None)),
    Mutant("ScatterElements.axis_default_last", "ScatterElements", "wrong defaults",
           "Which axis to scatter on. Negative value means counting dimensions from the back.", default("axis", -1)),
    Mutant("ScatterND.ignores_reduction", "ScatterND", "ignored attributes",
           "Type of reduction to apply: none (default), add, mul, max, min.", ignored("reduction"), since=(16, None)),
    Mutant("ScatterND.negative_indices_clamped", "ScatterND", "index edges",
           "Index values are allowed to be negative, as per the usual convention for counting backwards from the "
           "end, but are expected in the valid range.", _indices_clamped(1)),
    Mutant("TensorScatter.ignores_mode", "TensorScatter", "ignored attributes",
           "Supported modes include `linear` and `circular`.", ignored("mode")),
    Mutant("TensorScatter.ignores_write_indices", "TensorScatter", "ignored attributes",
           "The optional `write_indices` input indicates the write index for each sample in the batch, assumed to "
           "be zero if not provided.", _tensor_scatter_at_zero),
    Mutant("Unique.ignores_sorted", "Unique", "ignored attributes",
           "Whether to sort the unique elements in ascending order before returning as output.", ignored("sorted")),
    Mutant("Unique.negative_axis_clamped", "Unique", "negative axes",
           "Negative value means counting dimensions from the back.", with_attributes(_unique_negative_axis)),
]
