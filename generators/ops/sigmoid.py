"""Sigmoid: y = 1 / (1 + exp(-x)), correctly rounded from a high-precision value."""

import mpmath

from onnx_conformance.generators.activation_family import Activation, composite, mp, unary
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Sigmoid")
SIGMOID = Activation(OPERATOR, unary(lambda a, x: 1 / (1 + mpmath.exp(-mp(x))), inf=1.0, ninf=0.0), composite())

SIGMOID.documented("example", [-1, 0, 1])
SIGMOID.documented("sigmoid")
SIGMOID.dtype_range()
