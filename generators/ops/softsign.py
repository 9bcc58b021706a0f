"""Softsign: y = x / (1 + |x|), the exact quotient rounded once."""

from onnx_conformance.generators.activation_family import Activation, composite, unary
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Softsign")
# +-inf are left out: the formula gives inf / inf there.
SOFTSIGN = Activation(OPERATOR, unary(lambda a, x: x / (1 + abs(x))), composite(), x="input", y="output")

SOFTSIGN.documented("example", [-1, 0, 1])
SOFTSIGN.documented("softsign")
SOFTSIGN.dtype_range()
