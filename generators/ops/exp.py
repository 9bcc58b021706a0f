"""Exp: e^x, correctly rounded; exp(-inf) = +0, exp(+inf) = +inf, and x past log(max) overflows to +inf."""

import math

import mpmath

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import correctly_rounded, standard

OPERATOR = Operator("Exp")


def specials(fi):
    top, bottom = math.log(float(fi.max)), math.log(float(fi.smallest_subnormal))
    return [0.0, -0.0, math.inf, -math.inf, math.nan, top * 0.999, top * 1.001, bottom * 0.999, bottom * 1.001,
            1000.0, -1000.0, 2.0**-30, -(2.0**-30)]


standard(OPERATOR, correctly_rounded(mpmath.exp), "exp", example=[-1, 0, 1], specials=specials)
