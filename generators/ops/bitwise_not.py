"""BitwiseNot: every bit of each integer flipped (two's complement ~x for a signed type)."""

from onnx_conformance.generators.logic_family import UNARY_SHAPES, unary

OPERATOR = unary("BitwiseNot", lambda x: ~x, UNARY_SHAPES)
