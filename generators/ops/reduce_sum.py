"""ReduceSum: the sum of each group."""

import math

import numpy as np

from onnx_conformance.generators.ops._shared import ONE_TO_TWELVE
from onnx_conformance.generators.reduce_family import ReduceOp, partial_sums


def pairs(dt):
    if dt.is_float:
        big, tiny, sub = dt.max, dt.smallest_normal, dt.smallest_subnormal
        return [(big, -big), (big / 2, big / 2), (sub, sub), (tiny, -sub), (math.inf, 1.0), (-math.inf, -1.0)]
    p = [(dt.max - 1, 1), (dt.max, 0)]
    if not dt.is_unsigned:
        p += [(dt.max, dt.min), (dt.min + 1, -1), (dt.min, 0)]
    for b in dt.beyond_32_bits:  # 2**53 + 3 has no float64 representation
        p += [(b, 2), (b, b)]
    return p


OPERATOR = ReduceOp(
    intermediate=partial_sums,
    name="ReduceSum",
    step=lambda x, axes, dt: np.add.reduce(x, axis=axes, keepdims=True),
    example_data=ONE_TO_TWELVE,
    range_pairs=pairs,
)
