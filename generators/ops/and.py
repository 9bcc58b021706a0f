"""And: the logical and of bool A and B, with broadcasting."""

from onnx_conformance.generators.logic_family import logical

OPERATOR = logical("And", lambda a, b: a and b)
