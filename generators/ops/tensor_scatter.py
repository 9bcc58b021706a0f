"""TensorScatter: writes each batch's update into a copy of the cache along axis, from its write index (wrapping in circular mode)."""

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.movement import data, declared
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, rule

OPERATOR = Operator("TensorScatter", primary="T")


@OPERATOR.semantics
def tensor_scatter(v, attrs, inputs):
    """The schema's pseudocode: update[b, .., s, ..] lands at cache index write_indices[b] + s along axis
    (default -2, never 0), modulo max_sequence_length in circular mode; linear mode 'requires
    write_indices+sequence_length<=max_sequence_length'. write_indices default to zeros."""
    past, update, w = inputs["past_cache"], inputs["update"], inputs.get("write_indices")
    axis, mode = attr(attrs, "axis", -2), attr(attrs, "mode", "linear")
    r = past.ndim
    if not -r <= axis < r:
        raise Undefined(f"axis {axis} names no dimension of a rank-{r} cache")
    axis %= r
    if axis == 0:
        raise Rejected(rule(v, r"cannot be 0", "axis"))
    if mode not in ("linear", "circular"):
        raise Rejected(rule(v, r"Supported modes", "mode"))
    same = update.ndim == r and all(u == p for a, (u, p) in enumerate(zip(update.shape, past.shape)) if a != axis)
    if not same or update.shape[axis] > past.shape[axis]:
        raise Rejected(v.sentence(r"The `update` tensor's shape only differs"))
    if w is not None:
        w = np.asarray(w, np.int64)
        if w.shape != (past.shape[0],):
            raise Rejected(rule(v, r"Shape is", "write_indices"))
        if w.size and w.min() < 0:
            raise Undefined(f"write_indices {w.tolist()}: the spec gives a negative write index no meaning")
    start = np.zeros(past.shape[0], np.int64) if w is None else w
    if mode == "linear" and past.shape[0] and (start + update.shape[axis]).max() > past.shape[axis]:
        raise Rejected(rule(v, r"requires", "mode"))
    return {"present_cache": present(past, update, w, axis, mode)}

# The documented cache: batch 2, one head, max_sequence_length 4, 5 features.
CACHE = [[[[1, 2, 3, 4, 5], [5, 6, 7, 8, 9], [8, 7, 6, 5, 4], [4, 3, 2, 1, 0]]]] * 2


def present(past, update, write_indices, axis=-2, mode="linear"):
    """The schema's pseudocode: update[b, ..., s, ...] lands at cache index write_indices[b] + s (mod max in circular)."""
    axis %= past.ndim
    out = past.copy()
    max_len, seq_len = past.shape[axis], update.shape[axis]
    for b in range(past.shape[0]):
        start = 0 if write_indices is None else int(write_indices[b])
        for s in range(seq_len):
            c = start + s
            if mode == "circular":
                c %= max_len
            to = (b,) + (slice(None),) * (axis - 1) + (c,)
            frm = (b,) + (slice(None),) * (axis - 1) + (s,)
            out[to] = update[frm]
    return out


def _doc_or_data(t, doc, rng):
    doc = np.asarray(doc, dtype=np.float64)
    return doc.astype(np.float32) if t.dtype == "float" else data(t, doc.shape, rng)


def _case(v, past, update, write_indices=None, axis=None, mode=None):
    attrs = {k: a for k, a in (("axis", axis), ("mode", mode)) if a is not None}
    w = None if write_indices is None else np.array(write_indices, dtype=np.int64)
    return OPERATOR.expect(v, {"past_cache": past, "update": update, "write_indices": w}, attrs)


@OPERATOR.example
def tensorscatter(v, t, rng):
    past = _doc_or_data(t, CACHE, rng)
    update = _doc_or_data(t, [[[[5] * 5]], [[[1] * 5]]], rng)
    return _case(v, past, update, [1, 2], mode="linear")


@OPERATOR.example
def circular(v, t, rng):
    """The second batch starts at 3 of 4: its second row wraps to index 0."""
    past = _doc_or_data(t, CACHE, rng)
    update = _doc_or_data(t, [[[[5] * 5, [6] * 5]], [[[1] * 5, [2] * 5]]], rng)
    return _case(v, past, update, [1, 3], mode="circular")


@OPERATOR.example(name="3d")
def three_d(v, t, rng):
    """Rank 3 with the default axis -2 and mode."""
    row = [[1, 2, 3, 4, 5], [5, 6, 7, 8, 9], [8, 7, 6, 5, 4], [5, 4, 3, 2, 1]]
    past = _doc_or_data(t, [row] * 3, rng)
    update = _doc_or_data(t, [[[4] * 5, [5] * 5], [[6] * 5, [7] * 5], [[2] * 5, [3] * 5]], rng)
    return _case(v, past, update, [1, 2, 0])


@OPERATOR.example
def without_write_indices(v, t, rng):
    """The prefill: write_indices left out ("assumed to be zero"), rank 2, axis -1, odd element counts."""
    return _case(v, data(t, (3, 5), rng), data(t, (3, 3), rng), axis=-1)


@OPERATOR.example
def circular_axis_1(v, t, rng):
    """A positive axis before two trailing dimensions; the first batch wraps past the end."""
    return _case(v, data(t, (2, 4, 1, 3), rng), data(t, (2, 3, 1, 3), rng), [2, 0], axis=1, mode="circular")


@OPERATOR.example
def empty_update(v, t, rng):
    """sequence_length 0: nothing is written."""
    return _case(v, data(t, (2, 3, 3), rng), data(t, (2, 0, 3), rng), [1, 3])


@OPERATOR.rejection
def linear_past_the_end(v, t, rng):
    past, update = data(t, (2, 4, 3), rng), data(t, (2, 2, 3), rng)
    w = np.array([1, 3], dtype=np.int64)  # 3 + 2 > 4
    return OPERATOR.reject(v, {"past_cache": past, "update": update, "write_indices": w}, {"mode": "linear"},
                           {"present_cache": declared(t.dtype, 3)})
