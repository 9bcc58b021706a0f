"""Data shared by several Reduce operators' modules: the documented example tensors, edge pairs."""

from __future__ import annotations

import math

import numpy as np

# Documented example data of ReduceMin/Max/Mean/LogSumExp (spec/ReduceMin-onnx-docs-en.txt), shape [3, 2, 2].
MIN_MAX_DATA = [[[5, 1], [20, 2]], [[30, 1], [40, 2]], [[55, 1], [60, 2]]]
# 1..12 in shape [3, 2, 2]: the documented data of ReduceSum/Prod/SumSquare/L1/L2.
ONE_TO_TWELVE = np.arange(1, 13).reshape(3, 2, 2).tolist()


def order_pairs(dt):
    """Edge pairs for Min and Max: neighbours at both ends of the range, beyond 32 and 53 bits."""
    if dt.is_bool:
        return [(True, False), (True, True), (False, False)]
    if dt.is_float:
        big, tiny, sub = dt.max, dt.smallest_normal, dt.smallest_subnormal
        return [(big, -big), (sub, -sub), (sub, tiny), (math.inf, big), (-math.inf, -big)]
    p = [(dt.max, dt.max - 1), (dt.min, dt.min + 1), (dt.max, 0), (dt.min, 0)]
    for b in dt.beyond_32_bits:
        p += [(b, b - 1)] + ([(-b, -b + 1)] if not dt.is_unsigned else [])
    return p
