"""LeakyRelu: y = alpha * x for x < 0, x otherwise; the product rounded once."""

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.activation_family import INF, NAN, Activation, unary
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("LeakyRelu")
LEAKY = Activation(
    OPERATOR,
    unary(lambda a, x: a["alpha"] * x if x < 0 else x, inf=INF,
          ninf=lambda a: -INF if a["alpha"] > 0 else (INF if a["alpha"] < 0 else NAN)),  # IEEE: 0 * inf is NaN
    lambda dtype: budget("mul", dtype),
)

LEAKY.documented("example", [-1, 0, 1], {"alpha": 0.1})
LEAKY.documented("leakyrelu", attrs={"alpha": 0.1})
LEAKY.documented("default")
LEAKY.dtype_range()
