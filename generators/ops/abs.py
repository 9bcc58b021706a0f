"""Abs: |x| elementwise, exact; |-0.0| = +0, |+-inf| = +inf; |min| of a signed integer overflows and is not emitted."""

import math

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import standard

OPERATOR = Operator("Abs")

standard(OPERATOR, abs, None,
         specials=[-0.0, 0.0, -math.inf, math.inf, math.nan, -1.5, 1.5, -2.0**-149, -65504.0])
