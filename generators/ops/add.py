"""Add: A + B elementwise, exact (IEEE's correctly rounded sum), with broadcasting."""

import operator

from onnx_conformance.generators.arithmetic_family import (
    Binary,
    binary_examples,
    floats,
    ieee,
    ints,
    is_float,
)
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Add")


def add(a, b, v, t, attrs):
    """IEEE's sum, exact before its one rounding; an integer sum exact (overflow: undefined)."""
    return ieee(operator.add, a, b) if is_float(t.dtype) else a + b


def draw(v, t, shape, rng, side):
    """The documented randint(24) for unsigned types, centred for signed ones: no sum overflows int8."""
    if is_float(t.dtype):
        return floats(t.dtype, shape, rng)
    lo = 0 if t.dtype.startswith("u") else -12
    return ints(t.dtype, shape, rng, lo, lo + 23)


binary_examples(OPERATOR, Binary(add, draw), "add")
