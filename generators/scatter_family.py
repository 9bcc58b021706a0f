"""What Scatter, ScatterElements and ScatterND share: exact scatter oracles, the reduction rules, the documented examples."""

from __future__ import annotations

import re

import numpy as np

from onnx_conformance.generators.case import Case, NotApplicable, once_per_version
from onnx_conformance.generators.movement import data, declared, indices
from onnx_conformance.generators.spec import versions
from onnx_conformance.generators.values import int_range, is_int

NO_ARITHMETIC = ("string", "bool")  # ONNX's Add, Mul, Max and Min accept neither
UNORDERED = ("complex64", "complex128")


class Overflow(ValueError):
    """An exact reduction result outside the element type's range: the spec defines no wrap-around."""


# ---------------------------------------------------------------------------------------------
# oracles: copy `data`, then write each update at its target, in the type, one step at a time


def _combine(old, new, reduction: str, type_name: str):
    if reduction == "none":
        return new
    if is_int(type_name):  # Python ints: exact, then checked against the range
        a, b = int(old), int(new)
        got = {"add": a + b, "mul": a * b, "max": max(a, b), "min": min(a, b)}[reduction]
        lo, hi = int_range(type_name)
        if not lo <= got <= hi:
            raise Overflow(f"the exact result {got} is outside {type_name}'s range [{lo}, {hi}]")
        return got
    if reduction == "add":
        return old + new
    if reduction == "mul":
        return old * new
    return max(old, new) if reduction == "max" else min(old, new)


def elements(x: np.ndarray, idx: np.ndarray, upd: np.ndarray, axis: int, type_name: str,
             reduction: str = "none") -> np.ndarray:
    """ScatterElements: output[i with i[axis] = indices[i]] = f(output[...], updates[i])."""
    out = x.copy()
    axis %= x.ndim
    for pos in np.ndindex(idx.shape):
        target = list(pos)
        target[axis] = int(idx[pos]) % x.shape[axis]  # negative counts from the back
        target = tuple(target)
        out[target] = _combine(out[target], upd[pos], reduction, type_name)
    return out


def nd(x: np.ndarray, idx: np.ndarray, upd: np.ndarray, type_name: str, reduction: str = "none") -> np.ndarray:
    """ScatterND: output[indices[i]] = f(output[indices[i]], updates[i]), element by element of each slice."""
    out = x.copy()
    k = idx.shape[-1]
    for pos in np.ndindex(idx.shape[:-1]):
        head = tuple(int(j) % x.shape[d] for d, j in enumerate(idx[pos]))
        for tail in np.ndindex(x.shape[k:]):
            out[head + tail] = _combine(out[head + tail], upd[pos + tail], reduction, type_name)
    return out


# ---------------------------------------------------------------------------------------------
# which reductions a (version, type) has


def reduction_na(v, t, reduction: str, duplicates: bool = True) -> NotApplicable | None:
    if not v.has_attribute("reduction"):
        reason = f"{v.op}-{v.since_version} has no `reduction` attribute (it comes with version 16)"
        if duplicates:  # the example's repeated index would then be a plain write, in no stated order
            later = next(x for x in versions(v.op) if x.has_attribute("reduction"))
            rule = v.sentence(r"should not have duplicate entries") or (
                f"{v.op}-{later.since_version}: " + later.sentence(r"should not have duplicate entries"))
            reason += f"; without one, duplicate indices are not allowed: \"{rule}\""
        return NotApplicable(reason)
    allowed = v.schema.attributes["reduction"].description
    if not re.search(rf"\b{reduction}\b", allowed.split(".")[0]):
        return NotApplicable(f"version {v.since_version} allows no '{reduction}' reduction: \"{allowed.split('.')[0]}.\"")
    if t.dtype in NO_ARITHMETIC:
        return NotApplicable(f"the reduction f is \"`+`, `*`, `max` or `min`\", arithmetic ONNX defines for no "
                             f"{t.dtype} tensor (Add, Mul, Max and Min do not accept it)")
    if reduction in ("max", "min") and t.dtype in UNORDERED:
        return NotApplicable(f"'{reduction}' needs an order, which {t.dtype} values do not have "
                             "(ONNX's Max and Min do not accept complex types)")
    return None


