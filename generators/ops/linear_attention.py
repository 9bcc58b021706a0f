"""LinearAttention: the doc's linear, gated, delta and gated_delta recurrences, token by token in mpmath (generators/attention_family.py)."""

from generators.attention_family import linear_attention_examples
from generators.case import Operator

OPERATOR = Operator("LinearAttention", primary="T", defaults={"S": lambda v, b: b["T"]})
linear_attention_examples(OPERATOR)
