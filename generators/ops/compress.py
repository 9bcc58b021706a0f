"""Compress: the slices along axis (or the elements of the flattened input) where condition is true."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.gather_family import doc_or_data
from onnx_conformance.generators.movement import axis_in, data
from onnx_conformance.generators.semantics import Rejected, Undefined, described, rule

OPERATOR = Operator("Compress", primary="T")

DOC = [[1, 2], [3, 4], [5, 6]]


@OPERATOR.semantics
def compress_(v, attrs, inputs):
    """The slices along axis (without axis, the elements of the flattened input) where the rank-1
    condition is true; 'data slices or elements exceeding the condition length are discarded'."""
    x, cond = inputs["input"], inputs["condition"]
    if x.ndim < 1:
        raise Rejected(described(v, "input"))
    if cond.ndim != 1:
        raise Rejected(rule(v, r"^Rank 1 tensor of booleans"))
    axis = attrs.get("axis")
    if axis is not None:
        if v.since_version >= 11:
            axis = axis_in(axis, x.ndim, rule(v, r"Accepted range"))
        elif not 0 <= axis < x.ndim:
            raise Undefined(f"Compress-{v.since_version}: the input of rank {x.ndim} has no axis {axis} "
                            "(negative axes come with version 11)")
    length = x.size if axis is None else x.shape[axis]
    if np.asarray(cond[length:], bool).any():
        raise Undefined(f"the condition selects position {length + int(np.argmax(cond[length:]))} past the "
                        f"{length} the input has there: the spec only lets the condition be shorter")
    return {"output": compress(x, np.asarray(cond, bool), axis)}


def compress(x: np.ndarray, cond: np.ndarray, axis=None) -> np.ndarray:
    """numpy.compress, by index: positions past the end of condition are discarded."""
    if axis is None:
        x, axis = x.reshape(-1), 0
    keep = [i for i, c in enumerate(cond.tolist()) if c and i < x.shape[axis]]
    return np.take(x, np.array(keep, dtype=np.int64), axis=axis)


def _case(v, x, cond, axis=None):
    cond = np.array(cond, dtype=bool)
    attrs = {} if axis is None else {"axis": axis}
    return OPERATOR.expect(v, {"input": x, "condition": cond}, attrs)


@OPERATOR.example(name="0")
def axis_0(v, t, rng):
    return _case(v, doc_or_data(t, DOC, rng), [0, 1, 1], axis=0)


@OPERATOR.example(name="1")
def axis_1(v, t, rng):
    return _case(v, doc_or_data(t, DOC, rng), [0, 1], axis=1)


@OPERATOR.example
def default_axis(v, t, rng):
    return _case(v, doc_or_data(t, DOC, rng), [0, 1, 0, 0, 1])


@OPERATOR.example
def negative_axis(v, t, rng):
    if "Negative value" not in v.schema.attributes["axis"].description:
        return NotApplicable(f"Compress-{v.since_version}'s axis is only \"(Optional) Axis along which to take "
                             "slices.\": negative axes (\"counting dimensions from the back\") come with version 11")
    return _case(v, doc_or_data(t, DOC, rng), [0, 1], axis=-1)


@OPERATOR.example
def short_condition(v, t, rng):
    """"Its length can be less than the input length along the axis": the rest are discarded (odd counts)."""
    x = data(t, (3, 5, 1), rng)
    return _case(v, x, [1, 0, 1], axis=1)


@OPERATOR.example
def flatten_odd(v, t, rng):
    """No axis: the input is flattened; 15 elements, a condition as long, every other one kept."""
    x = data(t, (5, 3), rng)
    return _case(v, x, [i % 2 == 0 for i in range(15)])


@OPERATOR.example
def none_selected(v, t, rng):
    """An all-false condition: an output with a zero dimension along axis."""
    x = data(t, (2, 3), rng)
    return _case(v, x, [0, 0, 0], axis=1)


@OPERATOR.example
def empty_condition(v, t, rng):
    """A zero-length condition: every slice is past its end, so the output is empty."""
    x = data(t, (3, 2), rng)
    return _case(v, x, np.zeros(0, bool), axis=0)
