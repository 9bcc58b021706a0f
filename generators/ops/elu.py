"""Elu: y = alpha * (exp(x) - 1) for x < 0, x otherwise; correctly rounded from a high-precision value."""

import mpmath

from onnx_conformance.generators.activation_family import INF, Activation, composite, mp, unary
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Elu")
ELU = Activation(
    OPERATOR,
    unary(lambda a, x: mp(a["alpha"]) * mpmath.expm1(mp(x)) if x < 0 else x, inf=INF, ninf=lambda a: -a["alpha"]),
    composite(cancels=True),  # exp(x) - 1 cancels near 0
)

ELU.documented("example", [-1, 0, 1], {"alpha": 2.0})
ELU.documented("elu", attrs={"alpha": 2.0})
ELU.documented("default")
ELU.dtype_range()
