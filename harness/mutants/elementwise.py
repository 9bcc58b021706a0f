"""Mutants of the element-wise math operators: domains, infinities and NaN, integers through doubles,
signedness, ties, and the direction of broadcasting."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import (
    Mutant, as_signed, empty_raises, finfo, floating, ignored, rank0_as_rank1, result, through, unidirectional,
    with_inputs,
)

FAMILY = "Element-wise math"

BROADCAST = "This operator supports **multidirectional (i.e., Numpy-style) broadcasting**"
# The project reads max/min as IEEE 754-2019's maximum/minimum: NaN propagates (generators/ops/max.py).
IEEE_MAX = "IEEE 754-2019 maximum/minimum propagate NaN, as generators/ops/max.py and min.py read them"


def _clip(lo, hi):
    """An input outside [lo, hi] brought inside first: a kernel guarding its domain instead of failing."""
    def inputs(x, **_):
        return (np.clip(x, lo, hi).astype(x.dtype),)
    return with_inputs(inputs)


def _where_float(cond, value):
    """For float inputs, `value` where cond(x) holds."""
    def f(y, x, *rest, **_):
        if not floating(x):
            return y
        with np.errstate(all="ignore"):
            return np.where(cond(x), np.asarray(value(x) if callable(value) else value).astype(y.dtype), y)
    return result(f)


def _formula(f):
    """The result computed by `f` in the input's own type (a textbook formula), for float inputs."""
    def g(y, x, *rest, **_):
        if not floating(x):
            return y
        with np.errstate(all="ignore"):
            return f(x)
    return result(g)


def _through_int32(y, x, *rest, **_):
    """floor/ceil on a float via a C cast to int32 (cvttss2si: NaN and what int32 cannot hold give INT32_MIN)."""
    if not floating(x):
        return y
    wide = x.astype(np.float64)
    with np.errstate(all="ignore"):
        fits = np.isfinite(wide) & (wide > -2.0**31) & (wide < 2.0**31)
        i = np.where(fits, np.trunc(wide), -(2.0**31))
        return np.where(fits, y.astype(np.float64), i)


def _int_floor_division(y, a, b, **_):
    """Integer division as floor(float(a) / float(b)): rounds toward minus infinity, not toward zero."""
    if a.dtype.kind not in "iu":
        return y
    with np.errstate(all="ignore"):
        q = np.floor(a.astype(np.float64) / b.astype(np.float64))
    return np.where(np.isfinite(q), q, 0).astype(a.dtype)


def _round_half_away(y, x, **_):
    if not floating(x):
        return y
    w = x.astype(np.float64)
    with np.errstate(all="ignore"):
        tie = np.abs(w - np.trunc(w)) == 0.5
        return np.where(tie, np.trunc(w) + np.sign(w), y.astype(np.float64))


def _round_half_up(y, x, **_):
    """floor(x + 0.5) in the input's type: ties go up (and x + 0.5 itself rounds)."""
    if not floating(x):
        return y
    with np.errstate(all="ignore"):
        z = np.floor(x + np.asarray(0.5, x.dtype))
        return np.where(np.isfinite(x), z, x)


def _fmod_sign(call, a, b, **attrs):
    """fmod=0 computed with C's fmod/%: the result takes the dividend's sign."""
    if attrs.get("fmod"):
        return call.run(a, b, **attrs)
    with np.errstate(all="ignore"):
        if a.dtype.kind in "iu":
            safe = np.where(b == 0, 1, b)
            return (np.fmod(a, safe).astype(a.dtype),)
        return (np.fmod(a, b).astype(a.dtype),)


def _pow_exponent_as_base(call, x, y, **attrs):
    """The exponent cast to the base's type first, as when Pow had one type for both (before version 12)."""
    return call.run(x, y.astype(x.dtype), **attrs)


def _first_two_only(call, *inputs, **attrs):
    """A loop bound one short: with three or more inputs, the last one is left out."""
    return call.run(*(inputs[:-1] if len(inputs) > 2 else inputs), **attrs)


def _reciprocal_zero(y, x, **_):
    if not floating(x):
        return y
    big = float(finfo(x.dtype).max)
    return np.where(x == 0, np.where(np.signbit(x.astype(np.float64)), -big, big), y.astype(np.float64))


def _fmax(pick):
    def f(y, *inputs, **_):
        if not floating(y):
            return y
        out = inputs[0]
        for x in inputs[1:]:
            out = pick(out, x)
        return np.broadcast_to(out, y.shape)
    return result(f)


def _unsigned_as_signed(op):
    def f(y, x, **_):
        return op(as_signed(x)).astype(as_signed(x).dtype).view(x.dtype) if x.dtype.kind == "u" else y
    return result(f)


