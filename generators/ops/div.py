"""Div: A / B elementwise; floats correctly rounded, integers truncated toward zero, with broadcasting."""

import operator

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.arithmetic_family import (
    Binary,
    binary_examples,
    documented,
    floats,
    ieee,
    ints,
    is_float,
    trunc_div,
)
from onnx_conformance.generators.case import NotApplicable, Operator

OPERATOR = Operator("Div")

TRUNCATION = r"truncating division"


def div(a, b, v, t, attrs):
    """IEEE's quotient for floats; for integers "truncating division (rounding toward zero)" (from Div-7)."""
    if is_float(t.dtype):
        return ieee(operator.truediv, a, b)
    if not v.sentence(TRUNCATION) and (a < 0) != (b < 0) and b and a % b:
        return None  # before version 7 the doc does not say how an inexact negative quotient rounds
    return trunc_div(a, b)  # None for a zero divisor: integer division by zero is undefined


def draw(v, t, shape, rng, side):
    if is_float(t.dtype):
        return floats(t.dtype, shape, rng, nonzero=side == 1)
    signed = not t.dtype.startswith("u") and v.sentence(TRUNCATION)
    if side == 0:
        return ints(t.dtype, shape, rng, -24 if signed else 0, 47 if not signed else 23)
    return ints(t.dtype, shape, rng, -12 if signed else 1, 12, nonzero=True)


SPEC = Binary(div, draw, tolerance=lambda t: budget("div", t.dtype))
binary_examples(OPERATOR, SPEC, "div")


@OPERATOR.example
def example(v, t, rng):
    return SPEC.case(v, t, documented(t.dtype, [3, 4]), documented(t.dtype, [1, 2]))


@OPERATOR.example
def int32_trunc(v, t, rng):
    """'For integer inputs, the result is computed using truncating division (rounding toward zero).'"""
    if is_float(t.dtype):
        return NotApplicable("truncation is the rule for integer inputs")
    if t.dtype.startswith("u"):
        return NotApplicable("the documented operands -3 and -2 are outside an unsigned type")
    if not v.sentence(TRUNCATION):
        return NotApplicable(f"Div-{v.since_version} does not say how an integer quotient rounds; "
                             "'truncating division (rounding toward zero)' is stated from Div-7")
    return SPEC.case(v, t, documented(t.dtype, [-3, 3, -3, 3]), documented(t.dtype, [2, 2, -2, -2]))
