"""Acosh: inverse hyperbolic cosine, correctly rounded; acosh(1) = +0, x < 1 gives NaN (invalid), acosh(+inf) = +inf."""

import math

import mpmath

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import correctly_rounded, standard, uniform

OPERATOR = Operator("Acosh")


def specials(fi):
    return [1.0, 1.0 + float(fi.eps), 1.0 - float(fi.epsneg), 0.0, -0.0, -1.0, math.inf, -math.inf,
            math.nan, float(fi.max), math.e]


RULE = correctly_rounded(mpmath.acosh, domain=lambda x: x >= 1)

standard(OPERATOR, RULE, "acosh", example=[10, math.e, 1], draw=uniform(1.0, 10.0), specials=specials)
