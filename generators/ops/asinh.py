"""Asinh: inverse hyperbolic sine, correctly rounded; asinh(+-0) = +-0, asinh(+-inf) = +-inf."""

import math

import mpmath

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import correctly_rounded, standard

OPERATOR = Operator("Asinh")


def specials(fi):
    return [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, float(fi.max), -float(fi.max),
            float(fi.smallest_subnormal), -float(fi.smallest_subnormal)]


RULE = correctly_rounded(mpmath.asinh, signed_zero=True)

standard(OPERATOR, RULE, "asinh", example=[-1, 0, 1], specials=specials)
