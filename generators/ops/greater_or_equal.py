"""GreaterOrEqual: A >= B element by element, with broadcasting; false wherever either side is NaN."""

from onnx_conformance.generators.logic_family import comparison

OPERATOR = comparison("GreaterOrEqual", lambda a, b: a >= b)