def io_sentence(v, name: str, pattern: str) -> str:
    """The sentence of an input's description (or of the doc) that states a rule."""
    for formal in v.schema.inputs:
        if formal.name == name:
            for s in re.split(r"(?<=\.)\s+", " ".join(formal.description.split())):
                if re.search(pattern, s):
                    return s
    found = v.sentence(pattern)
    if found is None:
        raise LookupError(f"{v.op}-{v.since_version}: no sentence matches {pattern!r}")
    return found


# ---------------------------------------------------------------------------------------------
# documented data: the doc's own numbers in float (the type it writes them in), typed data elsewhere


def doc_or_data(t, doc, rng, specials: bool = True) -> np.ndarray:
    doc = np.asarray(doc, dtype=np.float64)
    if t.dtype == "float":
        return doc.astype(np.float32)
    return data(t, doc.shape, rng, specials=specials)


# ---------------------------------------------------------------------------------------------
# Scatter / ScatterElements examples (the same operator under two names; reduction from version 16)


def _elements_case(v, t, x, idx_values, upd, axis=None, reduction=None):
    idx = indices(idx_values, t["Tind"]).reshape(np.shape(upd))
    attrs = {} if axis is None else {"axis": axis}
    if reduction is not None:
        attrs["reduction"] = reduction
    try:
        y = elements(x, idx, upd, 0 if axis is None else axis, t.dtype, reduction or "none")
    except Overflow as e:
        return NotApplicable(f"{e}, and the spec does not define overflow")
    return Case({"data": x, "indices": idx, "updates": upd}, {"output": y}, attrs)


def without_axis(v, t, rng):
    x = doc_or_data(t, np.zeros((3, 3)), rng)
    upd = doc_or_data(t, [[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]], rng)
    return _elements_case(v, t, x, [[1, 0, 2], [0, 2, 1]], upd)


def with_axis(v, t, rng):
    x = doc_or_data(t, [[1.0, 2.0, 3.0, 4.0, 5.0]], rng)
    upd = doc_or_data(t, [[1.1, 2.1]], rng)
    return _elements_case(v, t, x, [[1, 3]], upd, axis=1)


def with_negative_indices(v, t, rng):
    if "[-s, s-1]" not in next(i.description for i in v.schema.inputs if i.name == "indices"):
        return NotApplicable(f"{v.op}-{v.since_version} states no negative index range (its indices are "
                             "\"Tensor of int32/int64 indices, of r >= 1 (same rank as input).\"); "
                             "\"within bounds [-s, s-1]\" comes with version 11")
    x = doc_or_data(t, [[1.0, 2.0, 3.0, 4.0, 5.0]], rng)
    upd = doc_or_data(t, [[1.1, 2.1]], rng)
    return _elements_case(v, t, x, [[1, -3]], upd, axis=1)


def negative_axis(v, t, rng):
    """axis -1 of a rank-3 tensor, indices shorter than data along axis 0, odd element counts."""
    x = data(t, (3, 1, 5), rng)
    upd = data(t, (2, 1, 3), rng)
    idx = [[[4, 0, 2]], [[1, 3, 0]]]
    return _elements_case(v, t, x, idx, upd, axis=-1)


def empty_indices(v, t, rng):
    """indices and updates with a zero dimension: nothing is written, the output is data."""
    x = data(t, (2, 3), rng)
    upd = data(t, (2, 0), rng)
    return _elements_case(v, t, x, np.zeros((2, 0), np.int64), upd, axis=1)


def _elements_reduction(v, t, rng, reduction):
    na = reduction_na(v, t, reduction)
    if na:
        return na
    x = doc_or_data(t, [[1.0, 2.0, 3.0, 4.0, 5.0]], rng)
    if t.dtype == "float":
        upd = np.array([[1.1, 2.1]], np.float32)  # float32: both orders of the two updates round alike
    else:  # the doc's 1.1 and 2.1 are not exact elsewhere and float16 sums them order-dependently
        x = np.array([[1, 2, 3, 4, 5]]).astype(t.np())
        upd = np.array([[3, 2]]).astype(t.np())
    return _elements_case(v, t, x, [[1, 1]], upd, axis=1, reduction=reduction)


def with_duplicate_indices(v, t, rng):
    return _elements_reduction(v, t, rng, "add")


def with_reduction_mul(v, t, rng):
    return _elements_reduction(v, t, rng, "mul")


