"""Hardmax: 1 at each row's first maximum, 0 elsewhere (an exact result)."""

from onnx_conformance.generators.softmax_family import SoftmaxOp, hardmax_row

OPERATOR = SoftmaxOp("Hardmax", hardmax_row, lambda type_name: {"ulp": 0})
