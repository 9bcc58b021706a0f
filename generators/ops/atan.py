"""Atan: arctangent, correctly rounded; atan(+-0) = +-0, atan(+-inf) = +-pi/2 rounded."""

import math

import mpmath

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import correctly_rounded, standard

OPERATOR = Operator("Atan")


def specials(fi):
    return [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, float(fi.max), -float(fi.max),
            float(fi.smallest_subnormal), -float(fi.smallest_subnormal)]


RULE = correctly_rounded(mpmath.atan, signed_zero=True)

standard(OPERATOR, RULE, "atan", example=[-1, 0, 1], specials=specials)
