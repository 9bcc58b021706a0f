"""Normalization operators' oracles: means and variances exact, roots through mpmath, one rounding.

BatchNormalization, GroupNormalization, InstanceNormalization, LayerNormalization, LpNormalization,
LRN, MeanVarianceNormalization and RMSNormalization all compute a statistic over a group of
elements (a mean, a population variance, a sum of squares or of magnitudes) and then scale each
element by a root of it. Here the statistics are exact Fractions of the inputs' exact values, the
root and its reciprocal are mpmath values at PREC bits, and each result is rounded once to its
output type. Float attributes (epsilon, momentum, alpha, ...) are FLOAT: their value is the
float32 nearest to the written number.

Tolerance: the spec names no accumulation order, so results are graded as accumulations
(`tolerance`, after accuracy.accumulation): ceil(2 sqrt(n)) steps plus the root's, or k * eps * M
absolute, M the magnitude a rounding of the statistic is scaled by in the result. Where a
version's own text puts a step in a named precision (stash_type's 'casts all input variables to
32-bit float', a function body's Mul and Add in T), that precision's epsilon joins.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.accuracy import EPSILON, budget
from onnx_conformance.generators.linalg_family import exact_array
from onnx_conformance.generators.rounding import PREC, round_to
from onnx_conformance.harness.dtypes import elem_type_of, numpy_of

NARROW = ("float16", "bfloat16")
DEFAULT_EPSILON = 1e-5


def float_attr(x: float) -> Fraction:
    """A FLOAT attribute's value: the float32 nearest to the written number, exactly."""
    return Fraction(float(np.float32(x)))


def mp(q) -> mpmath.mpf:
    """An exact value (int, Fraction, or a float NaN/inf) as an mpf at the working precision."""
    if isinstance(q, float):
        return mpmath.mpf(q)
    q = Fraction(q)
    return mpmath.mpf(q.numerator) / q.denominator


def rounded(r: np.ndarray, type_name: str) -> np.ndarray:
    """Exact or mpf results (object array) rounded once to type_name."""
    r = np.asarray(r, dtype=object)
    flat = [round_to(e, type_name) for e in r.reshape(-1)]
    return np.array(flat, dtype=numpy_of(type_name)).reshape(r.shape)


def ex(x: np.ndarray) -> np.ndarray:
    return exact_array(np.asarray(x))


def per_element(total, n: int):
    """A sum over n elements divided by n; over no element 0 / 0, NaN as IEEE 754 has it."""
    return total / n if n else math.nan


def mean_var(x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, int]:
    """Exact mean and population variance (sum((x - mean)^2) / n) over axes, kept as size-1 dims,
    and n. x: exact object array; a NaN or an infinity (a Python float) follows IEEE 754 through
    the sums (Fraction and float arithmetic give a float): a group holding one has a NaN variance."""
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64)) if axes else 1
    s = np.sum(x, axis=axes, keepdims=True) if axes else x.copy()
    mean = np.vectorize(lambda e: per_element(e, n), otypes=[object])(s)
    d = x - mean
    var = np.vectorize(lambda e: per_element(e, n), otypes=[object])(np.sum(d * d, axis=axes, keepdims=True))
    return mean, var, n


def inv_sqrt(v: np.ndarray, eps: Fraction) -> np.ndarray:
    """1 / sqrt(v + eps) as mpf, elementwise (v exact)."""
    with mpmath.workprec(PREC):
        return np.vectorize(lambda e: 1 / mpmath.sqrt(mp(e + eps)), otypes=[object])(v)


def normalize(x: np.ndarray, axes: tuple[int, ...], eps: Fraction):
    """(x - mean) / sqrt(var + eps) over axes, exact statistics, mpf result; also mean, 1/std, n.
    A group holding a NaN or an infinity normalizes to NaN throughout (x - mean or its variance is NaN)."""
    mean, var, n = mean_var(x, axes)
    inv = inv_sqrt(var, eps)
    with mpmath.workprec(PREC):
        d = np.vectorize(lambda e: mp(e), otypes=[object])(x - mean)
        return d * inv, mean, inv, n


def affine(normalized: np.ndarray, scale, bias) -> np.ndarray:
    """normalized * scale + bias (exact scale and bias, broadcast), in mpf."""
    with mpmath.workprec(PREC):
        y = normalized * np.vectorize(mp, otypes=[object])(scale)
        if bias is not None:
            y = y + np.vectorize(mp, otypes=[object])(bias)
        return y


def magnitude(*arrays) -> float:
    """The largest |value| over the arrays (exact, mpf or numeric), as a float."""
    m = 0.0
    for a in arrays:
        for e in np.asarray(a, dtype=object).reshape(-1):
            f = abs(float(e))
            if math.isfinite(f):
                m = max(m, f)
    return m


