"""Not: the negation of a bool tensor, element by element."""

from onnx_conformance.generators.logic_family import UNARY_SHAPES, unary

OPERATOR = unary("Not", lambda x: not x, UNARY_SHAPES, ranges=False)
