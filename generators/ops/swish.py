"""Swish: y = x * sigmoid(alpha * x), correctly rounded."""

import mpmath

from onnx_conformance.generators.activation_family import (
    INF,
    UNDEFINED,
    Activation,
    composite,
    mp,
    unary,
)
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Swish")


def at_inf(sign):
    """+-inf * sigmoid(+-alpha * inf): +-inf where the sigmoid tends to 1 or 1/2, -inf * 0 undefined."""
    return lambda a: sign * INF if a["alpha"] * sign >= 0 else UNDEFINED


SWISH = Activation(OPERATOR, unary(lambda a, x: mp(x) / (1 + mpmath.exp(-mp(a["alpha"]) * mp(x))),
                                   inf=at_inf(1), ninf=at_inf(-1)), composite())

SWISH.documented("swish", [3, 4, 5], {"alpha": 1.0})
SWISH.documented("alpha", attrs={"alpha": 0.5})
SWISH.documented("default")
SWISH.dtype_range()

# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs("float16: ", "the evaluator computes x * 1 / (1 + exp(-alpha * x)) in float16, rounding each step")
