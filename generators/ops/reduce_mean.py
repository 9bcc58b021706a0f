"""ReduceMean: the arithmetic mean of each group; integer data is chosen so the mean is exact."""

import math

import numpy as np

from onnx_conformance.generators.ops._shared import MIN_MAX_DATA
from onnx_conformance.generators.reduce_family import NotIntegral, ReduceOp, group_count, partial_sums


def step(x, axes, dt):
    n = group_count(x.shape, axes)
    s = np.add.reduce(x, axis=axes, keepdims=True)
    if dt.is_float:
        return s / n
    if any(int(v) % n for v in np.asarray(s).reshape(-1)):
        raise NotIntegral(f"a group sum is not divisible by its count {n}")
    return np.vectorize(lambda v: int(v) // n, otypes=[object])(s)


def divisible(group, rng, dt):
    """Move the first element so the group's sum is a multiple of its size."""
    n, r = len(group), sum(group) % len(group)
    if r:
        group[0] = group[0] - r if group[0] - r >= dt.min else group[0] + n - r
    return group


def pairs(dt):
    if dt.is_float:
        big, sub = dt.max, dt.smallest_subnormal
        return [(big, big), (-big, -big), (big, -big), (sub, sub), (math.inf, 1.0)]
    p = [(dt.max, dt.max), (dt.max, dt.max - 2), (0, 2)]
    if not dt.is_unsigned:
        p += [(dt.min, dt.min), (dt.min, dt.min + 2)]
    for b in dt.beyond_32_bits:
        p += [(b, b + 2)]
    return p


OPERATOR = ReduceOp(
    intermediate=partial_sums,
    name="ReduceMean",
    step=step,
    example_data=MIN_MAX_DATA,
    make_integral=divisible,
    range_pairs=pairs,
)
