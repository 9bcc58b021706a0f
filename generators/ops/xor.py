"""Xor: the logical exclusive or of bool A and B, with broadcasting."""

from onnx_conformance.generators.logic_family import logical

OPERATOR = logical("Xor", lambda a, b: a != b)
