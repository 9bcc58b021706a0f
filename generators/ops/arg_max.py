"""ArgMax: the index of the largest element along axis (first or last among equals)."""

from onnx_conformance.generators.arg_family import ArgOp

OPERATOR = ArgOp("ArgMax", largest=True)
