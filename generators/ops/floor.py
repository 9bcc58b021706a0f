"""Floor: the largest integer <= x, exact; floor(-0.0) = -0.0, NaN and the infinities are returned as they are."""

import math

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import standard

OPERATOR = Operator("Floor")


def floor(x):
    # IEEE 754 roundToIntegral: the result keeps x's sign (floor(-0.0) = -0.0), and +-inf, NaN pass through
    return x if not math.isfinite(x) else math.copysign(float(math.floor(x)), x)


def specials(fi):
    half_ulp = 2.0 ** int(fi.nmant)  # from here on every value is an integer
    return [-0.0, 0.0, math.inf, -math.inf, math.nan, -0.5, 0.5, float(fi.smallest_subnormal),
            -float(fi.smallest_subnormal), half_ulp - 0.5, -(half_ulp - 0.5), half_ulp, float(fi.max)]


standard(OPERATOR, floor, None, example=[-1.5, 1.2, 2], specials=specials)
