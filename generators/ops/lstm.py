"""LSTM: the documented one-layer recurrence, step by step in mpmath (generators/recurrent_family.py)."""

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.recurrent_family import reference_reasons, register, register_lstm_extras

OPERATOR = Operator("LSTM", primary="T")
register(OPERATOR, "LSTM")
register_lstm_extras(OPERATOR)
reference_reasons(OPERATOR, "LSTM")
