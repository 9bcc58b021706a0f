"""What Scatter, ScatterElements and ScatterND share: the scatter semantics, the reduction and duplicate-index rules, the documented examples."""

from __future__ import annotations

import functools
import itertools
import math
import re
from fractions import Fraction

import numpy as np

from onnx_conformance.generators.case import NotApplicable, once_per_version, type_of
from onnx_conformance.generators.movement import axis_in, data, declared, indices
from onnx_conformance.generators.rounding import round_to
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, described, rule, sentences
from onnx_conformance.generators.spec import versions
from onnx_conformance.generators.values import int_range, is_int

NO_ARITHMETIC = ("string", "bool")  # ONNX's Add, Mul, Max and Min accept neither
UNORDERED = ("complex64", "complex128")
# Orders of the updates to one element tried, at most, to show a float reduction does not depend on
# their order ("The order of iteration in the above loop is not specified"): 6! = 720.
MAX_ORDERED = 6


# ---------------------------------------------------------------------------------------------
# the semantics: copy `data`, then write or reduce each update at its target


def scatter_elements(v, attrs, inputs):
    """Scatter / ScatterElements: output[i with i[axis] = indices[i]] = f(output[...], updates[i]), f the
    reduction (none: the update itself). Indices in [-s, s-1] from version 11 ("It is an error if any of
    the index values are out of bounds"), in [0, s-1] before (which states no range: others are undefined)."""
    x, idx, upd = inputs["data"], np.asarray(inputs["indices"], np.int64), inputs["updates"]
    reduction = reduction_of(v, attrs, x)
    if x.ndim < 1:
        raise Rejected("data: " + described(v, "data"))
    axis = axis_in(attr(attrs, "axis", 0), x.ndim, "axis: " + described(v, "axis"))
    if idx.ndim != x.ndim or np.shape(upd) != idx.shape:
        raise Rejected("indices, updates: " + described(v, "updates") + "; indices: " + described(v, "indices"))
    if any(idx.shape[d] > x.shape[d] for d in range(x.ndim) if d != axis):
        raise Rejected(v.sentence(r"index-value for dimension != axis"))
    s = x.shape[axis]
    stated = "[-s, s-1]" in described(v, "indices")
    if idx.size and (idx.min() < (-s if stated else 0) or idx.max() > s - 1):
        if stated:
            raise Rejected(rule(v, r"error if any of the index values are out of bounds", "indices"))
        raise Undefined(f"{v.op}-{v.since_version} states no range for indices (\"{described(v, 'indices')}\"): "
                        "an index outside [0, s-1] has no stated meaning")
    writes = []
    for pos in np.ndindex(idx.shape):
        target = list(pos)
        target[axis] = int(idx[pos]) % s
        writes.append((tuple(target), upd[pos]))
    return {"output": scatter(v, x, writes, reduction)}


def reduction_of(v, attrs: dict, x: np.ndarray) -> str:
    """The reduction the node asks for, among those the version lists, on a type that has it."""
    reduction = attr(attrs, "reduction", "none")
    if not v.has_attribute("reduction"):
        if reduction != "none":
            raise Rejected(_no_reduction(v))
        return reduction
    allowed = _allowed(v)
    if reduction not in re.findall(r"\b(none|add|mul|max|min)\b", allowed):
        raise Rejected(f"reduction: \"{allowed}\" (given '{reduction}')")
    lacks = _lacks(reduction, type_of(x))
    if lacks:
        raise Undefined(lacks)
    return reduction


def _no_reduction(v) -> str:
    return f"{v.op}-{v.since_version} has no `reduction` attribute (it comes with version 16)"


def _allowed(v) -> str:
    """The first sentence of reduction's description: the reductions this version lists."""
    return sentences(described(v, "reduction"))[0]


