"""ScatterND: writes (or, from version 16, reduces) update slices into a copy of data at k-tuple indices."""

import numpy as np

from onnx_conformance.generators import scatter_family as sf
from onnx_conformance.generators.case import Operator, once_per_version
from onnx_conformance.generators.movement import data, declared
from onnx_conformance.generators.semantics import Rejected, described

OPERATOR = Operator("ScatterND", primary="T")


@OPERATOR.semantics
def scatter_nd(v, attrs, inputs):
    """output[indices[i]] = f(output[indices[i]], updates[i]) for each k-tuple of indices, element by
    element of the slice it names (f: the reduction; none: the update itself); k at most rank(data),
    updates of shape indices.shape[:-1] ++ data.shape[k:], index values in [-s, s-1]."""
    x, idx, upd = inputs["data"], np.asarray(inputs["indices"], np.int64), inputs["updates"]
    reduction = sf.reduction_of(v, attrs, x)
    if x.ndim < 1 or idx.ndim < 1:
        raise Rejected(f"data: {described(v, 'data')} indices: {described(v, 'indices')}")
    k = idx.shape[-1]
    if k > x.ndim:
        raise Rejected(v.sentence(r"k can be a value at most the rank"))
    if np.shape(upd) != idx.shape[:-1] + x.shape[k:]:
        raise Rejected(v.sentence(r"the shape of `updates` must equal"))
    for d in range(k):
        column = idx[..., d]
        if column.size and (column.min() < -x.shape[d] or column.max() > x.shape[d] - 1):
            raise Rejected(v.sentence(r"expected in the valid range"))
    writes = []
    for pos in np.ndindex(idx.shape[:-1]):
        head = tuple(int(j) % x.shape[d] for d, j in enumerate(idx[pos]))
        for tail in np.ndindex(x.shape[k:]):
            writes.append((head + tail, upd[pos + tail]))
    return {"output": sf.scatter(v, x, writes, reduction)}


# The doc's Example 2 data: every value is a small integer, exact in every numeric type.
ND_DATA = [[[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
           [[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
           [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]],
           [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]]]
ND_UPDATES = [[[5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8]],
              [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]]]


def _case(v, x, idx_values, upd, reduction=None):
    """The example's case: indices of one value each made k-tuples of one."""
    idx = np.array(idx_values, dtype=np.int64)
    if idx.ndim == 1:
        idx = idx.reshape(-1, 1)
    attrs = {} if reduction is None else {"reduction": reduction}
    return sf.expect_defined(OPERATOR, v, {"data": x, "indices": idx, "updates": upd}, attrs)


@OPERATOR.example
def scatternd(v, t, rng):
    """Example 2: k = 1 < rank 3, each index replaces a 4x4 slice."""
    return _case(v, sf.doc_or_data(t, ND_DATA, rng), [[0], [2]], sf.doc_or_data(t, ND_UPDATES, rng))


# The doc's reduction examples: both 4x4 slices reduced into slice 0 (repeated indices), or, with k = rank,
# each index naming one element.
SLICES = (ND_DATA, [[0], [0]], ND_UPDATES, True)
ELEMENTS = ([[1, 2], [3, 4]], [[0, 0], [1, 1]], [5, 1], False)


def _reduced(reduction, x, idx, upd, duplicates):
    def example(v, t, rng):
        na = sf.reduction_na(v, t, reduction, duplicates)
        if na:
            return na
        return _case(v, np.array(x).astype(t.np()), idx, np.array(upd).astype(t.np()), reduction)

    return example


for _name, _reduction, _layout in (("add", "add", SLICES), ("multiply", "mul", SLICES), ("max", "max", SLICES),
                                   ("min", "min", SLICES), ("max_with_element_indices", "max", ELEMENTS),
                                   ("min_with_element_indices", "min", ELEMENTS)):
    OPERATOR.example(_reduced(_reduction, *_layout), name=_name)


@OPERATOR.example(name="negative_indices")
def nd_negative_indices(v, t, rng):
    """"Index values are allowed to be negative": element indices, some negative, odd element counts."""
    x = data(t, (3, 5), rng)
    upd = data(t, (3,), rng)
    return _case(v, x, [[-1, 2], [0, -5], [-3, 4]], upd)


@OPERATOR.example(name="empty_indices")
def nd_empty_indices(v, t, rng):
    """No index tuples at all (indices shape [0, 1]): the output is data."""
    x = data(t, (3, 5), rng)
    return _case(v, x, np.zeros((0, 1), np.int64), data(t, (0, 5), rng))


@OPERATOR.example(name="out_of_range_indices")
def nd_out_of_range_indices(v, t, rng):
    na = once_per_version(v, t)
    if na:
        return na
    x = data(t, (3, 5), rng)
    upd = data(t, (1, 5), rng)
    return OPERATOR.reject(v, {"data": x, "indices": np.array([[3]], dtype=np.int64), "updates": upd}, {},
                           {"output": declared(t.dtype, 2)})
