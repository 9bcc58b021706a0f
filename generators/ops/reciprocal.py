"""Reciprocal: 1/x, correctly rounded; 1/+-0 = +-inf, 1/+-inf = +-0, 1/subnormal overflows to inf."""

import math
from fractions import Fraction

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import standard, uniform

OPERATOR = Operator("Reciprocal")


def reciprocal(x):
    # IEEE 754 division: a zero divisor gives an infinity of its sign, an infinite one a zero of its sign
    if math.isnan(x):
        return x
    if x == 0:
        return math.copysign(math.inf, x)
    if math.isinf(x):
        return math.copysign(0.0, x)
    return 1 / Fraction(x)


standard(OPERATOR, reciprocal, "reciprocal", example=[-4, 2], draw=uniform(0.5, 1.5),
         specials=lambda fi: [0.0, -0.0, math.inf, -math.inf, math.nan, float(fi.smallest_subnormal),
                              -float(fi.smallest_subnormal), float(fi.max), -float(fi.max), 3.0, -3.0])
