"""Softplus: y = ln(exp(x) + 1), correctly rounded from a high-precision value."""

import mpmath

from onnx_conformance.generators.activation_family import INF, Activation, composite, mp, unary
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Softplus")
SOFTPLUS = Activation(
    OPERATOR,
    unary(lambda a, x: mpmath.log1p(mpmath.exp(mp(x))), inf=INF, ninf=0.0),
    composite(cancels=True),  # ln(exp(x) + 1) loses exp(x) next to 1 for x well below 0
)

SOFTPLUS.documented("example", [-1, 0, 1])
SOFTPLUS.documented("softplus")
SOFTPLUS.dtype_range()

# Where the function body, run node by node, differs from our value, and why ours stands (cases/expanded.md).
OPERATOR.body_differs(r"^dtype_range .*got inf expected", "the body is Log(Add(Exp(X), 1)): Exp overflows to inf "
                      "for X past ln(max of the type), where ln(exp(x) + 1) is about x and finite")
