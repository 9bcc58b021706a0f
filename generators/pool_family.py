"""Pooling: one window walker for AveragePool, MaxPool, LpPool (and the Global forms), exact oracles.

The walker turns (input spatial shape, kernel_shape, strides, pads, dilations, ceil_mode, auto_pad)
into the output spatial shape and, per output position, the input positions its window covers,
how many of its positions fall in the padding, and how many lie past the padding (a ceil_mode
window may reach there). Each version's own text decides:

- the output shape: the explicit-padding formula (floor, or ceil when ceil_mode is enabled), or
  the auto_pad formulas (SAME: ceil(in / stride); VALID: ceil((in - dilated kernel + 1) / stride));
- a last window that would start in the right padding (ceil_mode): the version 22 text says
  "Sliding windows that would start in the right padded region are ignored."; earlier versions
  count such a window in their output shape but give it no value (every position is padding, so
  max "exclude pad" and an average "exclude pad" have no elements): Undefined, no case emitted;
- version 11's text (AveragePool 11-18, MaxPool 10-21 before 19/22 rewrote it) gives with ceil_mode
  disabled SAME: floor(in / stride) and VALID: floor((in - dilated kernel + 1) / stride), while its
  auto_pad attribute says `output_shape[i] = ceil(input_shape[i] / strides[i])`: where the two
  differ for a case, the versions contradict themselves: Undefined, no case emitted.

Each operator's semantics function reads its windows from `pooling_windows` (the attributes' rules
checked there, Rejected quoting them) and reduces them here. Values are exact (Python ints, Fractions; NaN and infinities as floats) and rounded once.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import ml_dtypes
import mpmath
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.accuracy import accumulation, budget
from onnx_conformance.generators.case import Declared, NotApplicable
from onnx_conformance.generators.linalg_family import to_type
from onnx_conformance.generators.rounding import PREC, exact
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.harness.dtypes import name_of_numpy

IGNORED = "Sliding windows that would start in the right padded region are ignored."
FLOOR_SAME = "floor(input_spatial_shape[i] / strides_spatial_shape[i])"
EXCLUSIVE = "This attribute cannot be used simultaneously with auto_pad attribute."
NON_NEGATIVE = "it can take any value greater than or equal to 0"


@dataclass
class Axis:
    """One spatial axis: per output index, the window's input positions, pad count, past-pad count."""

    inside: list[list[int]]
    pad: list[int]
    beyond: list[int]
    begin: int  # the padding in effect at the beginning
    end: int


