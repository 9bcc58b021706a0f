"""Sub: A - B elementwise, exact (IEEE's correctly rounded difference), with broadcasting."""

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
from onnx_conformance.generators.case import NotApplicable, Operator

OPERATOR = Operator("Sub")


def sub(a, b, v, t, attrs):
    """IEEE's difference, exact before its one rounding; an integer difference exact (overflow: undefined)."""
    return ieee(operator.sub, a, b) if is_float(t.dtype) else a - b


def draw(v, t, shape, rng, side):
    """Unsigned minuends above every subtrahend: a negative difference is an overflow, which the spec leaves undefined."""
    if is_float(t.dtype):
        return floats(t.dtype, shape, rng)
    lo = (24 if side == 0 else 0) if t.dtype.startswith("u") else -12
    return ints(t.dtype, shape, rng, lo, lo + 23)


SPEC = Binary(sub, draw)
binary_examples(OPERATOR, SPEC, "sub")


@OPERATOR.example
def example(v, t, rng):
    if t.dtype.startswith("u"):
        return NotApplicable("the documented [1, 2, 3] - [3, 2, 1] has -2, outside an unsigned type "
                             "(integer overflow is undefined)")
    return SPEC.case(v, t, documented(t.dtype, [1, 2, 3]), documented(t.dtype, [3, 2, 1]))
