"""Neg: -x elementwise, exact; -(+0) = -0.0; -min of a signed integer overflows and is not emitted."""

import math

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import standard

OPERATOR = Operator("Neg")


def neg(x):
    return -x


standard(OPERATOR, neg, None, example=[-4, 2],
         specials=[0.0, -0.0, math.inf, -math.inf, math.nan, 2.0**-149, -2.0**-149])
