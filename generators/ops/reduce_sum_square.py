"""ReduceSumSquare: the sum of squares of each group."""

import math

import numpy as np

from onnx_conformance.generators.ops._shared import ONE_TO_TWELVE
from onnx_conformance.generators.reduce_family import ReduceOp


def pairs(dt):
    if dt.is_float:
        big, sub = dt.max, dt.smallest_subnormal
        # the root of the largest finite, rounded down into the dtype so its square stays finite
        root = float(np.nextafter(np.float64(math.sqrt(big)), 0))
        return [(root, 0.0), (sub, 0.0), (-math.inf, 0.0)]
    r = math.isqrt(dt.max)
    p = [(r, 0)]
    if not dt.is_unsigned:
        p += [(-r, 0)]
    return p


OPERATOR = ReduceOp(
    name="ReduceSumSquare",
    step=lambda x, axes, dt: np.add.reduce(x * x, axis=axes, keepdims=True),
    example_data=ONE_TO_TWELVE,
    range_pairs=pairs,
)
