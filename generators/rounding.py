"""Round once to an ONNX float type: exact values in, the nearest value of the type out (ties to even).

Oracles compute in exact or high precision (Python ints, Fraction, mpmath at `PREC` bits) and
call `round_to` once at the end, so no result is rounded twice. Rounding works on the exact
rational value with integer arithmetic; nothing passes through an intermediate float.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import ml_dtypes
import mpmath
import numpy as np

from onnx_conformance.harness.dtypes import numpy_of

# Working precision of mpmath oracles: far beyond double's 53 bits, so a correctly rounded
# double is missed only if the exact value lies within 2^-200 relative of a rounding boundary.
PREC = 200
# Beyond 2^+-2000 every ONNX float type overflows or underflows (double's range ends near 2^+-1075),
# and an exact Fraction of exp(1e308) would not fit in memory.
HUGE_EXPONENT = 2000


def exact(x) -> Fraction | float:
    """x as an exact rational; NaN and the infinities stay floats (they have no rational value),
    and so does an mpmath value beyond 2^+-2000, as the signed infinity or zero it rounds to."""
    if isinstance(x, mpmath.mpf):
        if mpmath.isnan(x) or mpmath.isinf(x):
            return float(x)
        if x != 0 and abs(mpmath.mag(x)) > HUGE_EXPONENT:  # rounds to +-inf or +-0 in every type
            return math.copysign(math.inf if mpmath.mag(x) > 0 else 0.0, -1.0 if x < 0 else 1.0)
        man, exp = x.man_exp  # the magnitude: mpmath keeps the sign apart
        return (-1 if x < 0 else 1) * Fraction(int(man)) * Fraction(2) ** int(exp)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if not math.isfinite(x) else Fraction(x)
    return Fraction(x)


@lru_cache(maxsize=None)
def has_inf(type_name: str) -> bool:
    dt = numpy_of(type_name)
    return bool(np.isinf(np.array(np.inf).astype(dt).astype(np.float64)))


@lru_cache(maxsize=None)
def has_nan(type_name: str) -> bool:
    dt = numpy_of(type_name)
    return bool(np.isnan(np.array(np.nan).astype(dt).astype(np.float64)))


def round_to(x, type_name: str, saturate: bool = False):
    """The value of `type_name` nearest to x, ties to even, as a 0-d numpy array of that type.

    Beyond the largest finite value (after rounding): +-max when `saturate`, else +-inf where the
    type has infinities, NaN where it has NaN but no infinity (float8e4m3fn, the fnuz types),
    and +-max where it has neither (float4e2m1). A float -0.0 stays -0.0 where the type has it;
    an mpmath or rational zero is +0 (they carry no sign).

    The exact value is num/den (Python ints); rounding it is integer arithmetic: the quantum of
    its binade is 2^qexp, and num/den/2^qexp is rounded to an integer, ties to even.
    """
    dt, minexp, nmant, fmax = _format(type_name)
    q = _ratio(x)
    if isinstance(q, float):
        if q == 0:  # an mpmath value too small for any type, with its sign
            return np.array(q).astype(dt)
        # NaN or an infinity
        return np.array(q if math.isnan(q) else _beyond_max(math.copysign(1.0, q), type_name, saturate)).astype(dt)
    num, den = q
    if num == 0:
        zero = -0.0 if isinstance(x, (float, np.floating)) and math.copysign(1.0, float(x)) < 0 else 0.0
        return np.array(zero).astype(dt)
    negative = num < 0
    mag = -num if negative else num
    # e = floor(log2 |q|), from the bit lengths, corrected by one where the estimate overshoots
    e = mag.bit_length() - den.bit_length()
    if (den << e > mag) if e >= 0 else (den > mag << -e):
        e -= 1
    qexp = max(e, minexp) - nmant  # subnormals share emin's quantum
    a, b = (mag, den << qexp) if qexp >= 0 else (mag << -qexp, den)
    units, rem = divmod(a, b)
    if 2 * rem > b or (2 * rem == b and units & 1):
        units += 1
    if units == 0:  # underflow to zero keeps the sign where the type has -0
        return np.array(-0.0 if negative else 0.0).astype(dt)
    # units has at most nmant + 2 bits (53 for a double): ldexp is exact wherever a double reaches
    if qexp + units.bit_length() > 1024 or math.ldexp(units, qexp) > fmax:
        return np.array(_beyond_max(-1.0 if negative else 1.0, type_name, saturate)).astype(dt)
    r = math.ldexp(units, qexp)
    return np.array(-r if negative else r).astype(dt)


@lru_cache(maxsize=None)
def _format(type_name: str) -> tuple[np.dtype, int, int, float]:
    """A float type's numpy dtype, smallest normal exponent, mantissa bits and largest finite value."""
    dt = numpy_of(type_name)
    fi = ml_dtypes.finfo(dt)
    return dt, int(fi.minexp), int(fi.nmant), float(fi.max)


def _ratio(x) -> tuple[int, int] | float:
    """x as (numerator, denominator) of its exact value, or the float that exact() gives for it
    (NaN, an infinity, or an mpmath value beyond 2^+-2000 as its signed infinity or zero); the
    same value as exact(x), without building a Fraction where x is a float or an mpmath value."""
    if isinstance(x, mpmath.mpf):
        sign, man, exp, bc = x._mpf_
        if not man:
            return float(x) if x._mpf_ != _MPF_ZERO else (0, 1)  # NaN, an infinity, or zero
        if abs(exp + bc) > HUGE_EXPONENT:  # mpmath.mag(x): rounds to +-inf or +-0 in every type
            return math.copysign(math.inf if exp + bc > 0 else 0.0, -1.0 if sign else 1.0)
        num = -man if sign else man
        return (num << exp, 1) if exp >= 0 else (num, 1 << -exp)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x.as_integer_ratio() if math.isfinite(x) else x
    if isinstance(x, int):
        return int(x), 1
    q = exact(x)
    return q if isinstance(q, float) else (q.numerator, q.denominator)


_MPF_ZERO = mpmath.mpf(0)._mpf_


def _beyond_max(sign: float, type_name: str, saturate: bool) -> float:
    if saturate or not (has_inf(type_name) or has_nan(type_name)):
        return sign * float(ml_dtypes.finfo(numpy_of(type_name)).max)
    return sign * math.inf if has_inf(type_name) else math.nan


def round_array(values, type_name: str, shape=None, saturate: bool = False) -> np.ndarray:
    """round_to over a list (or nested list) of exact values, as an array of `type_name`."""
    flat = list(np.asarray(values, dtype=object).reshape(-1))
    out = np.array([round_to(v, type_name, saturate) for v in flat], dtype=numpy_of(type_name))
    return out.reshape(np.shape(values) if shape is None else shape)
