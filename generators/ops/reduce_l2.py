"""ReduceL2: the Euclidean norm of each group; integer data is chosen so the norm is exact."""

import math

import mpmath
import numpy as np

from onnx_conformance.generators.ops._shared import ONE_TO_TWELVE
from onnx_conformance.generators.reduce_family import (NotIntegral, ReduceOp, elementwise, mp_function,
                                                          sum_of_squares)


def step(x, axes, dt):
    s = np.add.reduce(x * x, axis=axes, keepdims=True)
    if dt.is_float:
        return elementwise(mp_function(mpmath.sqrt), s)

    def root(v):
        r = math.isqrt(int(v))
        if r * r != v:
            raise NotIntegral(f"sum of squares {v} is not a perfect square")
        return r

    return np.vectorize(root, otypes=[object])(s)


def perfect_square(group, rng, dt):
    """Choose the last element c so that sum(others**2) + c**2 is a square:
    S odd: c = (S-1)/2; S a multiple of 4: c = S/4 - 1; S = 2 mod 4 has no such c, so nudge."""
    if len(group) == 1:
        return group
    for _ in range(4):
        s = sum(v * v for v in group[:-1])
        if s % 4 == 2:
            group[0] = group[0] + 1 if group[0] < dt.max else group[0] - 1
            continue
        c = (s - 1) // 2 if s % 2 else max(s // 4 - 1, 0)
        group[-1] = -c if (not dt.is_unsigned and rng.integers(2)) else c
        return group
    raise NotIntegral("no perfect-square completion found")


def pairs(dt):
    if dt.is_float:
        big, sub = dt.max, dt.smallest_subnormal
        return [(big, 0.0), (sub, 0.0), (-math.inf, 0.0), (3.0, 4.0)]
    p = [(dt.max, 0), (3, 4)]
    if not dt.is_unsigned:
        p += [(dt.min + 1, 0)]
    for b in dt.beyond_32_bits:
        p += [(b, 0)]
    return p


OPERATOR = ReduceOp(
    intermediate=sum_of_squares,
    name="ReduceL2",
    step=step,
    example_data=ONE_TO_TWELVE,
    make_integral=perfect_square,
    range_pairs=pairs,
)

# Where the function body, run node by node, differs from our value, and why ours stands (cases/expanded.md).
OPERATOR.body_differs(r"double: ", "ReduceL2-18's body casts the sum of squares with `to = 1` (FLOAT, though it "
                      "names the value sum_square_dbl) before Sqrt and back: a double result carries float's "
                      "rounding (ONNX-3)")
OPERATOR.body_differs(r"^dtype_range .*got inf expected", "the body squares in the data's type (Mul(data, data)): "
                      "a square past the type's range is inf, where the norm of the group is finite")
