"""HardSigmoid: y = max(0, min(1, alpha * x + beta)), the exact value rounded once."""

import math

from onnx_conformance.generators.activation_family import Activation, composite, unary
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("HardSigmoid")


def hard_sigmoid(a, x):
    return min(1, max(0, a["alpha"] * x + a["beta"]))


def at_inf(sign):
    """alpha * (+-inf) + beta clamped: the clamp where alpha is not 0, else beta clamped."""
    def value(a):
        slope = a["alpha"] * sign
        return 1.0 if slope > 0 else 0.0 if slope < 0 else float(min(1, max(0, a["beta"])))
    return value


HARD_SIGMOID = Activation(OPERATOR, unary(hard_sigmoid, nan=math.nan, inf=at_inf(1), ninf=at_inf(-1)),
                          composite(cancels=True))  # alpha * x + beta cancels where the result nears 0

HARD_SIGMOID.documented("example", [-1, 0, 1], {"alpha": 0.5, "beta": 0.6})
HARD_SIGMOID.documented("hardsigmoid", attrs={"alpha": 0.5, "beta": 0.6})
HARD_SIGMOID.documented("default")
HARD_SIGMOID.dtype_range(extra=(-2.5, 2.5, -2.4, 2.4))  # the corners alpha * x + beta = 0 and 1 (defaults)
