"""GatherElements: one element of data per element of indices, indices replacing the position along axis."""

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.gather_family import doc_or_data, index_rule
from onnx_conformance.generators.movement import axis_in, data, declared, indices
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, rule

OPERATOR = Operator("GatherElements", primary="T", defaults={"Tind": "int64"})


@OPERATOR.semantics
def gather_elements_(v, attrs, inputs):
    """One element of data per element of indices, the index replacing the position along axis (default 0);
    data and indices 'of the same rank r >= 1'; indices 'within bounds [-s, s-1]', else an error."""
    x, idx = inputs["data"], np.asarray(inputs["indices"], np.int64)
    if x.ndim < 1 or idx.ndim != x.ndim:
        raise Rejected(v.sentence(r"of the same rank r >= 1"))
    axis = axis_in(attr(attrs, "axis", 0), x.ndim, rule(v, r"Accepted range"))
    s = x.shape[axis]
    if idx.size and (idx.min() < -s or idx.max() > s - 1):
        raise Rejected(index_rule(v))
    if any(i > d for a, (i, d) in enumerate(zip(idx.shape, x.shape)) if a != axis):
        raise Undefined(f"indices {idx.shape} larger than data {x.shape} off axis {axis}: the spec's equations "
                        "index data past its end there")
    return {"output": gather_elements(x, idx, axis)}


def gather_elements(x: np.ndarray, idx: np.ndarray, axis: int) -> np.ndarray:
    """out[i_0, .., i_axis, ..] = data[i_0, .., indices[i], ..]; a negative index counts from the back."""
    axis %= x.ndim
    out = np.empty(idx.shape, dtype=x.dtype)
    for pos in np.ndindex(idx.shape):
        src = list(pos)
        src[axis] = int(idx[pos]) % x.shape[axis]
        out[pos] = x[tuple(src)]
    return out


def _case(v, t, x, idx_values, axis=None):
    idx = indices(idx_values, t["Tind"])
    attrs = {} if axis is None else {"axis": axis}
    return OPERATOR.expect(v, {"data": x, "indices": idx}, attrs)


@OPERATOR.example(name="0")
def axis_1(v, t, rng):
    x = doc_or_data(t, [[1, 2], [3, 4]], rng)
    return _case(v, t, x, [[0, 0], [1, 0]], axis=1)


@OPERATOR.example(name="1")
def axis_0(v, t, rng):
    x = doc_or_data(t, [[1, 2, 3], [4, 5, 6], [7, 8, 9]], rng)
    return _case(v, t, x, [[1, 2, 0], [2, 0, 0]], axis=0)


@OPERATOR.example
def negative_indices(v, t, rng):
    x = doc_or_data(t, [[1, 2, 3], [4, 5, 6], [7, 8, 9]], rng)
    return _case(v, t, x, [[-1, -2, 0], [-2, 0, 0]], axis=0)


@OPERATOR.example
def default_axis(v, t, rng):
    """No axis attribute: "by default, the outer-most axis, that is axis 0"; odd counts (15 and 5)."""
    x = data(t, (3, 5), rng)
    return _case(v, t, x, [[2, 0, 1, 1, 2]])


@OPERATOR.example
def negative_axis(v, t, rng):
    """axis -1 of rank 3, shorter there than data (the other dimensions equal data's: onnx's
    reference and torch.gather need that, and the equations leave nothing else defined)."""
    x = data(t, (3, 2, 5), rng)
    idx = [[[4, 0, 3], [1, 1, 2]], [[0, 2, 4], [3, 3, 0]], [[2, 1, 0], [4, 4, 1]]]
    return _case(v, t, x, idx, axis=-1)


@OPERATOR.example
def rank1(v, t, rng):
    """Rank 1 (the least r allows): indices longer than data, repeating entries."""
    x = data(t, (3,), rng)
    return _case(v, t, x, [2, 0, 1, 0, 2, 2, 1])


@OPERATOR.example
def empty(v, t, rng):
    """Indices with a zero dimension: an empty output of the indices' shape."""
    x = data(t, (2, 3), rng)
    return _case(v, t, x, np.zeros((2, 0), np.int64), axis=1)


@OPERATOR.rejection
def out_of_range_indices(v, t, rng):
    x = data(t, (2, 3), rng)
    idx = indices([[0, 3], [1, 2]], t["Tind"])
    return OPERATOR.reject(v, {"data": x, "indices": idx}, {"axis": 1}, {"output": declared(t.dtype, 2)})


@OPERATOR.rejection
def out_of_range_negative_indices(v, t, rng):
    """-s - 1: one below the range's lower end."""
    x = data(t, (2, 3), rng)
    idx = indices([[0, 1], [-4, 2]], t["Tind"])
    return OPERATOR.reject(v, {"data": x, "indices": idx}, {"axis": 1}, {"output": declared(t.dtype, 2)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    '^negative_axis .*Except for dimension',
    'the evaluator does not normalise a negative axis before comparing the index and data shapes (onnx/reference/ops/op_gather_elements.py); the shapes agree apart from the axis',
)
OPERATOR.reference_differs(
    '^out_of_range.*returned outputs for an expect-error case',
    "the evaluator wraps out-of-range indices (np.choose mode='wrap'); the spec says an out-of-bounds index is an error",
)
