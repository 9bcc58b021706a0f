"""Gather: slices of data along axis, picked by indices of any rank, in an output of rank q + (r - 1)."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.gather_family import allows_negative, doc_or_data, index_rule, negative_na_reason
from onnx_conformance.generators.movement import data, declared, indices
from onnx_conformance.generators.semantics import Rejected, attr

OPERATOR = Operator("Gather", primary="T", defaults={"Tind": "int64"})


@OPERATOR.semantics
def gather(v, attrs, inputs):
    """output[j.., i.., k..] = data[j.., indices[i..], k..]; a negative index counts from the back
    (from version 11: "[-s, s-1]"); an index outside the stated range is rejected."""
    x, idx = inputs["data"], np.asarray(inputs["indices"], np.int64)
    axis = attr(attrs, "axis", 0)
    if not -x.ndim <= axis < x.ndim:
        raise Rejected(f"axis {axis} outside [-r, r-1] for data of rank {x.ndim}")
    s = x.shape[axis]
    low = -s if allows_negative(v) else 0
    if idx.size and (idx.min() < low or idx.max() > s - 1):
        raise Rejected(index_rule(v))
    return {"output": np.take(x, idx % s if s else idx, axis=axis)}


def _case(v, t, x, idx_values, axis=None):
    attrs = {} if axis is None else {"axis": axis}
    return OPERATOR.expect(v, {"data": x, "indices": indices(idx_values, t["Tind"])}, attrs)


@OPERATOR.example(name="0")
def axis_0(v, t, rng):
    return _case(v, t, data(t, (5, 4, 3, 2), rng), [0, 1, 3], axis=0)


@OPERATOR.example(name="1")
def axis_1(v, t, rng):
    return _case(v, t, data(t, (5, 4, 3, 2), rng), [0, 1, 3], axis=1)


@OPERATOR.example(name="2d_indices")
def indices_2d(v, t, rng):
    # The schema's axis = 1 example: its data and indices [[0, 2]].
    x = doc_or_data(t, [[1.0, 1.2, 1.9], [2.3, 3.4, 3.9], [4.5, 5.7, 5.9]], rng)
    return _case(v, t, x, [[0, 2]], axis=1)


@OPERATOR.example
def doc_axis_0(v, t, rng):
    """The schema's axis = 0 example: 2-D indices into the outer axis, no axis attribute."""
    x = doc_or_data(t, [[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]], rng)
    return _case(v, t, x, [[0, 1], [1, 2]])


@OPERATOR.example
def negative_indices(v, t, rng):
    if not allows_negative(v):
        return NotApplicable(negative_na_reason(v))
    x = doc_or_data(t, np.arange(10, dtype=np.float32), rng)
    return _case(v, t, x, [0, -9, -10], axis=0)


@OPERATOR.example
def scalar_indices(v, t, rng):
    """Rank-0 indices: the output has rank r - 1 (odd element counts, 15 and 3)."""
    x = data(t, (3, 5), rng)
    return _case(v, t, x, 3, axis=1)


@OPERATOR.example
def negative_axis(v, t, rng):
    """axis -1 of rank 3, "counting dimensions from the back"; indices repeat an entry."""
    x = data(t, (2, 3, 5), rng)
    return _case(v, t, x, [[4, 0], [2, 2]], axis=-1)


@OPERATOR.example
def empty(v, t, rng):
    """Indices with a zero dimension: an output with a zero dimension where the q dimensions go."""
    x = data(t, (3, 5), rng)
    return _case(v, t, x, np.zeros((2, 0), np.int64), axis=1)


@OPERATOR.rejection
def out_of_range_indices(v, t, rng):
    x = data(t, (2, 5), rng)
    idx = indices([1, 5], t["Tind"])
    return OPERATOR.reject(v, {"data": x, "indices": idx}, {"axis": 1}, {"output": declared(t.dtype, 2)})


@OPERATOR.rejection
def out_of_range_negative_indices(v, t, rng):
    """-s - 1: one below the range's lower end."""
    if not allows_negative(v):
        return NotApplicable(negative_na_reason(v))
    x = data(t, (2, 5), rng)
    idx = indices([-6, 0], t["Tind"])
    return OPERATOR.reject(v, {"data": x, "indices": idx}, {"axis": 1}, {"output": declared(t.dtype, 2)})
