"""IsInf: true where an element is an infinity the attributes ask for (detect_positive, detect_negative; both by default)."""

import math

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import Unary, nan_inf_encodings

OPERATOR = Operator("IsInf", primary="T1")

DOCUMENTED = [-1.2, math.nan, math.inf, 2.8, -math.inf, math.inf]

BOTH = Unary(OPERATOR, math.isinf, out_param="T2")
BOTH.documented("isinf", DOCUMENTED)
BOTH.dtype_range()
BOTH.shapes()
# 'detect_negative ... Set this attribute to 0 if negative infinity should be mapped to false.'
Unary(OPERATOR, lambda x: x == math.inf, out_param="T2").documented(
    "positive", [-1.7, math.nan, math.inf, 3.6, -math.inf, math.inf], {"detect_negative": 0})
# 'detect_positive ... Set this attribute to 0 if positive infinity should be mapped to false.'
Unary(OPERATOR, lambda x: x == -math.inf, out_param="T2").documented(
    "negative", [-1.7, math.nan, math.inf, -3.6, -math.inf, math.inf], {"detect_positive": 0})
# Both 0: no infinity is asked for, so every element, each infinity included, maps to false.
Unary(OPERATOR, lambda x: False, out_param="T2").special_values(
    nan_inf_encodings, name="detect_neither",
    attrs={"detect_positive": 0, "detect_negative": 0})
