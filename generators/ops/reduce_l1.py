"""ReduceL1: the sum of absolute values of each group."""

import math

import numpy as np

from onnx_conformance.generators.ops._shared import ONE_TO_TWELVE
from onnx_conformance.generators.reduce_family import ReduceOp


def pairs(dt):
    if dt.is_float:
        big, tiny, sub = dt.max, dt.smallest_normal, dt.smallest_subnormal
        return [(-big, 0.0), (sub, -sub), (tiny, -tiny), (-math.inf, 1.0)]
    p = [(dt.max, 0), (dt.max - 1, 1)]
    if not dt.is_unsigned:  # |min| itself is out of range: min + 1 is the edge
        p += [(dt.min + 1, 0), (-1, dt.max - 1)]
    for b in dt.beyond_32_bits:
        p += [(b, 2)] + ([(-b, 2)] if not dt.is_unsigned else [])
    return p


OPERATOR = ReduceOp(
    name="ReduceL1",
    step=lambda x, axes, dt: np.add.reduce(np.abs(x), axis=axes, keepdims=True),
    example_data=ONE_TO_TWELVE,
    range_pairs=pairs,
)
