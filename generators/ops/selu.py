"""Selu: y = gamma * (alpha * e^x - alpha) for x <= 0, gamma * x otherwise; correctly rounded."""

import math

import mpmath

from onnx_conformance.generators.activation_family import INF, NAN, Activation, composite, mp, unary
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Selu")


def selu(a, x):
    if x > 0:
        return a["gamma"] * x
    return mp(a["gamma"]) * mp(a["alpha"]) * mpmath.expm1(mp(x))


def at_inf(a):
    """gamma * inf: an infinity of gamma's sign; IEEE 754 gives 0 * inf NaN."""
    return NAN if a["gamma"] == 0 else math.copysign(INF, a["gamma"])


# The defaults differ between versions (1.0507 and 1.6732 in version 1, their float32
# approximations of the exact constants from version 6): the oracle reads them from the schema.
SELU = Activation(OPERATOR, unary(selu, inf=at_inf, ninf=lambda a: -a["gamma"] * a["alpha"]), composite(cancels=True))

SELU.documented("example", [-1, 0, 1], {"alpha": 2.0, "gamma": 3.0})
SELU.documented("selu", attrs={"alpha": 2.0, "gamma": 3.0})
SELU.documented("default")
SELU.dtype_range()

# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs("^(default|dtype_range) .*",
                           "Selu-1's schema defaults are alpha 1.6732 and gamma 1.0507; the evaluator uses version 6's")
