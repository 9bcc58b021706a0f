"""Sign: 1 for x > 0, -1 for x < 0, 0 for x == 0 (-0.0 included), exact, in every integer and float type."""

import math

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import UNDEFINED, Unary

OPERATOR = Operator("Sign")


def sign(x):
    if isinstance(x, float) and math.isnan(x):
        return UNDEFINED  # 'If input > 0, output 1. if input < 0, output -1. if input == 0, output 0.': NaN is none
    return type(x)((x > 0) - (x < 0))


SIGN = Unary(OPERATOR, sign, undefined="the spec defines Sign only for input > 0, < 0 and == 0")
SIGN.documented("sign", list(range(-5, 6)))
SIGN.dtype_range()
SIGN.special_values([-0.0, 0.0, math.inf, -math.inf, 2.0**-149, -(2.0**-149), 2.0**-24, -(2.0**-24), 65504.0])
SIGN.shapes()
