"""OneHot: a new axis of size depth holding on_value where the index points and off_value elsewhere."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, rule


OPERATOR = Operator("OneHot", primary="T3", defaults={"T1": "int64", "T2": "float"})


@OPERATOR.semantics
def one_hot(v, attrs, inputs):
    """A new axis of size depth at `axis` (default -1, 'Accepted range is [-r-1, r]' from version 11) holding
    on_value where the index points and off_value elsewhere; an index outside [0, depth) (from version 11
    [-depth, depth-1]) gives off_value all along. Non-integer indices and depth are 'casted to int64'."""
    values = inputs["values"]
    if values.ndim != 1 or values.size != 2:
        raise Rejected(rule(v, r"^Rank 1 tensor containing exactly two elements"))
    depth_in = np.asarray(inputs["depth"])
    if depth_in.ndim > 1 or depth_in.size != 1:
        raise Rejected(rule(v, r"^Scalar or [Rr]ank 1 tensor containing exactly one element"))
    depth = _as_int64(depth_in.reshape(-1), "depth")[0]
    if depth < 0:
        raise Undefined(f"depth {depth}: the size of the one-hot dimension cannot be negative")
    idx = _as_int64(np.asarray(inputs["indices"]), "indices")
    if v.since_version < 11 and idx.size and idx.min() < 0:
        raise Rejected(rule(v, r"The values must be non-negative integers"))
    rank = idx.ndim
    axis = attr(attrs, "axis", -1)
    if not -rank - 1 <= axis <= rank:
        if v.since_version >= 11:
            raise Rejected(rule(v, r"Accepted range is \[-r-1, r\]"))
        raise Undefined(f"OneHot-{v.since_version}: indices of rank {rank} have no axis {axis} to insert")
    return {"output": _oracle(v, idx, depth, values, axis)}


def _as_int64(x: np.ndarray, name: str) -> np.ndarray:
    """'In case ... is of non-integer type, the values will be casted to int64 before use' (Cast: toward zero)."""
    if x.dtype.kind in "iu":
        return x.astype(np.int64)
    wide = x.astype(np.float64)
    if not np.isfinite(wide).all() or (np.abs(wide) >= 2.0 ** 63).any():
        raise Undefined(f"{name} {wide.tolist()}: a NaN, an infinity or a value past int64 has no int64 cast")
    return np.trunc(wide).astype(np.int64)


def _values(t, off, on):
    """[off_value, on_value], the documented numbers rounded once to T3 (bool: nonzero is true)."""
    if t["T3"] == "string":
        return np.array([str(off), str(on)], dtype=object)
    if t["T3"] == "bool":
        return np.array([bool(off), bool(on)])
    return np.array([off, on], dtype=t.np("T3"))


def _oracle(v, indices, depth: int, values, axis: int):
    """Each index wraps once by depth where the version allows negative ones; anything else out of
    range selects off_value everywhere along the new axis."""
    idx = np.array(indices, dtype=np.int64)
    lowest = -depth if v.since_version >= 11 else 0
    wrapped = np.where(idx < 0, idx + depth, idx)
    valid = (idx >= lowest) & (idx < depth)
    rank = idx.ndim
    axis = axis + rank + 1 if axis < 0 else axis
    positions = np.arange(depth).reshape((1,) * axis + (depth,) + (1,) * (rank - axis))
    hit = (np.expand_dims(wrapped, axis) == positions) & np.expand_dims(valid, axis)
    return values[hit.astype(np.int64)]


def _case(v, t, indices, depth, values, axis=None, depth_shape=()):
    if t["T1"].startswith("uint") and np.min(np.array(indices, dtype=np.int64), initial=0) < 0:
        return NotApplicable(f"negative indices are not representable in {t['T1']}")
    if v.since_version < 11 and np.min(np.array(indices, dtype=np.int64), initial=0) < 0:
        return NotApplicable("OneHot-9 indices: 'The values must be non-negative integers.'")
    attrs = {} if axis is None else {"axis": axis}
    inputs = {"indices": np.array(indices, dtype=np.int64).astype(t.np("T1")),
              "depth": np.array(depth, dtype=t.np("T2")).reshape(depth_shape), "values": values}
    return OPERATOR.expect(v, inputs, attrs)


@OPERATOR.example
def without_axis(v, t, rng):
    """onnx's test_onehot_without_axis: indices [0, 7, 8], depth 12, values [2, 5]."""
    return _case(v, t, [0, 7, 8], 12, _values(t, 2, 5))


@OPERATOR.example
def with_axis(v, t, rng):
    """onnx's test_onehot_with_axis: indices [[1, 9], [2, 4]], depth 10, axis 1, values [1, 3]."""
    return _case(v, t, [[1, 9], [2, 4]], 10, _values(t, 1, 3), axis=1)


@OPERATOR.example
def negative_indices(v, t, rng):
    """onnx's test_onehot_negative_indices: indices [0, -7, -8], depth 10, axis 1: -7 is 3, -8 is 2."""
    return _case(v, t, [0, -7, -8], 10, _values(t, 1, 3), axis=1)


@OPERATOR.example
def out_of_range_indices(v, t, rng):
    """onnx's test_onehot_out_of_range_indices: [5, -6, -1] with depth 5: only -1 (= 4) is in [-depth, depth-1]."""
    return _case(v, t, [5, -6, -1], 5, _values(t, 1, 3), axis=1)


@OPERATOR.example
def with_negative_axis(v, t, rng):
    """onnx's test_onehot_with_negative_axis: axis -2 on indices [[1, 9], [2, 4]], depth 10."""
    return _case(v, t, [[1, 9], [2, 4]], 10, _values(t, 1, 3), axis=-2)


@OPERATOR.example
def values_of_type(v, t, rng):
    """off/on values from the type's own data (special encodings among them), axis 0, 3 x 5 output (odd)."""
    return _case(v, t, [4, 0, 2], 5, data(t, (2,), rng, "T3"), axis=0)


@OPERATOR.example
def depth_rank1(v, t, rng):
    """depth as a 'rank 1 tensor containing exactly one element'; 3 x 7 output (odd)."""
    return _case(v, t, [3, 6, 1], 7, _values(t, 0, 1), depth_shape=(1,))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    'Issues with types',
    'the evaluator computes y*(on-off)+off: it cannot subtract bool or string values, and calls int() on a rank-1 depth the spec allows',
)
OPERATOR.reference_differs(
    '^values_of_type \\w+: .*got nan',
    'the evaluator computes y*(on-off)+off, turning an inf or NaN on/off value into NaN everywhere; the spec selects on_value or off_value',
)