def with_reduction_max(v, t, rng):
    return _elements_reduction(v, t, rng, "max")


def with_reduction_min(v, t, rng):
    return _elements_reduction(v, t, rng, "min")


def out_of_range_indices(v, t, rng):
    na = once_per_version(v, t)
    if na:
        return na
    if "out of bounds" not in next(i.description for i in v.schema.inputs if i.name == "indices"):
        return NotApplicable(f"{v.op}-{v.since_version} states no index range (its indices are \"Tensor of "
                             "int32/int64 indices, of r >= 1 (same rank as input).\"); \"It is an error if any of "
                             "the index values are out of bounds.\" comes with version 11")
    rule = io_sentence(v, "indices", r"error if any of the index values are out of bounds")
    x = data(t, (1, 5), rng)
    upd = data(t, (1, 2), rng)
    idx = indices([[1, 5]], t["Tind"])
    return Case({"data": x, "indices": idx, "updates": upd}, {"output": declared(t.dtype, 2)}, {"axis": 1},
                error=rule)


# ---------------------------------------------------------------------------------------------
# ScatterND examples (the doc's Example 2 data: every value is a small integer, exact in every numeric type)

ND_DATA = [[[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
           [[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
           [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]],
           [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]]]
ND_UPDATES = [[[5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8]],
              [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]]]


def _nd_case(t, x, idx_values, upd, reduction=None):
    idx = np.array(idx_values, dtype=np.int64)
    if idx.ndim == 1:
        idx = idx.reshape(-1, 1)
    try:
        y = nd(x, idx, upd, t.dtype, reduction or "none")
    except Overflow as e:
        return NotApplicable(f"{e}, and the spec does not define overflow")
    return Case({"data": x, "indices": idx, "updates": upd}, {"output": y},
                {} if reduction is None else {"reduction": reduction})


def scatternd(v, t, rng):
    """Example 2: k = 1 < rank 3, each index replaces a 4x4 slice."""
    return _nd_case(t, doc_or_data(t, ND_DATA, rng), [[0], [2]], doc_or_data(t, ND_UPDATES, rng))


def _nd_reduction(v, t, reduction):
    na = reduction_na(v, t, reduction)
    if na:
        return na
    x, upd = np.array(ND_DATA).astype(t.np()), np.array(ND_UPDATES).astype(t.np())
    return _nd_case(t, x, [[0], [0]], upd, reduction)


def add(v, t, rng):
    return _nd_reduction(v, t, "add")


def multiply(v, t, rng):
    return _nd_reduction(v, t, "mul")


def nd_max(v, t, rng):
    return _nd_reduction(v, t, "max")


def nd_min(v, t, rng):
    return _nd_reduction(v, t, "min")


def _nd_element_reduction(v, t, reduction):
    """k = rank: each index names one element."""
    na = reduction_na(v, t, reduction, duplicates=False)
    if na:
        return na
    x, upd = np.array([[1, 2], [3, 4]]).astype(t.np()), np.array([5, 1]).astype(t.np())
    return _nd_case(t, x, [[0, 0], [1, 1]], upd, reduction)


def max_with_element_indices(v, t, rng):
    return _nd_element_reduction(v, t, "max")


def min_with_element_indices(v, t, rng):
    return _nd_element_reduction(v, t, "min")


def nd_negative_indices(v, t, rng):
    """"Index values are allowed to be negative": element indices, some negative, odd element counts."""
    x = data(t, (3, 5), rng)
    upd = data(t, (3,), rng)
    return _nd_case(t, x, [[-1, 2], [0, -5], [-3, 4]], upd)


def nd_empty_indices(v, t, rng):
    """No index tuples at all (indices shape [0, 1]): the output is data."""
    x = data(t, (3, 5), rng)
    return _nd_case(t, x, np.zeros((0, 1), np.int64), data(t, (0, 5), rng))


def nd_out_of_range_indices(v, t, rng):
    na = once_per_version(v, t)
    if na:
        return na
    rule = v.sentence(r"expected in the valid range")
    x = data(t, (3, 5), rng)
    upd = data(t, (1, 5), rng)
    idx = np.array([[3]], dtype=np.int64)
    return Case({"data": x, "indices": idx, "updates": upd}, {"output": declared(t.dtype, 2)}, error=rule)
