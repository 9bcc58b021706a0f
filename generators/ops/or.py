"""Or: the logical or of bool A and B, with broadcasting."""

from onnx_conformance.generators.logic_family import logical

OPERATOR = logical("Or", lambda a, b: a or b)
