"""Exact oracles of the products and accumulations (MatMul, Gemm, Einsum, Det, CumSum, CumProd): exact values in, one rounding out.

Each element becomes a Python int (integer types) or a Fraction (finite floats); NaN and the
infinities stay Python floats, or, where a sum may pass float's range before meeting them, NonFinite
(whose arithmetic with a Fraction follows IEEE 754: 0 * inf is NaN, inf + -inf is NaN, without
converting the Fraction to float), so numpy's object-array matmul/einsum/cumsum compute the exact result.
A runtime may sum in any order: float data here is non-negative (no cancellation) or exact in
every order, and the tolerance is the composite budget.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.case import NotApplicable, Types
from onnx_conformance.generators.rounding import exact, round_to
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, described, rule, sentences
from onnx_conformance.harness.dtypes import name_of_numpy, numpy_of


def exact_array(x: np.ndarray) -> np.ndarray:
    """x's elements as exact Python values (object array of the same shape)."""
    x = np.asarray(x)
    out = np.empty(x.shape, dtype=object)
    is_int = values.is_int(name_of_numpy(x.dtype))
    for idx, e in np.ndenumerate(x):
        out[idx] = int(e) if is_int else exact(float(e))
    return out


class NonFinite:
    """NaN or an infinity among exact values, in sums and products that must stay exact. A Fraction
    meeting a float converts itself to float first, which overflows once a sum has passed float's
    range (two doubles near their maximum, then inf: OverflowError); this absorbs any finite value as
    IEEE 754 does instead (inf + x = inf, NaN + x = NaN, inf * 0 = NaN, inf * -x = -inf)."""

    __slots__ = ("value",)

    def __init__(self, value: float):
        self.value = value

    @staticmethod
    def _of(o):
        """o's IEEE value if it is NaN or an infinity, else None (a finite int, Fraction or float)."""
        if isinstance(o, NonFinite):
            return o.value
        return o if isinstance(o, float) and not math.isfinite(o) else None

    def __add__(self, o):
        other = self._of(o)
        return self if other is None else NonFinite(self.value + other)

    __radd__ = __add__

    def __sub__(self, o):
        return self + -o

    def __rsub__(self, o):
        return -self + o

    def __mul__(self, o):
        other = self._of(o)
        if other is None:
            other = math.nan if o == 0 else (1.0 if o > 0 else -1.0)
        return NonFinite(self.value * other)

    __rmul__ = __mul__

    def __neg__(self):
        return NonFinite(-self.value)

    def __repr__(self):
        return f"NonFinite({self.value!r})"


def absorbing(ex) -> np.ndarray:
    """An object array of exact values (exact_array's) with NaN and the infinities as NonFinite."""
    out = np.array(ex, dtype=object)
    for idx, e in np.ndenumerate(out):
        if isinstance(e, float) and not math.isfinite(e):
            out[idx] = NonFinite(e)
    return out


def plain(r) -> np.ndarray:
    """absorbing's inverse: NonFinite back to Python floats, an object array of exact values."""
    out = np.array(r, dtype=object)
    for idx, e in np.ndenumerate(out):
        if isinstance(e, NonFinite):
            out[idx] = e.value
    return out


def to_type(r, type_name: str) -> np.ndarray:
    """Exact results rounded once to type_name (integers must fit: overflow is undefined, never emitted)."""
    r = np.asarray(r, dtype=object)
    if values.is_int(type_name):
        lo, hi = values.int_range(type_name)
        flat = [int(e) for e in r.reshape(-1)]
        if any(not lo <= e <= hi for e in flat):
            raise ValueError(f"exact result leaves {type_name}: pick smaller data")
        return np.array(flat, dtype=numpy_of(type_name)).reshape(r.shape)
    flat = [round_to(e, type_name) for e in r.reshape(-1)]
    return np.array(flat, dtype=numpy_of(type_name)).reshape(r.shape)


def rounded(r, type_name: str) -> np.ndarray:
    """to_type for a semantics function: an integer result out of range is an overflow, which the
    spec leaves undefined."""
    try:
        return to_type(r, type_name)
    except ValueError:
        raise Undefined(f"integer overflow: the exact result leaves {type_name}'s range")