def _lacks(reduction: str, kind: str) -> str | None:
    """Why a tensor of `kind` has no such reduction, or None."""
    if reduction != "none" and kind in NO_ARITHMETIC:
        return (f"the reduction f is \"`+`, `*`, `max` or `min`\", arithmetic ONNX defines for no "
                f"{kind} tensor (Add, Mul, Max and Min do not accept it)")
    if reduction in ("max", "min") and kind in UNORDERED:
        return (f"'{reduction}' needs an order, which {kind} values do not have "
                "(ONNX's Max and Min do not accept complex types)")
    return None


def scatter(v, x: np.ndarray, writes: list, reduction: str) -> np.ndarray:
    """A copy of x with each (target, update) of `writes` (in the spec's loop order) written or reduced in.

    The spec leaves the order of the loop open, so a target written more than once must come out the
    same in every order: with no reduction, duplicates are what the version rules out ("should not have
    duplicate entries"; where it says nothing, writes of different values have no defined result);
    an integer reduction must stay in range in every order; a float add or mul must round alike in every order.
    """
    kind = type_of(x)
    out = x.copy()
    by_target = {}
    for target, u in writes:
        by_target.setdefault(target, []).append(u)
    for target, us in by_target.items():
        if reduction == "none":
            if len(us) > 1:
                _duplicates(v, us)
            out[target] = us[-1]
        elif is_int(kind):
            out[target] = _int_reduce(int(out[target]), [int(u) for u in us], reduction, kind)
        else:
            out[target] = _float_reduce(out[target], us, reduction, kind)
    return out


def _duplicates(v, us: list) -> None:
    """Several writes to one element with no reduction: what the version says of duplicate indices."""
    rule = v.sentence(r"should not have duplicate entries")
    if rule:
        raise Undefined(rule)
    if any(not _same(us[0], u) for u in us[1:]):
        raise Undefined(f"{v.op}-{v.since_version} fixes no order for the updates, and several different "
                        "values are written to one element: the result depends on which is written last")


def _int_reduce(old: int, us: list, reduction: str, kind: str) -> int:
    """An integer reduction, exact; every order's partial results (data combined with any subset of
    the updates) must lie in the type's range: the spec defines no overflow."""
    lo_seen = hi_seen = old
    for u in us:
        if reduction == "add":
            lo_seen, hi_seen = lo_seen + min(u, 0), hi_seen + max(u, 0)
        elif reduction == "mul":
            ends = (lo_seen * u, hi_seen * u)
            lo_seen, hi_seen = min(lo_seen, *ends), max(hi_seen, *ends)
    lo, hi = int_range(kind)
    if lo_seen < lo or hi_seen > hi:
        raise Undefined(f"a partial result of the reduction ({lo_seen if lo_seen < lo else hi_seen}) in some order "
                        f"of the updates is outside {kind}'s range [{lo}, {hi}], and the spec does not define overflow")
    out = old
    for u in us:
        out = {"add": out + u, "mul": out * u, "max": max(out, u), "min": min(out, u)}[reduction]
    return out


def _float_reduce(old, us: list, reduction: str, kind: str):
    """A float (or complex) reduction, each step rounded once to the type; with several updates, every
    order of them must give the same value (max and min always do)."""
    first = _fold(old, us, reduction, kind)
    if len(us) > 1 and reduction in ("add", "mul") and any(not _same(us[0], u) for u in us[1:]):
        if len(us) > MAX_ORDERED:
            raise Undefined(f"{len(us)} updates reduced into one element in an order the spec leaves open; "
                            f"orders of more than {MAX_ORDERED} are not compared, so their roundings may differ")
        for order in itertools.permutations(range(len(us))):
            if not _same(first, _fold(old, [us[i] for i in order], reduction, kind)):
                raise Undefined("the updates to one element round differently in different orders, and "
                                "\"The order of iteration in the above loop is not specified\"")
    return first


def _fold(old, us: list, reduction: str, kind: str):
    """The updates reduced into old in the order given, one rounding per step."""
    out = old
    for u in us:
        out = _step(out, u, reduction, kind)
    return out


