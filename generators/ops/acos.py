"""Acos: arccosine, correctly rounded; acos(1) = +0, |x| > 1 gives NaN (invalid)."""

import math

import mpmath

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import correctly_rounded, standard, uniform

OPERATOR = Operator("Acos")


def specials(fi):
    return [0.0, -0.0, 1.0, -1.0, 1.0 + float(fi.eps), -1.0 - float(fi.eps), 1.0 - float(fi.epsneg),
            -1.0 + float(fi.epsneg), 2.0, math.inf, -math.inf, math.nan, float(fi.smallest_subnormal),
            0.5]


RULE = correctly_rounded(mpmath.acos, domain=lambda x: abs(x) <= 1)

standard(OPERATOR, RULE, "acos", example=[-0.5, 0, 0.5], draw=uniform(0.0, 1.0), specials=specials)
