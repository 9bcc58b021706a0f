"""GRU: the documented one-layer recurrence, step by step in mpmath (generators/recurrent_family.py)."""

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.recurrent_family import reference_reasons, register, register_gru_extras

OPERATOR = Operator("GRU", primary="T")
register(OPERATOR, "GRU")
register_gru_extras(OPERATOR)
reference_reasons(OPERATOR, "GRU")
