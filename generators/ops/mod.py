"""Mod: the remainder of A / B elementwise, its quotient floored (fmod=0) or truncated (fmod=1), with broadcasting."""

import math
from fractions import Fraction

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.arithmetic_family import (
    Binary,
    binary_examples,
    documented,
    floats,
    ints,
    is_float,
)
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import declared
from onnx_conformance.generators.semantics import Rejected, attr

OPERATOR = Operator("Mod")


def remainder(a, b, fmod, t):
    """'A - floor(A / B) * B' (fmod=0, Python's %) or 'A - trunc(A / B) * B' (fmod=1, C fmod), exactly."""
    if not is_float(t.dtype):
        if b == 0:
            return None  # integer Mod by zero is undefined
        q = a // b if fmod == 0 else (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)
        lo, hi = values.int_range(t.dtype)
        return a - q * b if lo <= q <= hi else None  # a quotient beyond the type (min % -1) overflows
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0:
        return math.nan  # 'If x is ±∞ ...', 'If y is ±0 ...', 'If either argument is NaN, NaN is returned.'
    if math.isinf(b):
        # 'If y is ±∞ and x is finite, x is returned' (fmod=1); fmod=0: x when the signs agree (or x is 0), else y
        return a if fmod == 1 or a == 0 or (a < 0) == (b < 0) else b
    q = Fraction(a) / Fraction(b)
    n = math.floor(q) if fmod == 0 else math.trunc(q)
    r = Fraction(a) - n * Fraction(b)
    if r == 0:  # the sign of the divisor (fmod=0), of the dividend (fmod=1)
        return math.copysign(0.0, b if fmod == 0 else a)
    return r


def rule_broken(v, t, fmod) -> str | None:
    """The version's sentence binding fmod to a kind of type that this (type, fmod) breaks, or None."""
    if fmod not in (0, 1):
        return v.sentence(r"must be `0` \(default\)") or f"fmod: {v.schema.attributes['fmod'].description} (0 or 1)"
    if is_float(t.dtype) and fmod == 0:
        return (v.sentence(r"floating point, then `fmod` attribute must be set to 1")
                or v.sentence(r"`fmod` attribute is set to `0`, `T` is constrained to integer"))
    if not is_float(t.dtype) and fmod == 1:
        return v.sentence(r"`fmod` is set to `1`.*constrained to floating point")
    return None


def allowed(v, t, fmod):
    """Where a version binds fmod to a kind of type: None, or the spec's sentence saying no."""
    rule = rule_broken(v, t, fmod)
    return NotApplicable(f"Mod-{v.since_version}: '{rule}'") if rule else None


def check(v, t, attrs):
    """fmod (default 0) as the version allows it for T."""
    rule = rule_broken(v, t, attr(attrs, "fmod", 0))
    if rule:
        raise Rejected(rule)


def natural(t):
    """fmod=0 for integers, 1 for floats: allowed so in every version."""
    return 1 if is_float(t.dtype) else 0


def draw(v, t, shape, rng, side):
    if is_float(t.dtype):
        return floats(t.dtype, shape, rng, nonzero=side == 1)
    signed = not t.dtype.startswith("u")
    if side == 0:
        return ints(t.dtype, shape, rng, -24 if signed else 0, 23 if signed else 47)
    return ints(t.dtype, shape, rng, -12 if signed else 1, 12, nonzero=True)


def mod(a, b, v, t, attrs):
    """The remainder under the node's fmod (default 0)."""
    return remainder(a, b, attr(attrs, "fmod", 0), t)


NATURAL = Binary(mod, draw, attrs=lambda v, t: {"fmod": natural(t)}, check=check)
binary_examples(OPERATOR, NATURAL, None, forms=("bcast_scalar", "bcast_empty", "bcast_rank8"))

MIXED = ([-4, 7, 5, 4, -7, 8], [2, -3, 8, -2, 3, 5])
MIXED_FLOAT = ([-4.3, 7.2, 5.0, 4.3, -7.2, 8.0], [2.1, -3.4, 8.0, -2.1, 3.4, 5.0])
UNSIGNED = ([4, 7, 5], [2, 3, 8])


def mixed_sign_case(v, t, fmod):
    skip = allowed(v, t, fmod)
    if skip:
        return skip
    x, y = MIXED_FLOAT if is_float(t.dtype) else UNSIGNED if t.dtype.startswith("u") else MIXED
    return NATURAL.case(v, t, documented(t.dtype, x), documented(t.dtype, y), {"fmod": fmod})


@OPERATOR.example
def mixed_sign(v, t, rng):
    """The documented operands with the type's usual fmod (0 for integers, 1 for floats)."""
    return mixed_sign_case(v, t, natural(t))


@OPERATOR.example
def mixed_sign_fmod_0(v, t, rng):
    if not is_float(t.dtype):
        return NotApplicable("integers take fmod=0 in mixed_sign")
    return mixed_sign_case(v, t, 0)


@OPERATOR.example
def int64_fmod(v, t, rng):
    """Integers with fmod=1: the sign of the dividend."""
    if is_float(t.dtype):
        return NotApplicable("floats take fmod=1 in mixed_sign")
    return mixed_sign_case(v, t, 1)


@OPERATOR.example
def broadcast(v, t, rng):
    return NATURAL.case(v, t, np.arange(30).reshape(3, 2, 5).astype(t.np()), documented(t.dtype, [7]))


@OPERATOR.example
def float_edge_cases_fmod_0(v, t, rng):
    """Signed zeros, infinities and NaN under fmod=0 (the special cases Mod-28 lists)."""
    if not is_float(t.dtype):
        return NotApplicable("the special cases are those of floating-point inputs")
    skip = allowed(v, t, 0)
    if skip:
        return skip
    inf, nan = math.inf, math.nan
    x = [0.0, -0.0, 0.0, -0.0, -3.0, 3.0, -1.0, 1.0, inf, -inf, 1.0, 1.0, nan, 1.0]
    y = [-2.0, 2.0, 2.0, -2.0, inf, inf, -inf, -inf, 2.0, 2.0, 0.0, -0.0, 2.0, nan]
    return NATURAL.case(v, t, np.array(x, dtype=t.np()), np.array(y, dtype=t.np()), {"fmod": 0})


@OPERATOR.rejection
def float_fmod_0(v, t, rng):
    """Floats with fmod=0 where a version requires fmod=1 for them."""
    skip = allowed(v, t, 0)
    if not skip:
        return NotApplicable(f"Mod-{v.since_version} defines fmod=0 for floating-point inputs")
    x, y = MIXED_FLOAT
    inputs = {"A": documented(t.dtype, x), "B": documented(t.dtype, y)}
    return OPERATOR.reject(v, inputs, {"fmod": 0}, {"C": declared(t.dtype, 1)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(r"^float_fmod_0 .*returned outputs", "the evaluator computes fmod=0 for floats "
                           "in every version; Mod-10 and Mod-13 require fmod=1 there")
