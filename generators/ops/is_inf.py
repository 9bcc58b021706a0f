"""IsInf: true where an element is an infinity the attributes ask for (detect_positive, detect_negative; both by default)."""

import math

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.semantics import attr
from onnx_conformance.generators.unary_family import Unary, nan_inf_encodings

OPERATOR = Operator("IsInf", primary="T1")

DOCUMENTED = [-1.2, math.nan, math.inf, 2.8, -math.inf, math.inf]


def is_inf(v, attrs):
    """'detect_positive' / 'detect_negative' (default 1): 'Set this attribute to 0 if positive (negative)
    infinity should be mapped to false.' Every other value maps to false."""
    positive, negative = attr(attrs, "detect_positive", 1) != 0, attr(attrs, "detect_negative", 1) != 0
    return lambda x: (positive and x == math.inf) or (negative and x == -math.inf)


ISINF = Unary(OPERATOR, is_inf, out_param="T2", of_attributes=True)
ISINF.documented("isinf", DOCUMENTED)
ISINF.dtype_range()
ISINF.shapes()
ISINF.documented("positive", [-1.7, math.nan, math.inf, 3.6, -math.inf, math.inf], {"detect_negative": 0})
ISINF.documented("negative", [-1.7, math.nan, math.inf, -3.6, -math.inf, math.inf], {"detect_positive": 0})
# Both 0: no infinity is asked for, so every element, each infinity included, maps to false.
ISINF.special_values(nan_inf_encodings, name="detect_neither", attrs={"detect_positive": 0, "detect_negative": 0})
