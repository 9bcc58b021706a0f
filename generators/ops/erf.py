"""Erf: the error function, correctly rounded; erf(+-0) = +-0, erf(+-inf) = +-1."""

import math

import mpmath

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import correctly_rounded, standard

OPERATOR = Operator("Erf")

standard(OPERATOR, correctly_rounded(mpmath.erf, signed_zero=True), "erf", shape=(1, 3, 4, 5),
         specials=[0.0, -0.0, math.inf, -math.inf, math.nan, 6.0, -6.0, 2.0**-20, -(2.0**-20), 0.5],
         undefined="Erf-9 allows integer types but does not say how erf(x), not an integer for x != 0, "
                   "becomes an integer: only erf(0) = 0 has a defined integer result")

# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    '^\\w+ double: ',
    'the evaluator vectorizes math.erf with otypes="f", so a double result is rounded to float first',
)
