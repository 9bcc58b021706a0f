"""Sqrt: square root, correctly rounded; sqrt(-0.0) = -0.0, sqrt(x < 0) = NaN (invalid), sqrt(+inf) = +inf."""

import math

import mpmath

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import abs_randn, correctly_rounded, standard

OPERATOR = Operator("Sqrt")

standard(OPERATOR, correctly_rounded(mpmath.sqrt, signed_zero=True, domain=lambda x: x >= 0), "sqrt",
         example=[1, 4, 9], draw=abs_randn,
         specials=[-0.0, 0.0, -1.0, -2.0**-149, -math.inf, math.inf, math.nan, 2.0, 0.25, 2.0**-149])
