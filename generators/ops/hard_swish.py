"""HardSwish: y = x * max(0, min(1, x / 6 + 1 / 2)), the exact value rounded once."""

from fractions import Fraction

from onnx_conformance.generators.activation_family import INF, Activation, composite, unary
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("HardSwish")
# 'alpha = 1/6 and beta = 0.5': exactly, not a float32 of them. -inf is left out: -inf * 0.
HARD_SWISH = Activation(
    OPERATOR,
    unary(lambda a, x: x * min(1, max(0, x / 6 + Fraction(1, 2))), inf=INF),
    composite(cancels=True),  # x / 6 + 1 / 2 cancels next to x = -3
)

HARD_SWISH.documented("hardswish")
HARD_SWISH.dtype_range(extra=(-3.0, 3.0, -2.75, 2.75))

# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs("double: ",
                           "the evaluator runs the function body, HardSigmoid with the float attribute alpha = "
                           "0.166666672 (float32 of 1/6); the doc states alpha = 1/6, exact in our value")

# Where the function body, run node by node, differs from our value, and why ours stands (cases/expanded.md).
OPERATOR.body_differs("double: ", "the body is HardSigmoid with the float attribute alpha = 0.16666667 (float32 of "
                                  "1/6): in double that is 1/6 + 2.0e-9; the text states alpha = 1/6")
