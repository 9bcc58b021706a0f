"""Round: to the nearest integer, halves to the nearest even integer, exact; integral x, +-0, NaN and +-inf return x."""

import math

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.unary_family import Unary

OPERATOR = Operator("Round")

# The documented example: halves go to even (0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -2.5 -> -2).
DOCUMENTED = [0.1, 0.5, 0.9, 1.2, 1.5, 1.8, 2.3, 2.5, 2.7, -1.1, -1.5, -1.9, -2.2, -2.5, -2.8]


def round_half_even(x):
    # Python's round() on a float is exact and ties to even; the sign of a zero result is x's (-0.4 -> -0.0)
    return x if not math.isfinite(x) else math.copysign(float(round(x)), x)


def ties(fi):
    """'For the case of halfs, the rule is to round them to the nearest even integer.' Halves up to the
    largest the type has (2^p - 0.5), the value just below 0.5 (floor(x + 0.5) gets it wrong), -0.4 -> -0.0."""
    p = int(fi.nmant)
    below_half = 0.5 - 2.0 ** -(p + 2)
    return [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 2.0**p - 0.5, -(2.0**p - 0.5), 2.0 ** (p - 1) + 0.5,
            below_half, -below_half, -0.4, -0.0, 0.0, math.inf, -math.inf, math.nan, float(fi.max)]


ROUND = Unary(OPERATOR, round_half_even)
ROUND.documented("round", DOCUMENTED)
ROUND.dtype_range()
ROUND.special_values(ties, name="ties_to_even")
ROUND.shapes()
