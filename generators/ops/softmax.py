"""Softmax: exp(x - max) / sum(exp(x - max)) over each row the version's axis defines."""

from onnx_conformance.generators.softmax_family import SoftmaxOp, composite, softmax_row

OPERATOR = SoftmaxOp("Softmax", softmax_row, composite)
