"""ReduceProd: the product of each group."""

import math

import numpy as np

from onnx_conformance.generators.ops._shared import ONE_TO_TWELVE
from onnx_conformance.generators.reduce_family import ReduceOp, factors_above_one


def pairs(dt):
    if dt.is_float:
        big, tiny, sub = dt.max, dt.smallest_normal, dt.smallest_subnormal
        return [(big, 0.5), (big, -1.0), (tiny, 0.5), (sub, 2.0), (math.inf, -1.0)]
    p = [(dt.max, 1), (0, dt.max)]
    if not dt.is_unsigned:
        p += [(dt.min, 1), (-1, dt.min + 1)]
    for b in dt.beyond_32_bits:  # 3 * (2**53 + 1) has no float64 representation
        p += [(b, 3)]
    return p


OPERATOR = ReduceOp(
    intermediate=factors_above_one,
    name="ReduceProd",
    step=lambda x, axes, dt: np.multiply.reduce(x, axis=axes, keepdims=True),
    example_data=ONE_TO_TWELVE,
    # 1024 factors near 1 keep a float16 product inside its range
    large_range=(0.99, 1.01),
    range_pairs=pairs,
)
