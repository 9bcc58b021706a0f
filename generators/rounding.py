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
    if type(x) is Fraction:
        return x.numerator, x.denominator
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
    out = round_many(flat, type_name, saturate)
    return out.reshape(np.shape(values) if shape is None else shape)


def round_many(flat, type_name: str, saturate: bool = False) -> np.ndarray:
    """[round_to(v, type_name, saturate) for v in flat] as a 1-d array of `type_name`, the same bits.

    For a type of at most 51 mantissa bits (every one but double) each value is first rounded to odd
    at 53 bits (truncated, its last bit set where anything was cut: odd_double), which loses nothing a
    later rounding to nearest at 2 or more bits fewer can see (Boldo and Melquiond, "Emulation of FMA
    and correctly rounded sums: proved algorithms using rounding to odd", 2008); round_f64 then rounds
    all of them at once. Values beyond 2^+-1000 are clamped where every such type overflows or
    underflows alike."""
    dt, _, nmant, _ = _format(type_name)
    if saturate or nmant > 51:
        return np.array([round_to(v, type_name, saturate) for v in flat], dtype=dt)
    odd = [odd_double(v) for v in flat]
    for k, v in enumerate(odd):
        if v is None:  # a value of another kind: round_to's own answer, exact in float64
            odd[k] = float(round_to(flat[k], type_name))
    return round_f64(np.array(odd, dtype=np.float64), type_name)


_TINY = 2.0 ** -1000  # below every narrow type's smallest subnormal by far: rounds to a signed zero
_HUGE = math.inf  # beyond 2^1023, above every narrow type's largest finite value


def odd_double(x) -> float | None:
    """x (an mpmath value, a float, an int or a Fraction) rounded to odd at 53 bits, as a float; beyond
    2^+-1000 the signed _HUGE or _TINY; NaN and infinities as they are. None for another kind of value."""
    if isinstance(x, mpmath.mpf):
        sign, man, exp, bc = x._mpf_
        if not man:
            return float(x) if x._mpf_ != _MPF_ZERO else 0.0
        if abs(exp + bc) > HUGE_EXPONENT:
            return math.copysign(math.inf if exp + bc > 0 else 0.0, -1.0 if sign else 1.0)
        return _odd(sign, man, exp, bc)
    if isinstance(x, (float, np.floating)):
        return float(x)
    if isinstance(x, Fraction):
        num, den = x.numerator, x.denominator
    elif isinstance(x, int):
        num, den = int(x), 1
    else:
        return None
    if num == 0:
        return 0.0
    sign = num < 0
    mag = -num if sign else num
    if den == 1:
        return _odd(sign, mag, 0, mag.bit_length())
    e = mag.bit_length() - den.bit_length()  # floor(log2 |x|), corrected below where it overshoots
    if (den << e > mag) if e >= 0 else (den > mag << -e):
        e -= 1
    if e > 1100:
        return -_HUGE if sign else _HUGE
    if e < -1100:
        return -_TINY if sign else _TINY
    shift = 52 - e  # 2^52 <= |x| * 2^shift < 2^53
    q, r = divmod(mag << shift, den) if shift >= 0 else divmod(mag, den << -shift)
    return _odd(sign, q | (1 if r else 0), -shift, 53)


def _odd(sign: int, man: int, exp: int, bc: int) -> float:
    """(-1)^sign * man * 2^exp (man of bc bits) rounded to odd at 53 bits, as a float."""
    if bc > 53:
        cut = bc - 53
        man = (man >> cut) | (1 if man & ((1 << cut) - 1) else 0)
        exp += cut
    if exp + 53 > 1024:
        return -_HUGE if sign else _HUGE
    if exp + 53 < -1000:
        return -_TINY if sign else _TINY
    return math.ldexp(-man if sign else man, exp)


# ---------------------------------------------------------------------------------------------
# Fast paths: float64 approximations with a proven error bound, rounded only where that decides.


def round_f64(x, type_name: str) -> np.ndarray:
    """round_to of every element of a float64 array, vectorized: the same value, bit for bit
    (ties to even, subnormals, -0.0 kept, beyond the largest finite value as round_to says
    without saturation). Integer arithmetic on the binary exponent: x / 2^qexp is exact, rint
    rounds it to an integer ties to even, and times 2^qexp again is exact, so nothing is rounded
    twice (a float64 cast to bfloat16 goes through float32, and that can round twice)."""
    dt, minexp, nmant, fmax = _format(type_name)
    x = np.asarray(x, dtype=np.float64)
    if type_name == "double":
        return x.copy()
    a = np.abs(x)
    normal = np.isfinite(a) & (a != 0)
    _, e = np.frexp(np.where(normal, a, 1.0))  # a = m * 2^e, m in [0.5, 1): floor(log2 a) = e - 1
    qexp = np.maximum(e - 1, minexp) - nmant
    r = np.ldexp(np.rint(np.ldexp(np.where(normal, a, 0.0), -qexp)), qexp)
    over = normal & (r > fmax)
    r = np.where(normal, np.copysign(r, x), x)  # zeros (signed), NaN, infinities as they are
    beyond = ~np.isfinite(x) & ~np.isnan(x)
    if over.any() or beyond.any():
        big = over | beyond
        r = np.where(big, np.copysign(_beyond_max(1.0, type_name, False), x), r)
    with np.errstate(invalid="ignore", over="ignore"):
        return r.astype(dt)


def decided(y, err, type_name: str, positive=None) -> tuple[np.ndarray, np.ndarray]:
    """(rounded, ok): where every real number within err of y rounds to the same value of
    `type_name`, that value, and ok True. y and err are float64 arrays, err a bound on |exact - y|
    (the caller's proof; its high-precision reference is within it too, by a margin it adds).
    `positive`: where the exact value is known to be > 0 (the interval is cut at the smallest
    positive number, so a tiny positive value rounds to +0.0 as round_to rounds it). NaN or an
    infinite y or err is never ok; err == 0 says y is exact and decides by itself."""
    y = np.asarray(y, dtype=np.float64)
    err = np.asarray(err, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        lo = np.nextafter(y - err, -np.inf)  # y - err rounded: one step out makes it a bound
        hi = np.nextafter(y + err, np.inf)
        lo = np.where(err == 0, y, lo)
        hi = np.where(err == 0, y, hi)
        if positive is not None:
            lo = np.where(positive, np.maximum(lo, np.nextafter(0.0, 1.0)), lo)
        rl, rh = round_f64(lo, type_name), round_f64(hi, type_name)
    bits = np.dtype(f"u{rl.dtype.itemsize}")
    ok = (rl.view(bits) == rh.view(bits)) & np.isfinite(y) & np.isfinite(err) & (err >= 0)
    return rl, ok
