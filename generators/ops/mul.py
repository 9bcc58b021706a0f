"""Mul: A * B elementwise, exact (IEEE's correctly rounded product), with broadcasting."""

import operator

from onnx_conformance.generators.arithmetic_family import (
    Binary,
    binary_examples,
    documented,
    floats,
    ieee,
    ints,
    is_float,
)
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Mul")


def mul(a, b, v, t, attrs):
    """IEEE's product, exact before its one rounding; an integer product exact (overflow: undefined)."""
    return ieee(operator.mul, a, b) if is_float(t.dtype) else a * b


def draw(v, t, shape, rng, side):
    """Factors within [-11, 11]: no product overflows int8."""
    if is_float(t.dtype):
        return floats(t.dtype, shape, rng)
    return ints(t.dtype, shape, rng, -11, 11)


SPEC = Binary(mul, draw)
binary_examples(OPERATOR, SPEC, "mul")


@OPERATOR.example
def example(v, t, rng):
    return SPEC.case(v, t, documented(t.dtype, [1, 2, 3]), documented(t.dtype, [4, 5, 6]))
