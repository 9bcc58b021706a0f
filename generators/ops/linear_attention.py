"""LinearAttention: the doc's linear, gated, delta and gated_delta recurrences, token by token in mpmath (generators/attention_family.py)."""

from onnx_conformance.generators.attention_family import linear_attention_examples
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("LinearAttention", primary="T", defaults={"S": lambda v, b: b["T"]})
linear_attention_examples(OPERATOR)