def scaled_magnitude(x_ex, mean, inv, scale_ex, bias_ex, axes, stats: bool = False) -> float:
    """M of a normalization: |scale| * (|x - mean| + mean(|x|)) / std + |bias| over the elements
    (a rounding of the mean or the variance moves the result by that much times epsilon); with
    `stats`, also the statistics' own magnitudes (max|x| for a Mean output, 1/std for InvStdDev).
    One element per group: x - mean is exactly 0 in any arithmetic, and only |bias| remains."""
    n = int(np.prod([x_ex.shape[a] for a in axes], dtype=np.int64)) if axes else 1
    with mpmath.workprec(PREC):
        absx = np.vectorize(lambda e: abs(mp(e)), otypes=[object])(x_ex)
        group = np.vectorize(lambda e: per_element(e, n), otypes=[object])(
            np.sum(absx, axis=axes, keepdims=True) if axes else absx)
        d = np.vectorize(lambda e: abs(mp(e)), otypes=[object])(x_ex - mean)
        m = (d + group) * np.vectorize(lambda e: abs(e), otypes=[object])(inv)
        m = m * np.vectorize(lambda e: abs(mp(e)), otypes=[object])(scale_ex)
        if n == 1:
            m = m * 0
        if bias_ex is not None:
            m = m + np.vectorize(lambda e: abs(mp(e)), otypes=[object])(bias_ex)
    out = magnitude(m)
    return max(out, magnitude(x_ex), magnitude(inv)) if stats else out


def tolerance(out_types, n: int, mag: float, after: int = 0, stash: str | None = None,
              stage_two=()) -> dict | None:
    """The grade of normalized results of out_types (one tolerance for all outputs of a case).

    As accuracy.accumulation: k = ceil(2 sqrt(n)) steps (one for float16/bfloat16, judged as
    computed in float and rounded once) plus `after` (the root's and the division's), or
    k * eps * mag absolute. `stash`: the type the version's text puts stage one in (stash_type:
    'casts all input variables to 32-bit float, perform the computation'): its epsilon joins the
    accumulation's. `stage_two`: types the text puts later steps in ('cast Normalized back to the
    original type of X', then Mul and Add in it): two roundings there add 2 * eps * mag."""
    outs = [o for o in out_types if o in EPSILON]
    if not outs:
        return None
    k = math.ceil(2 * math.sqrt(max(n, 1)))
    steps = max(1 if o in NARROW else k for o in outs) + after
    eps = max([EPSILON["float"] if o in NARROW else EPSILON[o] for o in outs]
              + ([EPSILON[stash]] if stash in EPSILON else []))
    atol = k * eps * mag
    for s in stage_two:
        if s in EPSILON:
            atol = max(atol, k * eps * mag + 2 * EPSILON[s] * mag)
    out: dict = {"ulp": steps}
    if mag:
        out["atol"] = float(atol)
    return out


def root_steps(type_name: str) -> int:
    """Budget steps of a sqrt followed by a division in type_name."""
    s = budget("sqrt", type_name)
    d = budget("div", type_name)
    return (s["ulp"] if s else 0) + (d["ulp"] if d else 0)


def broadcasts_to(shape, target) -> bool:
    """Whether `shape` is unidirectionally broadcastable to `target` (Scale and B of the layer-wise norms):
    right-aligned, each dimension 1 or equal, no more dimensions than the target."""
    if len(shape) > len(target):
        return False
    return all(d in (1, e) for d, e in zip(reversed(shape), reversed(target)))


def stash_of(type_name: str) -> int:
    return elem_type_of(type_name)


def with_specials(x: np.ndarray, places: dict) -> np.ndarray:
    """x with NaN / +-inf written at the given {index: value} places."""
    out = x.astype(np.float64)
    for idx, val in places.items():
        out[idx] = val
    return out.astype(x.dtype)


def data(type_name: str, shape, rng: np.random.Generator) -> np.ndarray:
    """Distinct ordinary values of the type in [-64, 64] (no specials: one NaN or inf spoils its whole group)."""
    return values.sample(type_name, shape, rng, specials=False)


def scale_data(type_name: str, shape, rng: np.random.Generator, positive: bool = False) -> np.ndarray:
    """Values in [-4, 4] (or (0, 4]), exact in the type (a division by a power of two)."""
    x = values.sample(type_name, shape, rng, specials=False).astype(np.float64) / 16
    if positive:
        x = np.abs(x) + 0.125
    return x.astype(numpy_of(type_name))


def documented(rows, type_name: str) -> np.ndarray:
    """Documented data cast to the type as onnx's example casts it to float32."""
    return np.array(rows, dtype=np.float64).astype(np.float32).astype(numpy_of(type_name))