def _step(a, b, reduction: str, kind: str):
    """f(a, b) rounded once to the type: IEEE's + and * (numpy rounds float16 and bfloat16 from float32,
    which holds their exact sums' and products' roundings), a complex product rounded per component from
    its exact value; max and min as IEEE 754-2019's maximum and minimum (NaN wins, +0 above -0)."""
    if reduction == "add":
        return a + b
    if reduction == "mul":
        if kind in UNORDERED and all(math.isfinite(p) for p in (a.real, a.imag, b.real, b.imag)):
            part = "float" if kind == "complex64" else "double"
            ar, ai, br, bi = (Fraction(float(p)) for p in (a.real, a.imag, b.real, b.imag))
            re_ = round_to(ar * br - ai * bi, part)
            im = round_to(ar * bi + ai * br, part)
            return np.array(complex(float(re_), float(im))).astype(a.dtype)[()]
        return a * b
    fa, fb = float(a), float(b)
    if math.isnan(fa):
        return a
    if math.isnan(fb):
        return b
    if fa == fb:  # equal, or zeros of either sign
        neg = math.copysign(1, fa) < 0, math.copysign(1, fb) < 0
        pick_a = (neg[0] <= neg[1]) if reduction == "max" else (neg[0] >= neg[1])
        return a if pick_a else b
    return a if (fa > fb) == (reduction == "max") else b


def _same(a, b) -> bool:
    """The same value: bit for bit (any NaN alike)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == object:
        return a.item() == b.item()
    if a.dtype.kind == "c":
        both_nan = np.isnan(a) and np.isnan(b)
    elif a.dtype.kind in "iub":
        both_nan = False
    else:
        both_nan = np.isnan(a.astype(np.float64)) and np.isnan(b.astype(np.float64))
    return bool(both_nan) or a.tobytes() == b.tobytes()


# ---------------------------------------------------------------------------------------------
# which reductions a (version, type) has


def reduction_na(v, t, reduction: str, duplicates: bool = True) -> NotApplicable | None:
    if not v.has_attribute("reduction"):
        reason = _no_reduction(v)
        if duplicates:  # the example's repeated index would then be a plain write, in no stated order
            later = next(x for x in versions(v.op) if x.has_attribute("reduction"))
            rule = v.sentence(r"should not have duplicate entries") or (
                f"{v.op}-{later.since_version}: " + later.sentence(r"should not have duplicate entries"))
            reason += f"; without one, duplicate indices are not allowed: \"{rule}\""
        return NotApplicable(reason)
    allowed = _allowed(v)
    if not re.search(rf"\b{reduction}\b", allowed):
        return NotApplicable(f"version {v.since_version} allows no '{reduction}' reduction: \"{allowed}\"")
    lacks = _lacks(reduction, t.dtype)
    return NotApplicable(lacks) if lacks else None


# ---------------------------------------------------------------------------------------------
# documented data: the doc's own numbers in float (the type it writes them in), typed data elsewhere


def doc_or_data(t, doc, rng, specials: bool = True) -> np.ndarray:
    doc = np.asarray(doc, dtype=np.float64)
    if t.dtype == "float":
        return doc.astype(np.float32)
    return data(t, doc.shape, rng, specials=specials)


def expect_defined(op, v, inputs: dict, attrs: dict | None = None):
    """The operator's case on these inputs, or, where the spec defines no value (an overflow), not
    applicable with the semantics' reason."""
    try:
        return op.expect(v, inputs, attrs)
    except Undefined as e:
        return NotApplicable(e.reason)


def bound(op, example):
    """A family example written for any operator (example(op, v, t, rng)), as `op`'s example."""
    @functools.wraps(example)
    def run(v, t, rng):
        return example(op, v, t, rng)

    return run


# ---------------------------------------------------------------------------------------------
# Scatter / ScatterElements examples (the same operator under two names; reduction from version 16)


