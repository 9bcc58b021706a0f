"""Sin: sine, correctly rounded (exact argument reduction); sin(+-0) = +-0, sin(+-inf) = NaN (invalid)."""

import math

import mpmath

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import correctly_rounded, standard

OPERATOR = Operator("Sin")


def specials(fi):
    return [0.0, -0.0, math.inf, -math.inf, math.nan, math.pi, -math.pi, math.pi / 2, float(fi.max),
            -float(fi.max), float(fi.smallest_subnormal), -float(fi.smallest_subnormal), 1e4]


RULE = correctly_rounded(mpmath.sin, signed_zero=True, domain=math.isfinite)

standard(OPERATOR, RULE, "sin", example=[-1, 0, 1], specials=specials)
