"""ArgMin: the index of the smallest element along axis (first or last among equals)."""

from onnx_conformance.generators.arg_family import ArgOp

OPERATOR = ArgOp("ArgMin", largest=False)