def tolerance(t: Types) -> dict | None:
    """A runtime sums and multiplies in its own order and precision: the composite budget."""
    return budget("composite", t.dtype)


def operand(t: Types, shape, rng: np.random.Generator, low: int = -4, high: int = 6) -> np.ndarray:
    """Operand data: non-negative distinct floats (sums never cancel), small integers (sums fit)."""
    if values.is_int(t.dtype):
        lo = 0 if t.dtype.startswith("uint") else low
        return rng.integers(lo, high + 1, size=shape).astype(t.np())
    return np.abs(values.sample(t.dtype, shape, rng, specials=False)).astype(t.np())


def cast(doc, t: Types) -> np.ndarray:
    """Documented data, which holds small integers every allowed type represents exactly."""
    return np.array(doc, dtype=np.float64).astype(t.np())


def ieee_specials(t: Types, shape, rng: np.random.Generator) -> np.ndarray:
    """Small non-negative values with NaN, +inf and -inf mixed in (no -0.0: a sum's zero sign depends on order)."""
    x = np.abs(values.sample(t.dtype, shape, rng, specials=False)) / 16
    flat = x.astype(np.float64).reshape(-1)
    picks = rng.permutation(flat.size)[:3]
    for p, s in zip(picks, (math.nan, math.inf, -math.inf)):
        flat[p] = s
    return flat.reshape(shape).astype(t.np())


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """numpy.matmul semantics ('Matrix product that behaves like numpy.matmul'), exactly."""
    with np.errstate(invalid="ignore"):  # NaN from inf * 0 is the IEEE result wanted
        return plain(np.matmul(absorbing(exact_array(a)), absorbing(exact_array(b))))


def finite_magnitudes(x: np.ndarray) -> np.ndarray:
    """|x| in long double, NaN and the infinities as 0: what bounds the finite terms of a sum of products."""
    m = np.abs(np.asarray(x).astype(np.longdouble))
    return np.where(np.isfinite(m), m, 0)


def beyond_the_type(bound: np.ndarray, type_name: str) -> dict | None:
    """Case.quality for a sum of products: the outputs where the finite terms' magnitudes sum past the
    type's largest finite value. There a computation in the type overflows a product or a partial
    sum (inf, or NaN beside an infinity of the other sign) where the exact value is another; the
    spec names no intermediate precision."""
    if values.is_int(type_name):
        return None
    marked = np.asarray(bound).reshape(-1) > np.longdouble(float(ml_dtypes.finfo(numpy_of(type_name)).max))
    if not marked.any():
        return None
    return {"reason": f"a product or a partial sum leaves {type_name} on the way to the result; the spec names "
                      "no intermediate precision", "outputs": {"0": [int(i) for i in np.flatnonzero(marked)]}}


def einsum(equation: str, *xs: np.ndarray) -> np.ndarray:
    """The equation (spaces allowed by the spec, not by numpy) over exact values."""
    with np.errstate(invalid="ignore"):  # NaN from inf * 0 is the IEEE result wanted
        return plain(np.einsum(equation.replace(" ", ""), *[absorbing(exact_array(x)) for x in xs]))


def det(x: np.ndarray) -> np.ndarray:
    """Determinants of the [*, M, M] input, by exact Gaussian elimination."""
    ex = exact_array(x)
    m = ex.shape[-1]
    out = np.empty(ex.shape[:-2], dtype=object)
    for idx in np.ndindex(*ex.shape[:-2]):
        a = [[Fraction(ex[idx + (i, j)]) for j in range(m)] for i in range(m)]
        d = Fraction(1)
        for c in range(m):
            p = next((r for r in range(c, m) if a[r][c] != 0), None)
            if p is None:
                d = Fraction(0)
                break
            if p != c:
                a[c], a[p] = a[p], a[c]
                d = -d
            d *= a[c][c]
            for r in range(c + 1, m):
                f = a[r][c] / a[c][c]
                a[r] = [a[r][j] - f * a[c][j] for j in range(m)]
        out[idx] = d
    return out


