"""Compress: the slices along axis (or the elements of the flattened input) where condition is true."""

import numpy as np

from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.gather_family import doc_or_data
from onnx_conformance.generators.movement import data

OPERATOR = Operator("Compress", primary="T")

DOC = [[1, 2], [3, 4], [5, 6]]


def compress(x: np.ndarray, cond: np.ndarray, axis=None) -> np.ndarray:
    """numpy.compress, by index: positions past the end of condition are discarded."""
    if axis is None:
        x, axis = x.reshape(-1), 0
    keep = [i for i, c in enumerate(cond.tolist()) if c and i < x.shape[axis]]
    return np.take(x, np.array(keep, dtype=np.int64), axis=axis)


def _case(x, cond, axis=None):
    cond = np.array(cond, dtype=bool)
    attrs = {} if axis is None else {"axis": axis}
    return Case({"input": x, "condition": cond}, {"output": compress(x, cond, axis)}, attrs)


@OPERATOR.example(name="0")
def axis_0(v, t, rng):
    return _case(doc_or_data(t, DOC, rng), [0, 1, 1], axis=0)


@OPERATOR.example(name="1")
def axis_1(v, t, rng):
    return _case(doc_or_data(t, DOC, rng), [0, 1], axis=1)


@OPERATOR.example
def default_axis(v, t, rng):
    return _case(doc_or_data(t, DOC, rng), [0, 1, 0, 0, 1])


@OPERATOR.example
def negative_axis(v, t, rng):
    if "Negative value" not in v.schema.attributes["axis"].description:
        return NotApplicable(f"Compress-{v.since_version}'s axis is only \"(Optional) Axis along which to take "
                             "slices.\": negative axes (\"counting dimensions from the back\") come with version 11")
    return _case(doc_or_data(t, DOC, rng), [0, 1], axis=-1)


@OPERATOR.example
def short_condition(v, t, rng):
    """"Its length can be less than the input length along the axis": the rest are discarded (odd counts)."""
    x = data(t, (3, 5, 1), rng)
    return _case(x, [1, 0, 1], axis=1)


@OPERATOR.example
def flatten_odd(v, t, rng):
    """No axis: the input is flattened; 15 elements, a condition as long, every other one kept."""
    x = data(t, (5, 3), rng)
    return _case(x, [i % 2 == 0 for i in range(15)])


@OPERATOR.example
def none_selected(v, t, rng):
    """An all-false condition: an output with a zero dimension along axis."""
    x = data(t, (2, 3), rng)
    return _case(x, [0, 0, 0], axis=1)


@OPERATOR.example
def empty_condition(v, t, rng):
    """A zero-length condition: every slice is past its end, so the output is empty."""
    x = data(t, (3, 2), rng)
    return _case(x, np.zeros(0, bool), axis=0)
