"""Cosh: hyperbolic cosine, correctly rounded; cosh(+-0) = 1, cosh(+-inf) = +inf, large |x| overflows to +inf."""

import math

import mpmath

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import correctly_rounded, standard

OPERATOR = Operator("Cosh")


def specials(fi):
    return [0.0, -0.0, math.inf, -math.inf, math.nan, math.log(2 * float(fi.max)) * 0.999,
            math.log(2 * float(fi.max)) * 1.001, -math.log(2 * float(fi.max)) * 1.001, float(fi.max),
            -float(fi.max), float(fi.smallest_subnormal), -float(fi.smallest_subnormal)]


RULE = correctly_rounded(mpmath.cosh)

standard(OPERATOR, RULE, "cosh", example=[-1, 0, 1], specials=specials)
