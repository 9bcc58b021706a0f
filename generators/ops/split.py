"""Split: consecutive parts of a tensor along an axis, equal or of given lengths."""

import math

import numpy as np

from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import data, declared
from onnx_conformance.generators.slice_family import documented, rule, variadic

OPERATOR = Operator("Split", primary="T")

ONE_TO_SIX = [1, 2, 3, 4, 5, 6]
TWO_ROWS = [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]]
TWO_ROWS_OF_EIGHT = [list(range(1, 9)), list(range(9, 17))]


def parts(x, axis, lengths):
    return np.split(x, np.cumsum(lengths)[:-1].tolist(), axis=axis)


def equal(v, t, x, count, axis=None):
    """Equal parts: by the number of outputs, or (Split-18) by num_outputs, the last part smaller."""
    dim = x.shape[0 if axis is None else axis]
    chunk = math.ceil(dim / count)
    lengths = [chunk] * (count - 1) + [dim - chunk * (count - 1)]
    attrs = {} if axis is None else {"axis": axis}
    if v.has_attribute("num_outputs"):
        attrs["num_outputs"] = count
    elif dim % count:
        return NotApplicable(f"Split-{v.since_version}: 'Otherwise, the tensor is split to equal sized parts.' "
                             "(a smaller last chunk is Split-18's)")
    outs = parts(x, 0 if axis is None else axis, lengths)
    return Case({"input": x}, variadic("outputs", outs), attrs)


def given(v, t, x, lengths, axis=None):
    """Lengths of the parts: the 'split' attribute up to Split-11, the 'split' input from Split-13."""
    outs = parts(x, 0 if axis is None else axis, lengths)
    attrs = {} if axis is None else {"axis": axis}
    if v.since_version >= 13:
        return Case({"input": x, "split": np.array(lengths, dtype=np.int64)}, variadic("outputs", outs), attrs)
    return Case({"input": x}, variadic("outputs", outs), dict(attrs, split=list(lengths)))


def default_axis_stated(v):
    if v.since_version == 1:
        return NotApplicable("Split-1 gives 'axis' no default ('Which axis to split on')")
    return None


@OPERATOR.example(name="equal_parts_1d")
def equal_parts_1d(v, t, rng):
    return equal(v, t, documented(t, ONE_TO_SIX, rng), 3, axis=0)


@OPERATOR.example(name="variable_parts_1d")
def variable_parts_1d(v, t, rng):
    return given(v, t, documented(t, ONE_TO_SIX, rng), [2, 4], axis=0)


@OPERATOR.example(name="equal_parts_2d")
def equal_parts_2d(v, t, rng):
    return equal(v, t, documented(t, TWO_ROWS, rng), 2, axis=1)


@OPERATOR.example(name="variable_parts_2d")
def variable_parts_2d(v, t, rng):
    return given(v, t, documented(t, TWO_ROWS, rng), [2, 4], axis=1)


@OPERATOR.example
def equal_parts_default_axis(v, t, rng):
    return default_axis_stated(v) or equal(v, t, documented(t, ONE_TO_SIX, rng), 3)


@OPERATOR.example
def variable_parts_default_axis(v, t, rng):
    return default_axis_stated(v) or given(v, t, documented(t, ONE_TO_SIX, rng), [2, 4])


@OPERATOR.example
def zero_size_splits(v, t, rng):
    if v.since_version < 11:
        return NotApplicable(f"Split-{v.since_version} says only 'length of each output'; lengths of 0 "
                             "('Values should be >= 0.') are allowed from Split-11")
    return given(v, t, data(t, (0,), rng), [0, 0, 0])


@OPERATOR.example(name="1d_uneven_split")
def uneven_split_1d(v, t, rng):
    return equal(v, t, documented(t, ONE_TO_SIX + [7], rng), 4)


@OPERATOR.example(name="2d_uneven_split")
def uneven_split_2d(v, t, rng):
    return equal(v, t, documented(t, TWO_ROWS_OF_EIGHT, rng), 3, axis=1)


@OPERATOR.example
def negative_axis(v, t, rng):
    """An odd element count, with the special values of the type, split on axis -1."""
    if v.since_version < 11:
        return NotApplicable(f"Split-{v.since_version} gives 'axis' no negative values; "
                             "'A negative value means counting dimensions from the back.' is Split-11's")
    return given(v, t, data(t, (3, 5), rng), [2, 3], axis=-1)


@OPERATOR.rejection
def sizes_not_summing_to_dim(v, t, rng):
    broken = rule(v, r"Sum of the values must be equal")
    if broken is None:
        return NotApplicable(f"Split-{v.since_version} states no rule on the sum of 'split' "
                             "('Sum of the values must be equal to the dim value at 'axis' specified.' is Split-13's)")
    x = data(t, (6,), rng)
    outs = {f"outputs_{k}": declared(t.dtype, 1) for k in range(2)}
    return Case({"input": x, "split": np.array([2, 3], dtype=np.int64)}, outs, {"axis": 0}, error=broken)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    "No implementation for operator 'Split' domain '' and version 1",
    'the evaluator has no Split-1',
)
OPERATOR.reference_differs(
    'returned outputs for an expect-error case',
    'the evaluator does not check that the split lengths sum to the dimension',
)
