"""ThresholdedRelu: y = x for x > alpha, 0 otherwise; exact."""

from fractions import Fraction

from onnx_conformance.generators.activation_family import INF, Activation, unary
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("ThresholdedRelu")
# NaN is not > alpha: 'y = 0 otherwise'.
THRESHOLDED = Activation(
    OPERATOR,
    unary(lambda a, x: x if x > a["alpha"] else Fraction(0), nan=0.0, inf=lambda a: INF, ninf=0.0),
)

THRESHOLDED.documented("example", [-1.5, 0.0, 1.2, 2.0, 2.2], {"alpha": 2.0})
THRESHOLDED.documented("thresholdedrelu", attrs={"alpha": 2.0})
THRESHOLDED.documented("default")
THRESHOLDED.dtype_range(extra=(1.0, -1.0, 1.5))
