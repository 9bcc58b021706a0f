"""Equal: A == B element by element, with broadcasting; NaN equals nothing, -0.0 equals +0.0, strings by code points."""

from onnx_conformance.generators.logic_family import comparison

OPERATOR = comparison("Equal", lambda a, b: a == b)
