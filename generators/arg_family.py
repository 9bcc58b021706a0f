"""ArgMax and ArgMin: the index of the first (or, with select_last_index, the last) extreme element along axis.

Ties are the point: the documented data [[2, 2], [3, 10]] has one, and select_last_index
(version 12 on) picks the other end of it. NaN is left out: the spec does not say where a NaN
ranks. -0.0 and 0.0 compare equal, so they tie.
"""

from __future__ import annotations

import math

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, rule

DOC = [[2, 2], [3, 10]]


class ArgOp(Operator):
    """ArgMax (largest=True) or ArgMin: its semantics and its examples are the family's."""

    def __init__(self, name: str, largest: bool):
        super().__init__(name)
        self.largest = largest
        self.semantics(self.arg)
        for example, fn in EXAMPLES.items():
            self.example(lambda v, t, rng, fn=fn: fn(self, v, t, rng), name=example)

    def arg(self, v, attrs, inputs):
        """reduced = the index along axis of the first extreme element (the last with
        select_last_index, from version 12), as int64; the axis kept as 1 unless keepdims = 0."""
        x = inputs["data"]
        axis = attr(attrs, "axis", 0)
        if not -x.ndim <= axis < x.ndim:
            raise Rejected(rule(v, r"^Accepted range", "axis") or f"axis {axis} names no dimension of data of rank {x.ndim}")
        if axis < 0 and v.since_version < 11:
            raise Undefined(f"{self.name}-{v.since_version} gives axis no negative values "
                            "('Accepted range is [-r, r-1]' is version 11's)")
        last = attr(attrs, "select_last_index", 0) if v.has_attribute("select_last_index") else 0
        return {"reduced": self.indices(x, axis % x.ndim, attr(attrs, "keepdims", 1), last)}

    def indices(self, x: np.ndarray, axis: int, keepdims: int, last: int) -> np.ndarray:
        """Exact comparison of the elements (as Python numbers: -0.0 == 0.0, int64 beyond 2**53 exact)."""
        moved = np.moveaxis(x, axis, -1)
        out = np.empty(moved.shape[:-1], dtype=np.int64)
        for idx in np.ndindex(*moved.shape[:-1]):
            row = [e.item() if values.is_int(x.dtype.name) else float(e) for e in moved[idx]]
            if not row:
                raise Undefined(f"{self.name} of no element: the spec names no index for an empty axis")
            if any(math.isnan(e) for e in row):
                raise Undefined("the spec does not say where a NaN ranks")
            best = max(row) if self.largest else min(row)
            hits = [i for i, e in enumerate(row) if e == best]
            out[idx] = hits[-1] if last else hits[0]
        return np.expand_dims(out, axis) if keepdims else out

    def make(self, v, x, axis=None, keepdims=None, last=None):
        if axis is not None and axis < 0 and v.since_version < 11:
            return NotApplicable(f"{self.name}-{v.since_version} gives axis no negative values "
                                 "('Accepted range is [-r, r-1]' is version 11's)")
        if last is not None and not v.has_attribute("select_last_index"):
            return NotApplicable(f"{self.name}-{v.since_version} has no select_last_index (added in version 12)")
        attrs = {k: a for k, a in (("axis", axis), ("keepdims", keepdims), ("select_last_index", last)) if a is not None}
        return self.expect(v, {"data": x}, attrs)


def doc(t):
    return np.array(DOC, dtype=np.float64).astype(t.np())


def tied(t, rng, shape=(2, 3, 4)):
    """Random data from a pool of four distinct values, so most rows hold a tie for the extreme."""
    pool = values.sample(t.dtype, (4,), rng, specials=False)
    return pool[rng.integers(0, 4, size=shape)]


def documented(axis, keepdims, last=None):
    return lambda op, v, t, rng: op.make(v, doc(t), axis, keepdims, last)


def random_(axis, keepdims, last=None):
    return lambda op, v, t, rng: op.make(v, tied(t, rng), axis, keepdims, last)


def specials(op, v, t, rng):
    """Infinities, the type's extremes, and a -0.0/0.0 tie (equal values: the first index wins)."""
    if values.is_int(t.dtype):
        lo, hi = values.int_range(t.dtype)
        x = np.array([[lo, hi, 0, hi], [lo, 1, lo, 0]], dtype=t.np())
    else:
        x = np.array([[-np.inf, np.inf, -0.0, np.inf], [0.0, -0.0, -np.inf, -np.inf]]).astype(t.np())
    return op.make(v, x, 1, 0)


EXAMPLES = {
    "no_keepdims_example": documented(1, 0),
    "keepdims_example": documented(1, 1),
    "default_axis_example": documented(None, 1),
    "negative_axis_keepdims_example": documented(-1, 1),
    "no_keepdims_example_select_last_index": documented(1, 0, 1),
    "keepdims_example_select_last_index": documented(1, 1, 1),
    "default_axis_example_select_last_index": documented(None, 1, 1),
    "negative_axis_keepdims_example_select_last_index": documented(-1, 1, 1),
    "keepdims_random": random_(2, 1),
    # keepdims left out: 'Keep the reduced dimension or not, default 1 means keep reduced dimension.'
    "keepdims_omitted_random": random_(2, None),
    "no_keepdims_random_select_last_index": random_(1, 0, 1),
    "specials": specials,
}