MUTANTS = [
    Mutant("Abs.unsigned_as_signed", "Abs", "signed/unsigned",
           "absolute value, y = abs(x), is applied to the tensor elementwise", _unsigned_as_signed(np.abs)),
    Mutant("Acos.clamps_domain", "Acos", "NaN propagation",
           "Calculates the arccosine (inverse of cosine) of the given input tensor, element-wise.", _clip(-1, 1)),
    Mutant("Acosh.clamps_domain", "Acosh", "NaN propagation",
           "Calculates the hyperbolic arccosine of the given input tensor element-wise.",
           with_inputs(lambda x, **_: (np.maximum(x, np.asarray(1, x.dtype)),))),
    Mutant("Add.int64_through_double", "Add", "integer through float",
           "Performs element-wise binary addition", through(np.float64)),
    Mutant("Add.unidirectional", "Add", "broadcasting direction", BROADCAST, unidirectional, since=(7, None)),
    Mutant("Asin.clamps_domain", "Asin", "NaN propagation",
           "Calculates the arcsine (inverse of sine) of the given input tensor, element-wise.", _clip(-1, 1)),
    Mutant("Asinh.log_formula", "Asinh", "NaN propagation",
           "Calculates the hyperbolic arcsine of the given input tensor element-wise.",
           _formula(lambda x: np.log(x + np.sqrt(x * x + np.asarray(1, x.dtype))))),
    Mutant("Atan.infinity_to_nan", "Atan", "NaN propagation",
           "Calculates the arctangent (inverse of tangent) of the given input tensor, element-wise.",
           _where_float(np.isinf, np.nan)),
    Mutant("Atanh.clamps_domain", "Atanh", "NaN propagation",
           "Calculates the hyperbolic arctangent of the given input tensor element-wise.", _clip(-1, 1)),
    Mutant("Ceil.through_int32", "Ceil", "cast saturation/wrap",
           "If x is integral, +0, -0, NaN, or infinite, x itself is returned.", result(_through_int32)),
    Mutant("Cos.empty_raises", "Cos", "empty tensors",
           "Calculates the cosine of the given input tensor, element-wise.", empty_raises),
    Mutant("Cosh.exp_formula", "Cosh", "NaN propagation",
           "Calculates the hyperbolic cosine of the given input tensor element-wise.",
           _formula(lambda x: (np.exp(x) + np.exp(-x)) / np.asarray(2, x.dtype))),
    Mutant("Div.int_floor", "Div", "integer through float",
           "For integer inputs, the result is computed using truncating division (rounding toward zero).",
           result(_int_floor_division)),
    Mutant("Div.int64_through_double", "Div", "integer through float",
           "Performs element-wise binary division", through(np.float64)),
    Mutant("Div.unidirectional", "Div", "broadcasting direction", BROADCAST, unidirectional, since=(7, None)),
    Mutant("Erf.rank0_as_rank1", "Erf", "scalars",
           "Computes the error function of the given input tensor element-wise.", rank0_as_rank1),
    Mutant("Exp.minus_infinity_to_nan", "Exp", "NaN propagation",
           "Calculates the exponential of the given input tensor, element-wise.",
           _where_float(lambda x: np.isneginf(x), np.nan)),
    Mutant("Floor.through_int32", "Floor", "cast saturation/wrap",
           "If x is integral, +0, -0, NaN, or infinite, x itself is returned.", result(_through_int32)),
    Mutant("IsInf.ignores_detect_negative", "IsInf", "ignored attributes",
           "Set this attribute to 0 if negative infinity should be mapped to false.", ignored("detect_negative")),
    Mutant("IsInf.ignores_detect_positive", "IsInf", "ignored attributes",
           "Set this attribute to 0 if positive infinity should be mapped to false.", ignored("detect_positive")),
    Mutant("IsNaN.infinity_is_nan", "IsNaN", "NaN propagation",
           "Returns which elements of the input are NaN.",
           result(lambda y, x, **_: y | np.isinf(x.astype(np.float64)) if floating(x) else y)),
    Mutant("Log.negative_to_minus_infinity", "Log", "NaN propagation",
           "Calculates the natural log of the given input tensor, element-wise.",
           with_inputs(lambda x, **_: (np.maximum(x, np.asarray(0, x.dtype)),))),
    Mutant("Max.fmax", "Max", "NaN propagation", "Element-wise max of each of the input tensors",
           _fmax(np.fmax), note=IEEE_MAX),
    Mutant("Max.unidirectional", "Max", "broadcasting direction", BROADCAST, unidirectional, since=(8, None)),
    Mutant("Mean.unidirectional", "Mean", "broadcasting direction", BROADCAST, unidirectional, since=(8, None)),
    Mutant("Min.fmin", "Min", "NaN propagation", "Element-wise min of each of the input tensors",
           _fmax(np.fmin), note=IEEE_MAX),
    Mutant("Mod.ignores_fmod", "Mod", "ignored attributes",
           "Whether the operator should use floor (0) or truncation (1) to calculate the quotient.", ignored("fmod")),
    Mutant("Mod.sign_of_dividend", "Mod", "signed/unsigned", "The result has the same sign as `B`.", _fmod_sign),
    Mutant("Mod.int64_through_double", "Mod", "integer through float",
           "Performs an element-wise binary modulo operation.", through(np.float64)),
    Mutant("Mul.int64_through_double", "Mul", "integer through float",
           "Performs element-wise binary multiplication", through(np.float64)),
    Mutant("Mul.unidirectional", "Mul", "broadcasting direction", BROADCAST, unidirectional, since=(7, None)),
    Mutant("Neg.int64_through_double", "Neg", "integer through float",
           "each element flipped sign, y = -x, is applied to the tensor elementwise", through(np.float64)),
    Mutant("Pow.int64_through_double", "Pow", "integer through float",
           "where the function `f(x) = x^exponent`, is applied to the data tensor elementwise",
           through(np.float64)),
    Mutant("Pow.exponent_as_base_type", "Pow", "version confusion",
           "Pow takes input data (Tensor<T>) and exponent Tensor", _pow_exponent_as_base, since=(12, None)),
    Mutant("Pow.unidirectional", "Pow", "broadcasting direction", BROADCAST, unidirectional, since=(7, None)),
    Mutant("Reciprocal.zero_to_max", "Reciprocal", "NaN propagation",
           "where the reciprocal is, y = 1/x, is applied to the tensor elementwise", result(_reciprocal_zero)),
    Mutant("Round.half_away_from_zero", "Round", "ties away from zero",
           "In case of halves, the rule is to round them to the nearest even integer.", result(_round_half_away)),
    Mutant("Round.floor_of_half_more", "Round", "ties away from zero",
           "In case of halves, the rule is to round them to the nearest even integer.", result(_round_half_up)),
    Mutant("Sign.nan_to_zero", "Sign", "NaN propagation",
           "If input > 0, output 1. if input < 0, output -1. if input == 0, output 0.",
           _where_float(np.isnan, 0),
           equivalent="the sentence does not say what sign(NaN) is (NaN is none of > 0, < 0, == 0), and "
           "generators/ops/sign.py leaves it undefined: no valid case can expect one answer"),
    Mutant("Sign.unsigned_as_signed", "Sign", "signed/unsigned",
           "If input > 0, output 1. if input < 0, output -1. if input == 0, output 0.",
           _unsigned_as_signed(np.sign)),
    Mutant("Sin.rank0_as_rank1", "Sin", "scalars",
           "Calculates the sine of the given input tensor, element-wise.", rank0_as_rank1),
    Mutant("Sinh.exp_formula", "Sinh", "NaN propagation",
           "Calculates the hyperbolic sine of the given input tensor element-wise.",
           _formula(lambda x: (np.exp(x) - np.exp(-x)) / np.asarray(2, x.dtype))),
    Mutant("Sqrt.negative_to_zero", "Sqrt", "NaN propagation", "If x is negative, then it will return NaN.",
           with_inputs(lambda x, **_: (np.maximum(x, np.asarray(0, x.dtype)),))),
    Mutant("Sub.int64_through_double", "Sub", "integer through float",
           "Performs element-wise binary subtraction", through(np.float64)),
    Mutant("Sub.unidirectional", "Sub", "broadcasting direction", BROADCAST, unidirectional, since=(7, None)),
    Mutant("Sum.last_input_left_out", "Sum", "off-by-one windows",
           "Element-wise sum of each of the input tensors", _first_two_only),
    Mutant("Sum.unidirectional", "Sum", "broadcasting direction", BROADCAST, unidirectional, since=(8, None)),
    Mutant("Tan.empty_raises", "Tan", "empty tensors",
           "Calculates the tangent of the given input tensor, element-wise.", empty_raises),
    Mutant("Tanh.exp_formula", "Tanh", "NaN propagation",
           "Calculates the hyperbolic tangent of the given input tensor element-wise.",
           _formula(lambda x: (np.exp(2 * x) - np.asarray(1, x.dtype)) / (np.exp(2 * x) + np.asarray(1, x.dtype)))),
]
