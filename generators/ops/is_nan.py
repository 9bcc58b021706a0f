"""IsNaN: true where an element is NaN, for every NaN encoding of the type (quiet, signaling, either sign, any payload)."""

import math

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import Unary, nan_inf_encodings

OPERATOR = Operator("IsNaN", primary="T1")

ISNAN = Unary(OPERATOR, math.isnan, out_param="T2")
ISNAN.documented("isnan", [-1.2, math.nan, math.inf, 2.8, -math.inf, math.inf])
ISNAN.dtype_range()
ISNAN.special_values(nan_inf_encodings, name="nan_encodings")
ISNAN.shapes()