def axis(v, n: int, k: int, s: int, d: int, pb: int, pe: int, ceil_mode: int, auto_pad: str) -> Axis:
    dk = (k - 1) * d + 1
    if auto_pad in ("SAME_UPPER", "SAME_LOWER", "VALID"):
        if auto_pad == "VALID":
            out = -(-(n - dk + 1) // s)
            floor_out = (n - dk + 1) // s
        else:
            out = -(-n // s)
            floor_out = n // s
        if FLOOR_SAME in v.doc and not ceil_mode and floor_out != out:
            raise Undefined(f"{v.op}-{v.since_version}'s doc gives {auto_pad} with ceil_mode disabled the "
                            f"output size {floor_out} (floor), its auto_pad attribute "
                            f"'output_shape[i] = ceil(input_shape[i] / strides[i])' gives {out}: the text contradicts itself")
        if auto_pad == "VALID":
            pb = pe = 0
        else:
            total = max(0, (out - 1) * s + dk - n)
            small, large = total // 2, total - total // 2
            pb, pe = (small, large) if auto_pad == "SAME_UPPER" else (large, small)
    else:
        span = n + pb + pe - dk
        if span < 0:
            raise Rejected("Y: 'Dimensions will vary based on various kernel, stride, and pad sizes': a dilated "
                           "kernel larger than the padded input leaves no window")
        out = -(-span // s) + 1 if ceil_mode else span // s + 1
        if ceil_mode and out > 1 and (out - 1) * s - pb >= n:
            if IGNORED in v.doc:
                out -= 1
            else:
                raise Undefined(f"{v.op}-{v.since_version}: with ceil_mode the output shape formula counts a "
                                "window that starts in the right padding; the version gives that window no "
                                f"value (the sentence '{IGNORED}' is version 22's)")
    inside, pad, beyond = [], [], []
    for o in range(out):
        pos = [o * s - pb + j * d for j in range(k)]
        inside.append([p for p in pos if 0 <= p < n])
        pad.append(sum(1 for p in pos if -pb <= p < 0 or n <= p < n + pe))
        beyond.append(sum(1 for p in pos if p >= n + pe or p < -pb))
    return Axis(inside, pad, beyond, pb, pe)


@dataclass
class Window:
    positions: list[tuple[int, ...]]  # input spatial positions inside the input
    padded: int  # positions inside the input or its padding
    total: int  # all positions of the window


def windows(v, spatial, kernel, strides=None, pads=None, dilations=None, ceil_mode=0, auto_pad="NOTSET"):
    """The output spatial shape and, per output spatial index, its Window."""
    nd = len(spatial)
    strides = strides or [1] * nd
    pads = pads or [0] * (2 * nd)
    dilations = dilations or [1] * nd
    axes = [axis(v, spatial[i], kernel[i], strides[i], dilations[i], pads[i], pads[i + nd], ceil_mode,
                 auto_pad or "NOTSET") for i in range(nd)]
    shape = tuple(len(a.inside) for a in axes)
    out = {}
    for idx in itertools.product(*map(range, shape)):
        per = [a.inside[o] for a, o in zip(axes, idx)]
        padded = math.prod(len(a.inside[o]) + a.pad[o] for a, o in zip(axes, idx))
        out[idx] = Window(list(itertools.product(*per)), padded, math.prod(kernel))
    return shape, out, axes


# ---------------------------------------------------------------------------------------------
# reductions over a window's values (exact: int, Fraction; NaN/inf as floats)


def _value(e, is_int: bool):
    return int(e) if is_int else exact(float(e))


def exact_sum(xs):
    if all(not isinstance(x, float) for x in xs):
        return sum(xs, Fraction(0))
    if any(math.isnan(x) for x in xs if isinstance(x, float)):
        return math.nan
    signs = {math.copysign(1.0, x) for x in xs if isinstance(x, float)}
    return math.nan if len(signs) > 1 else signs.pop() * math.inf


def magnitude(xs) -> Fraction:
    return sum((abs(x) for x in xs if not isinstance(x, float)), Fraction(0))


def pool(x: np.ndarray, shape, wins, reduce):
    """reduce(values, window, flat_positions) per (n, c, output index) -> object array (N, C, *shape)."""
    n_, c_ = x.shape[:2]
    is_int = values.is_int(str(x.dtype)) if x.dtype.kind in "iu" else False
    out = np.empty((n_, c_, *shape), dtype=object)
    for n in range(n_):
        for c in range(c_):
            for idx, w in wins.items():
                xs = [_value(x[(n, c, *p)], is_int) for p in w.positions]
                out[(n, c, *idx)] = reduce(xs, w, [(n, c, *p) for p in w.positions])
    return out


def average(x, shape, wins, count_include_pad: int):
    """'The output of each pooling window is divided by the number of elements (exclude pad when
    attribute count_include_pad is zero).' Returns (exact result, largest window, largest sum of |terms|)."""
    mags = [Fraction(0)]

    def reduce(xs, w, _):
        if count_include_pad and w.padded != w.total:
            raise Undefined("a ceil_mode window reaches past the padding: the spec does not say whether "
                            "those positions count with count_include_pad")
        count = w.padded if count_include_pad else len(xs)
        if count == 0:
            raise Undefined("a window holds no element of the input")
        mags.append(magnitude(xs) / count)
        s = exact_sum(xs)
        return s / count if not isinstance(s, float) else s

    y = pool(x, shape, wins, reduce)
    return y, max(len(w.positions) for w in wins.values()) if wins else 1, max(mags)


def maximum(x, shape, wins, storage_order: int = 0, nan_propagates: bool = False):
    """The largest element of each window, padding excluded, and its index in the input taken as a
    flat row-major tensor ('The indices are computed as flatten 1-D tensor, and the indices do not
    consider padding'); storage_order 1 ('1 is column major'): the spatial index column-major, which the
    spec pins only for N = C = 1. A zero maximum keeps its sign: -0 where every zero among the window's
    largest is -0 (+0 is the larger of the two). The index is None where the spec names none: a window
    whose maximum is tied, or storage_order 1 with several images or channels. A NaN has no rank:
    Undefined; with `nan_propagates` (an operator without an index output that reads its maximum as
    IEEE 754-2019's maximum, as Max and ReduceMax do here) a window holding NaN is NaN."""
    index = np.empty((*x.shape[:2], *shape), dtype=np.int64)
    dims = x.shape
    unnamed = [storage_order and dims[0] * dims[1] > 1]

    def reduce(xs, w, where):
        if not xs:
            raise Undefined("a window holds no element of the input")
        if any(isinstance(e, float) and math.isnan(e) for e in xs):
            if nan_propagates:
                unnamed[0] = True
                return math.nan, 0
            raise Undefined("a window holds NaN: the spec does not say how NaN ranks in a maximum")
        best = max(range(len(xs)), key=lambda i: xs[i])
        ties = [i for i, e in enumerate(xs) if e == xs[best]]
        if len(ties) > 1:
            unnamed[0] = True
        value = xs[best]
        if value == 0 and values.is_float(name_of_numpy(x.dtype)):
            negative = [i for i in ties if math.copysign(1.0, float(x[where[i]])) < 0]
            if len(negative) == len(ties):
                value = -0.0
            else:
                best = next(i for i in ties if i not in negative)
        at = where[best]
        if storage_order:
            flat, stride = 0, 1
            for p, dmax in zip(at[2:], dims[2:]):
                flat += p * stride
                stride *= dmax
        else:
            flat = int(np.ravel_multi_index(at, dims))
        return value, flat

    pairs = pool(x, shape, wins, reduce)
    y = np.empty(pairs.shape, dtype=object)
    for idx in np.ndindex(*pairs.shape):
        y[idx], index[idx] = pairs[idx]
    return y, (None if unnamed[0] else index)


def lp(x, shape, wins, p):
    """(sum over the window of |x|^p)^(1/p), padding adding nothing; for an integer p the sum exact and one
    mpmath root, for a fractional p (LpPool-1's FLOAT p) the powers in mpmath at PREC bits.
    Returns (result as mpmath/Fraction, largest window, largest result)."""
    if p <= 0:
        raise Undefined(f"p = {p}: the Lp norm is a norm for p >= 1, and the spec gives no value for p <= 0")
    whole = float(p).is_integer()
    p = int(p) if whole else p
    biggest = [0.0]

    def reduce(xs, w, _):
        if not xs:
            raise Undefined("a window holds no element of the input")
        if any(isinstance(e, float) for e in xs):
            return math.nan if any(math.isnan(e) for e in xs if isinstance(e, float)) else math.inf
        if not whole:
            with mpmath.workprec(PREC):
                total = sum((mpmath.power(abs(mpmath.mpf(e.numerator) / e.denominator), p) for e in xs),
                            mpmath.mpf(0))
                r = mpmath.power(total, 1 / mpmath.mpf(p))
        else:
            s = sum((abs(e) ** p for e in xs), Fraction(0))
            if p == 1:
                r = s
            else:
                with mpmath.workprec(PREC):
                    r = mpmath.root(mpmath.mpf(s.numerator) / s.denominator, p)
        biggest[0] = max(biggest[0], float(r))
        return r

    y = pool(x, shape, wins, reduce)
    return y, max(len(w.positions) for w in wins.values()), biggest[0]


def lp_quality(x, shape, wins, p, y) -> dict | None:
    """Case.quality for Lp: the outputs whose sum of |x|^p is beyond the type's largest finite value while
    Y (the case's rounded output) is finite, which a backend summing in the type itself cannot reach (the
    Reduce family's ReduceL2 is marked alike)."""
    from onnx_conformance.generators.reduce_family import QUALITY_REASON

    type_name = name_of_numpy(x.dtype)
    if values.is_int(type_name):
        return None
    largest = Fraction(float(ml_dtypes.finfo(x.dtype).max))

    def beyond(xs, w, _):
        if any(isinstance(e, float) for e in xs):
            return False
        if float(p).is_integer():
            return sum((abs(e) ** int(p) for e in xs), Fraction(0)) > largest
        with mpmath.workprec(PREC):
            return sum((mpmath.power(abs(mpmath.mpf(e.numerator) / e.denominator), p) for e in xs),
                       mpmath.mpf(0)) > mpmath.mpf(largest.numerator)
    marked = pool(x, shape, wins, beyond).astype(bool) & np.isfinite(np.asarray(y, dtype=np.float64))
    if not marked.any():
        return None
    return {"reason": QUALITY_REASON.format(what="the sum of |x|^p", type=type_name),
            "outputs": {"0": [int(i) for i in np.flatnonzero(marked.reshape(-1))]}}


def lp_tolerance(type_name: str, n: int, largest: float, p: int):
    """The sum of n non-negative terms is off by about ceil(2 sqrt n) epsilon relative; its p-th root
    by 1/p of that; plus the root's own budget (sqrt for p = 2, pow otherwise)."""
    after = 0 if p == 1 else (budget("sqrt" if p == 2 else "pow", type_name) or {}).get("ulp", 0)
    return accumulation(type_name, n, largest, after=after)


def pooled(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Exact (or mpmath) window results rounded once to X's element type T."""
    return to_type(y, name_of_numpy(x.dtype))


def pooling_windows(v, attrs: dict, x: np.ndarray):
    """The output spatial shape and per output index the Window of a windowed pool node (AveragePool,
    MaxPool, LpPool) on X, the attributes checked against their rules: kernel_shape 'The size of the
    kernel along each axis', pads 'it can take any value greater than or equal to 0' and 'cannot be
    used simultaneously with auto_pad attribute', auto_pad one of NOTSET, SAME_UPPER, SAME_LOWER, VALID;
    the version's own text decides the output shape (see `axis`)."""
    if x.ndim < 3:
        raise Rejected("X: '(N x C x D1 x D2 ... Dn)'")
    nd = x.ndim - 2
    kernel = attrs.get("kernel_shape")
    if kernel is None or len(kernel) != nd or any(k < 1 for k in kernel):
        raise Rejected("kernel_shape: 'The size of the kernel along each axis.'")
    auto_pad = attr(attrs, "auto_pad", "NOTSET")
    pads = attrs.get("pads")
    if auto_pad not in ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"):
        raise Rejected("auto_pad: 'auto_pad must be either NOTSET, SAME_UPPER, SAME_LOWER or VALID.'")
    if pads is not None and auto_pad != "NOTSET":
        raise Rejected(f"pads: '{EXCLUSIVE}'")
    if pads is not None and any(p < 0 for p in pads):
        raise Rejected(f"pads: '{NON_NEGATIVE}'")
    strides = list(attr(attrs, "strides", [1] * nd))
    dilations = list(attr(attrs, "dilations", [1] * nd))
    if (pads is not None and len(pads) != 2 * nd) or len(strides) != nd or len(dilations) != nd:
        raise Rejected("strides, dilations: one value 'along each spatial axis'; pads: "
                       "'[x1_begin, x2_begin...x1_end, x2_end,...]'")
    if any(s < 1 for s in strides) or any(d < 1 for d in dilations):
        raise Rejected("strides and dilations: a step of at least 1 'along each spatial axis'")
    shape, wins, _ = windows(v, x.shape[2:], list(kernel), strides, pads, dilations, attr(attrs, "ceil_mode", 0),
                             auto_pad)
    return shape, wins


# ---------------------------------------------------------------------------------------------
# data


def documented(t, rows) -> np.ndarray:
    """Documented small-integer data, exact in every allowed type."""
    return np.array(rows, dtype=np.float64).astype(t.np())


def grid(t, shape, start: int = 1) -> np.ndarray:
    """1, 2, 3, ... in the shape (the documented examples' data), exact in every allowed type
    (int8 holds up to 127: pick shapes accordingly)."""
    return documented(t, np.arange(start, start + math.prod(shape)).reshape(shape))


def random(t, shape, rng, specials: bool = False) -> np.ndarray:
    """Distinct values of the type (no NaN: max and averages with NaN are tested apart)."""
    return values.sample(t.dtype, shape, rng, specials=specials)


def with_infinities(t, shape, rng) -> np.ndarray:
    x = random(t, shape, rng).astype(np.float64).reshape(-1)
    x[0], x[len(x) // 2] = np.inf, -np.inf
    return x.reshape(shape).astype(t.np())


# ---------------------------------------------------------------------------------------------
# attributes


def attributes(v, given: dict) -> dict | NotApplicable:
    """The attributes set (None left out); NotApplicable when the version lacks one."""
    out = {}
    for name, value in given.items():
        if value is None:
            continue
        if not v.has_attribute(name):
            return NotApplicable(f"{v.op}-{v.since_version} has no attribute {name} (a later version adds it)")
        out[name] = value
    return out


def rejection_pads_with_auto_pad(operator, v, t, x, output: str, **attrs):
    """pads together with auto_pad SAME_UPPER: 'This attribute cannot be used simultaneously with auto_pad attribute.'"""
    nd = x.ndim - 2
    a = attributes(v, dict(attrs, auto_pad="SAME_UPPER", pads=[1] * (2 * nd)))
    if isinstance(a, NotApplicable):
        return a
    return operator.reject(v, {"X": x}, a, {output: Declared(t.dtype, [None] * x.ndim)})


def rejection_negative_pads(operator, v, t, x, output: str, **attrs):
    """pads of -1: 'it can take any value greater than or equal to 0'."""
    nd = x.ndim - 2
    a = attributes(v, dict(attrs, pads=[-1] * (2 * nd)))
    if isinstance(a, NotApplicable):
        return a
    return operator.reject(v, {"X": x}, a, {output: Declared(t.dtype, [None] * x.ndim)})


def padding_rejections(operator) -> None:
    """The windowed pools' two rejection examples (pads with auto_pad, negative pads) on a 4x4 input with a
    2x2 kernel, and why onnx's ReferenceEvaluator answers the first: written once for AveragePool, MaxPool
    and LpPool."""

    @operator.rejection
    def pads_with_auto_pad(v, t, rng):
        return rejection_pads_with_auto_pad(operator, v, t, random(t, (1, 1, 4, 4), rng), "Y", kernel_shape=[2, 2])

    @operator.rejection
    def negative_pads(v, t, rng):
        return rejection_negative_pads(operator, v, t, random(t, (1, 1, 4, 4), rng), "Y", kernel_shape=[2, 2])

    operator.reference_differs(
        r"^pads_with_auto_pad float: reference evaluator returned outputs",
        "the evaluator does not enforce the pads attribute's 'This attribute cannot be used simultaneously with "
        "auto_pad attribute.'",
    )


def global_windows(x: np.ndarray):
    """The Global* operators: one window over every spatial position; output spatial dims all 1."""
    spatial = x.shape[2:]
    positions = list(itertools.product(*map(range, spatial)))
    n = len(positions)
    return (1,) * len(spatial), {(0,) * len(spatial): Window(positions, n, n)}
