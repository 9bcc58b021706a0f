"""Celu: y = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); correctly rounded."""

import mpmath

from onnx_conformance.generators.activation_family import INF, UNDEFINED, Activation, composite, mp, unary
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Celu")


def celu(a, x):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)): for x >= 0 the second term is never below 0
    (whatever alpha's sign), for x < 0 it is the value; alpha = 0 divides by zero."""
    if x >= 0:
        return x
    if a["alpha"] == 0:
        return UNDEFINED
    return mp(a["alpha"]) * mpmath.expm1(mp(x) / mp(a["alpha"]))


def at_minus_inf(a):
    """alpha * (exp(-inf / alpha) - 1): -alpha for alpha > 0; exp(+inf) for alpha < 0 gives -inf."""
    return -a["alpha"] if a["alpha"] > 0 else (-INF if a["alpha"] < 0 else UNDEFINED)


CELU = Activation(OPERATOR, unary(celu, inf=INF, ninf=at_minus_inf),
                  composite(cancels=True))  # exp(x / alpha) - 1 cancels near 0

# The documented data: shape [3, 3, 3, 1], alpha 2.
CELU_DATA = [
    [[[0.8439683], [0.5665144], [0.05836735]], [[0.02916367], [0.12964272], [0.5060197]],
     [[0.79538304], [0.9411346], [0.9546573]]],
    [[[0.17730942], [0.46192095], [0.26480448]], [[0.6746842], [0.01665257], [0.62473077]],
     [[0.9240844], [0.9722341], [0.11965699]]],
    [[[0.41356155], [0.9129373], [0.59330076]], [[0.81929934], [0.7862604], [0.11799799]],
     [[0.69248444], [0.54119414], [0.07513223]]],
]
CELU.documented("celu", CELU_DATA, {"alpha": 2.0})
# onnx's test_celu_float16 / _bfloat16 data, for every type
CELU.documented("negative", [-3.0, -0.5, 0.0, 0.5, 3.0], {"alpha": 2.0})
CELU.documented("default")
CELU.dtype_range()
