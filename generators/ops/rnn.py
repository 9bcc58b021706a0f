"""RNN: the documented one-layer recurrence, step by step in mpmath (generators/recurrent_family.py)."""

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.recurrent_family import reference_reasons, register

OPERATOR = Operator("RNN", primary="T")
register(OPERATOR, "RNN")
reference_reasons(OPERATOR, "RNN")
