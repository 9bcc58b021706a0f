"""Attention: scaled dot-product attention as the doc defines it, in mpmath (generators/attention_family.py)."""

from onnx_conformance.generators.attention_family import attention_examples
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Attention", primary="T1",
                    defaults={"T2": lambda v, b: b["T1"], "U": lambda v, b: b["T1"]})
attention_examples(OPERATOR)
