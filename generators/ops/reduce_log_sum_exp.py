"""ReduceLogSumExp: log(sum(exp(x))) of each group.

For integer dtypes no group of two or more integers has an integral log-sum-exp (Lindemann-Weierstrass),
so integer data makes one element exceed the rest by at least 40: the exact result then lies within
e**-40 (4e-18) of that element, which every rounding rule but ceiling gives.
"""

import math
from functools import lru_cache

import mpmath
import numpy as np
from mpmath.libmp import from_float, mpf_exp

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.ops._shared import MIN_MAX_DATA
from onnx_conformance.generators.reduce_family import (DtypeInfo, Example, ReduceOp, elementwise, integral, logsumexp,
                                                          mp_function, real_log, sum_of_exponentials, to_case)
from onnx_conformance.generators.rounding import PREC


def step(x, axes, dt):
    if dt.is_float:
        exps = elementwise(_exp, x)
        return elementwise(mp_function(real_log), np.add.reduce(exps, axis=axes, keepdims=True))
    return integral(logsumexp(np.asarray(x, dtype=np.longdouble), axes))


def _exp(q):
    """mp_function(mpmath.exp)(q) for a float's exact value q (a Fraction, or a NaN or infinity): the same
    mpf_exp call at PREC bits on the same (exact) operand, without a precision context per element, and
    each value's once (16-bit data repeats: 8192 float16 elements hold about 1500 values)."""
    return _exp_of(float(q))


@lru_cache(maxsize=1 << 16)
def _exp_of(x: float):
    return mpmath.mp.make_mpf(mpf_exp(from_float(x), PREC, "n"))


def dominated(group, rng, dt):
    if len(group) == 1:
        return group
    group[int(rng.integers(len(group)))] = max(group) + 40
    return group


def pairs(dt):
    if dt.is_float:
        big, sub = dt.max, dt.smallest_subnormal
        return [(big, 0.0), (-math.inf, 0.0), (math.inf, 0.0), (sub, -sub)]
    p = [(dt.max, dt.max - 64), (64, 0)]
    if not dt.is_unsigned:
        p += [(dt.min + 64, dt.min)]
    return p


OPERATOR = ReduceOp(
    intermediate=sum_of_exponentials,
    name="ReduceLogSumExp",
    step=step,
    example_data=MIN_MAX_DATA,
    make_integral=dominated,
    range_pairs=pairs,
)


@OPERATOR.example
def exponentials_underflow(v, t, rng):
    """Groups whose every exp(x) is below half the smallest subnormal of float (double for double), so it
    rounds to 0 there and in the type itself, while the result (about max(x)) is representable: a kernel
    that sums exp(x) without first subtracting the group's maximum answers log(0) = -inf."""
    dt = DtypeInfo(t.dtype)
    if not dt.is_float:
        return NotApplicable("integer data has no underflow to tell the shifted formula from the plain one")
    wider = np.finfo(np.float64 if dt.name == "double" else np.float32)
    low = math.floor(math.log(float(wider.smallest_subnormal))) - 6  # -110 (float and narrower), -751 (double)
    data = np.array([[low, low - 1, low - 2, low - 3], [low - 3, low, low - 5, low - 1]], dtype=np.float64)
    return to_case(OPERATOR, v, Example(data.astype(dt.np), (1,), 0))

# Where the function body, run node by node, differs from our value, and why ours stands (cases/expanded.md).
OPERATOR.body_differs(r"got -?inf expected", "ReduceLogSumExp-18's body is Log(ReduceSum(Exp(Cast<double>(data)))), "
                      "with no shift by the group's maximum: Exp overflows double for data past 709.78 and "
                      "underflows to 0 below -745.13 (log(0) = -inf), where the log of the sum is finite (the "
                      "dtype_range and exponentials_underflow examples)")
