"""Atanh: inverse hyperbolic tangent, correctly rounded; atanh(+-0) = +-0, atanh(+-1) = +-inf, |x| > 1 gives NaN (invalid)."""

import math

import mpmath

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import correctly_rounded, standard, uniform

OPERATOR = Operator("Atanh")


def specials(fi):
    return [0.0, -0.0, 1.0, -1.0, 1.0 - float(fi.epsneg), -1.0 + float(fi.epsneg), 1.0 + float(fi.eps),
            -1.0 - float(fi.eps), math.inf, -math.inf, math.nan, float(fi.smallest_subnormal), 0.5]


RULE = correctly_rounded(mpmath.atanh,
                         signed_zero=True,
                         domain=lambda x: abs(x) <= 1,
                         poles={1.0: math.inf, -1.0: -math.inf})

standard(OPERATOR, RULE, "atanh", example=[-0.5, 0, 0.5], draw=uniform(0.0, 1.0), specials=specials)
