"""GatherND: slices of data addressed by index tuples (the last dimension of indices), after batch_dims batch dimensions."""

import numpy as np

import re

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.gather_family import doc_or_data, index_rule
from onnx_conformance.generators.movement import data, declared
from onnx_conformance.generators.semantics import Rejected, attr

OPERATOR = Operator("GatherND", primary="T")


def point(v, pattern: str) -> str:
    """One of the doc's numbered 'salient points' on the inputs' ranks and shapes, verbatim."""
    return re.search(r"\d\) " + pattern + r".*?(?=\s\d\) |\.\s|\.$)", v.doc).group(0)


@OPERATOR.semantics
def gather_nd_(v, attrs, inputs):
    """output[batch.., i..] = data[batch.., indices[batch.., i..], ...] after batch_dims b (version 12 on),
    under the doc's salient points: r >= 1 and q >= 1, b < min(q, r), equal batch dimensions,
    indices_shape[-1] in [1, r - b], every index within [-s, s-1]."""
    x, idx = inputs["data"], np.asarray(inputs["indices"], np.int64)
    b = attr(attrs, "batch_dims", 0) if v.has_attribute("batch_dims") else 0
    r, q = x.ndim, idx.ndim
    if r < 1 or q < 1:
        raise Rejected(point(v, r"r >= 1 and q >= 1 are to be honored"))
    if b:
        if not 0 <= b < min(q, r):
            raise Rejected(point(v, r"b < min\(q, r\)"))
        if idx.shape[:b] != x.shape[:b]:
            raise Rejected(point(v, r"The first `b` dimensions"))
    k = idx.shape[-1]
    if not 1 <= k <= r - b:
        raise Rejected(point(v, r"The `indices_shape\[-1\]` should have a value between 1"))
    dims = np.array(x.shape[b:b + k], dtype=np.int64)
    if idx.size and ((idx < -dims).any() or (idx > dims - 1).any()):
        raise Rejected(index_rule(v))
    return {"output": gather_nd(x, idx, b)}


def gather_nd(x: np.ndarray, idx: np.ndarray, b: int = 0) -> np.ndarray:
    """output[batch.., i..] = data[batch.., indices[batch.., i..] (a tuple of k), ...]; negatives count from the back."""
    k = idx.shape[-1]
    out_shape = idx.shape[:-1] + x.shape[b + k:]
    out = np.empty(out_shape, dtype=x.dtype)
    for pos in np.ndindex(idx.shape[:-1]):
        head = tuple(int(j) % x.shape[b + d] for d, j in enumerate(idx[pos]))
        out[pos] = x[pos[:b] + head]
    return out


def _case(v, x, idx_values, b=None):
    idx = np.array(idx_values, dtype=np.int64)
    attrs = {} if b is None else {"batch_dims": b}
    return OPERATOR.expect(v, {"data": x, "indices": idx}, attrs)


def _needs_batch_dims(v):
    if not v.has_attribute("batch_dims"):
        return NotApplicable(f"GatherND-{v.since_version} has no `batch_dims` attribute (it comes with version 12)")
    return None


@OPERATOR.example
def example_int32(v, t, rng):
    """indices_shape[-1] == r: each index tuple picks one element (the doc's Example 1)."""
    x = doc_or_data(t, [[0, 1], [2, 3]], rng, doc_type="int32")
    return _case(v, x, [[0, 0], [1, 1]])


@OPERATOR.example
def example_float32(v, t, rng):
    """indices_shape[-1] < r: each tuple picks a slice (the doc's Example 4)."""
    x = doc_or_data(t, [[[0, 1], [2, 3]], [[4, 5], [6, 7]]], rng)
    return _case(v, x, [[[0, 1]], [[1, 0]]])


@OPERATOR.example(name="example_int32_batch_dim1")
def example_int32_batch_dim1(v, t, rng):
    na = _needs_batch_dims(v)
    if na:
        return na
    x = doc_or_data(t, [[[0, 1], [2, 3]], [[4, 5], [6, 7]]], rng, doc_type="int32")
    return _case(v, x, [[1], [0]], b=1)


@OPERATOR.example
def slices(v, t, rng):
    """The doc's Example 2: one-element tuples select rows; odd counts (15 elements, 3 columns)."""
    x = data(t, (5, 3), rng)
    return _case(v, x, [[1], [4], [0], [1]])


@OPERATOR.example
def negative_indices(v, t, rng):
    """"within bounds [-s, s-1]": negative entries count from the back of their axis."""
    x = data(t, (3, 5), rng)
    return _case(v, x, [[-1, 0], [2, -5], [-3, -2]])


@OPERATOR.example
def batch_dims_2(v, t, rng):
    """b = 2 of rank 4, whole tuples (indices_shape[-1] == r - b): one element per batch position."""
    na = _needs_batch_dims(v)
    if na:
        return na
    x = data(t, (2, 3, 3, 1), rng)
    idx = [[[[2, 0], [0, 0]], [[1, 0], [1, 0]], [[0, 0], [2, 0]]],
           [[[1, 0], [2, 0]], [[2, 0], [0, 0]], [[0, 0], [1, 0]]]]
    return _case(v, x, idx, b=2)


@OPERATOR.example
def empty(v, t, rng):
    """Indices with a zero leading dimension: an output with a zero dimension."""
    x = data(t, (3, 2), rng)
    return _case(v, x, np.zeros((0, 1), np.int64))


@OPERATOR.rejection
def out_of_range_indices(v, t, rng):
    x = data(t, (2, 3), rng)
    idx = np.array([[0, 1], [1, 3]], dtype=np.int64)
    return OPERATOR.reject(v, {"data": x, "indices": idx}, {}, {"output": declared(t.dtype, 1)})


@OPERATOR.rejection
def out_of_range_negative_indices(v, t, rng):
    """-s - 1: one below the range's lower end."""
    x = data(t, (2, 3), rng)
    idx = np.array([[-3, 1], [1, 0]], dtype=np.int64)
    return OPERATOR.reject(v, {"data": x, "indices": idx}, {}, {"output": declared(t.dtype, 1)})
