"""Mish: y = x * tanh(ln(1 + e^x)), correctly rounded."""

import mpmath
import numpy as np

from onnx_conformance.generators.activation_family import INF, Activation, composite, mp, unary
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Mish")
# -inf is left out: -inf * tanh(0).
MISH = Activation(OPERATOR, unary(lambda a, x: mp(x) * mpmath.tanh(mpmath.log1p(mpmath.exp(mp(x)))), inf=INF),
                  composite(cancels=True))  # ln(1 + e^x) loses e^x next to 1 for x well below 0

# The documented data is 10000 evenly spaced float32 values in [-10, 10]: every 250th of them.
MISH.documented("mish", np.linspace(-10, 10, 10000, dtype=np.float32)[::250])
MISH.dtype_range()