def _elements_case(op, v, t, x, idx_values, upd, axis=None, reduction=None):
    idx = indices(idx_values, t["Tind"]).reshape(np.shape(upd))
    attrs = {} if axis is None else {"axis": axis}
    if reduction is not None:
        attrs["reduction"] = reduction
    return expect_defined(op, v, {"data": x, "indices": idx, "updates": upd}, attrs)


def without_axis(op, v, t, rng):
    x = doc_or_data(t, np.zeros((3, 3)), rng)
    upd = doc_or_data(t, [[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]], rng)
    return _elements_case(op, v, t, x, [[1, 0, 2], [0, 2, 1]], upd)


def with_axis(op, v, t, rng):
    x = doc_or_data(t, [[1.0, 2.0, 3.0, 4.0, 5.0]], rng)
    upd = doc_or_data(t, [[1.1, 2.1]], rng)
    return _elements_case(op, v, t, x, [[1, 3]], upd, axis=1)


def with_negative_indices(op, v, t, rng):
    if "[-s, s-1]" not in described(v, "indices"):
        return NotApplicable(f"{v.op}-{v.since_version} states no negative index range (its indices are "
                             "\"Tensor of int32/int64 indices, of r >= 1 (same rank as input).\"); "
                             "\"within bounds [-s, s-1]\" comes with version 11")
    x = doc_or_data(t, [[1.0, 2.0, 3.0, 4.0, 5.0]], rng)
    upd = doc_or_data(t, [[1.1, 2.1]], rng)
    return _elements_case(op, v, t, x, [[1, -3]], upd, axis=1)


def negative_axis(op, v, t, rng):
    """axis -1 of a rank-3 tensor, indices shorter than data along axis 0, odd element counts."""
    x = data(t, (3, 1, 5), rng)
    upd = data(t, (2, 1, 3), rng)
    idx = [[[4, 0, 2]], [[1, 3, 0]]]
    return _elements_case(op, v, t, x, idx, upd, axis=-1)


def empty_indices(op, v, t, rng):
    """indices and updates with a zero dimension: nothing is written, the output is data."""
    x = data(t, (2, 3), rng)
    upd = data(t, (2, 0), rng)
    return _elements_case(op, v, t, x, np.zeros((2, 0), np.int64), upd, axis=1)


def _elements_reduction(op, v, t, rng, reduction):
    na = reduction_na(v, t, reduction)
    if na:
        return na
    x = doc_or_data(t, [[1.0, 2.0, 3.0, 4.0, 5.0]], rng)
    if t.dtype == "float":
        upd = np.array([[1.1, 2.1]], np.float32)  # float32: both orders of the two updates round alike
    else:  # the doc's 1.1 and 2.1 are not exact elsewhere and float16 sums them order-dependently
        x = np.array([[1, 2, 3, 4, 5]]).astype(t.np())
        upd = np.array([[3, 2]]).astype(t.np())
    return _elements_case(op, v, t, x, [[1, 1]], upd, axis=1, reduction=reduction)


def with_duplicate_indices(op, v, t, rng):
    return _elements_reduction(op, v, t, rng, "add")


def with_reduction_mul(op, v, t, rng):
    return _elements_reduction(op, v, t, rng, "mul")


def with_reduction_max(op, v, t, rng):
    return _elements_reduction(op, v, t, rng, "max")


def with_reduction_min(op, v, t, rng):
    return _elements_reduction(op, v, t, rng, "min")


def out_of_range_indices(op, v, t, rng):
    na = once_per_version(v, t)
    if na:
        return na
    if "out of bounds" not in described(v, "indices"):
        return NotApplicable(f"{v.op}-{v.since_version} states no index range (its indices are \"Tensor of "
                             "int32/int64 indices, of r >= 1 (same rank as input).\"); \"It is an error if any of "
                             "the index values are out of bounds.\" comes with version 11")
    x = data(t, (1, 5), rng)
    upd = data(t, (1, 2), rng)
    idx = indices([[1, 5]], t["Tind"])
    return op.reject(v, {"data": x, "indices": idx, "updates": upd}, {"axis": 1}, {"output": declared(t.dtype, 2)})
