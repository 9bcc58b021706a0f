"""CumSum: running sums along axis, inclusive or exclusive, forward or reversed."""

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.linalg_family import cumulative_examples, operand

OPERATOR = Operator("CumSum", primary="T")

# Non-negative floats (no cancellation) and small integers (sums fit every type).
cumulative_examples(OPERATOR, product=False, random_data=operand)
