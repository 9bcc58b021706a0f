"""ReduceLogSum: the natural logarithm of each group's sum.

For integer dtypes the only integral log of an integer sum is log(1) = 0, so integer data is
shaped to groups summing to 1.
"""

import math

import numpy as np

from onnx_conformance.generators.ops._shared import MIN_MAX_DATA
from onnx_conformance.generators.reduce_family import (ReduceOp, elementwise, integral, mp_function, partial_sums,
                                                          real_log)


def step(x, axes, dt):
    s = np.add.reduce(x, axis=axes, keepdims=True)
    if dt.is_float:
        return elementwise(mp_function(real_log), s)
    return integral(np.log(np.asarray(s, dtype=np.longdouble)))


def sum_to_one(group, rng, dt):
    if dt.is_unsigned or len(group) == 1:
        group = [0] * len(group)
        group[int(rng.integers(len(group)))] = 1
        return group
    group[-1] = 1 - sum(group[:-1])
    return group


def pairs(dt):
    if dt.is_float:
        big, tiny, sub = dt.max, dt.smallest_normal, dt.smallest_subnormal
        return [(big, 0.0), (sub, 0.0), (tiny, tiny), (math.inf, 1.0)]
    if dt.is_unsigned:
        return [(1, 0)]
    return [(dt.max, 1 - dt.max), (dt.min + 2, dt.max)]


OPERATOR = ReduceOp(
    intermediate=partial_sums,
    name="ReduceLogSum",
    step=step,
    example_data=MIN_MAX_DATA,
    random_range=(0.5, 10.0),
    make_integral=sum_to_one,
    range_pairs=pairs,
    positive_only=True,
)
