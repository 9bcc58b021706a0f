"""Tanh: hyperbolic tangent, correctly rounded; tanh(+-0) = +-0, tanh(+-inf) = +-1."""

import math

import mpmath

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import correctly_rounded, standard

OPERATOR = Operator("Tanh")

standard(OPERATOR, correctly_rounded(mpmath.tanh, signed_zero=True), "tanh", example=[-1, 0, 1],
         specials=[0.0, -0.0, math.inf, -math.inf, math.nan, 20.0, -20.0, 2.0**-20, -(2.0**-20), 0.5])