def cumulative(x: np.ndarray, axis: int, exclusive: int, reverse: int, product: bool) -> np.ndarray:
    """CumSum/CumProd: inclusive or exclusive (starting from the identity), forward or reversed along axis."""
    ex = np.moveaxis(exact_array(x), axis, -1)
    if reverse:
        ex = ex[..., ::-1]
    identity = 1 if product else 0
    out = np.empty(ex.shape, dtype=object)
    for idx in np.ndindex(*ex.shape[:-1]):
        acc = identity
        for k in range(ex.shape[-1]):
            nxt = acc * ex[idx + (k,)] if product else acc + ex[idx + (k,)]
            out[idx + (k,)] = acc if exclusive else nxt
            acc = nxt
    if reverse:
        out = out[..., ::-1]
    return np.moveaxis(out, -1, axis)


# ---------------------------------------------------------------------------------------------
# CumSum and CumProd: the documented examples, each a function of the operator's accumulation


DOC_1D = [1, 2, 3, 4, 5]
DOC_2D = [[1, 2, 3], [4, 5, 6]]


def cumulative_semantics(product: bool):
    """CumSum's (running sums) or CumProd's (running products) meaning."""

    def accumulate(v, attrs, inputs):
        """y[.., j, ..] = the sum (product) of x[.., i, ..] for i up to j along axis (before j when
        exclusive, from the end when reverse), exact, rounded once to x's type."""
        x, axis = inputs["x"], np.asarray(inputs["axis"])
        if axis.ndim != 0:
            raise Rejected(sentences(described(v, "axis"))[0])
        axis = int(axis)
        if not -x.ndim <= axis < x.ndim:
            raise Rejected(rule(v, "range", "axis"))
        y = cumulative(x, axis % x.ndim, attr(attrs, "exclusive", 0), attr(attrs, "reverse", 0), product)
        return {"y": rounded(y, name_of_numpy(x.dtype))}

    return accumulate


def cumulative_case(operator, v, t, x, axis: int, exclusive=None, reverse=None):
    attrs = {k: a for k, a in (("exclusive", exclusive), ("reverse", reverse)) if a is not None}
    return operator.expect(v, {"x": x, "axis": np.array(axis, dtype=t.np("T2"))}, attrs, tolerance=tolerance(t))


def cumulative_examples(operator, product: bool, random_data) -> None:
    """Register the running sums' (products') semantics, the documented examples (onnx's
    test_cumsum_* / test_cumprod_*) and the edge cases on `operator`.

    random_data(t, shape, rng): data whose accumulations stay exact enough and in range."""
    operator.semantics(cumulative_semantics(product))

    def documented(rows, axis, **attrs):
        return lambda v, t, rng: cumulative_case(operator, v, t, cast(rows, t), axis, **attrs)

    operator.example(documented(DOC_1D, 0), name="1d")
    operator.example(documented(DOC_1D, 0, exclusive=1), name="1d_exclusive")
    operator.example(documented(DOC_1D, 0, reverse=1), name="1d_reverse")
    operator.example(documented(DOC_1D, 0, reverse=1, exclusive=1), name="1d_reverse_exclusive")
    operator.example(documented(DOC_2D, 0), name="2d_axis_0")
    operator.example(documented(DOC_2D, 1), name="2d_axis_1")
    operator.example(documented(DOC_2D, -1), name="2d_negative_axis")

    def random_3d(v, t, rng):
        return cumulative_case(operator, v, t, random_data(t, (2, 5, 3), rng), 1, exclusive=1, reverse=1)

    def specials(v, t, rng):
        """NaN propagates forward, inf - inf is NaN, inf * 0 is NaN (IEEE 754)."""
        if not values.is_float(t.dtype):
            return NotApplicable(f"{t.dtype} has no NaN or infinity")
        x = np.array([[1, np.inf, 2, -np.inf, 3], [0.5, 0, np.inf, 1, np.nan], [-np.inf, 2, 0.25, 4, 0]])
        return cumulative_case(operator, v, t, x.astype(t.np()), 1)

    def zero_length(v, t, rng):
        return cumulative_case(operator, v, t, random_data(t, (3, 0), rng), 1)

    operator.example(random_3d, name="random_exclusive_reverse")
    operator.example(specials, name="ieee_specials")
    operator.example(zero_length, name="zero_length")
