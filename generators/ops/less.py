"""Less: A < B element by element, with broadcasting; false wherever either side is NaN."""

from onnx_conformance.generators.logic_family import comparison

OPERATOR = comparison("Less", lambda a, b: a < b)
