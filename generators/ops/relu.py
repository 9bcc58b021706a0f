"""Relu: y = max(0, x), exact in every type; NaN propagates, -inf gives 0."""

from fractions import Fraction

from onnx_conformance.generators.activation_family import INF, NAN, Activation, unary
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Relu")
RELU = Activation(OPERATOR, unary(lambda a, x: max(Fraction(0), x), nan=NAN, inf=INF, ninf=0.0))

RELU.documented("relu")
# -0.0 gives a zero (either sign: max(0, -0.0) does not fix it), NaN gives NaN.
RELU.dtype_range()
