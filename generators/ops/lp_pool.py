"""LpPool: (sum over each window of |x|^p)^(1/p); the sum exact, the root by mpmath, rounded once."""

import numpy as np

from onnx import AttributeProto

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.pool_family import (attributes, documented, grid, lp, lp_quality, lp_tolerance,
                                                     padding_rejections, pooled, pooling_windows, random)
from onnx_conformance.generators.semantics import Undefined, attr

OPERATOR = Operator("LpPool")

SOME = ("float",)  # random-data examples; every type runs the documented ones


def p_value(v, p):
    """LpPool-1's p is a FLOAT ('default is 2.0'), an INT from version 2."""
    if p is None:
        return None
    return float(p) if v.schema.attributes["p"].type == AttributeProto.FLOAT else int(p)


@OPERATOR.semantics
def lp_pool(v, attrs, inputs):
    """(sum over each window of |x|^p)^(1/p), padding adding nothing (p default 2: LpPool-1's 'default is
    2.0'): the exact sum, one root, rounded once to T."""
    x = inputs["X"]
    shape, wins = pooling_windows(v, attrs, x)
    y, _, _ = lp(x, shape, wins, attr(attrs, "p", 2))
    return {"Y": pooled(y, x)}


def case(v, t, x, kernel_shape, p=None, strides=None, pads=None, dilations=None, ceil_mode=None, auto_pad=None):
    """The case: the attributes given (the version must have them), the semantics' Y, the tolerance of the
    sum and the root for this data's windows."""
    attrs = attributes(v, {"auto_pad": auto_pad, "kernel_shape": kernel_shape, "strides": strides, "pads": pads,
                           "dilations": dilations, "ceil_mode": ceil_mode, "p": p_value(v, p)})
    if isinstance(attrs, NotApplicable):
        return attrs
    use_p = 2 if p is None else p
    try:
        shape, wins = pooling_windows(v, attrs, x)
        _, n, largest = lp(x, shape, wins, use_p)
    except Undefined as e:
        return NotApplicable(e.reason)
    case = OPERATOR.expect(v, {"X": x}, attrs, tolerance=lp_tolerance(t.dtype, n, largest, use_p))
    case.quality = lp_quality(x, shape, wins, use_p, case.outputs["Y"])
    return case


def example(name, data, types=None, **attrs):
    types = types or (SOME if getattr(data, "random", False) else None)

    def make(v, t, rng):
        if types and t.dtype not in types:
            return NotApplicable(f"this example runs in {', '.join(types)}; {t.dtype} is covered by the documented "
                                 "examples (the window walker does not depend on the type)")
        return case(v, t, data(t, rng), **attrs)

    OPERATOR.example(make, name=name)


def counting(shape):
    return lambda t, rng: grid(t, shape)


def randomly(shape):
    def data(t, rng):
        return random(t, shape, rng) / 8  # |x|^p of the type's data stays far from overflow

    data.random = True
    return data


# onnx's documented examples (test_lppool_*): 2d_dilations with its fixed data, the others (random
# data there) on small tensors with the same attributes.
example("2d_dilations", counting((1, 1, 4, 4)), kernel_shape=[2, 2], strides=[1, 1], dilations=[2, 2], p=2)
example("1d_default", randomly((1, 3, 8)), kernel_shape=[2], strides=[1], p=3)
example("2d_default", randomly((1, 3, 5, 5)), kernel_shape=[2, 2], p=4)
example("3d_default", randomly((1, 2, 3, 3, 3)), kernel_shape=[2, 2, 2], p=3)
example("2d_same_upper", randomly((1, 3, 5, 5)), kernel_shape=[2, 2], auto_pad="SAME_UPPER", p=2)
example("2d_same_lower", randomly((1, 3, 5, 5)), kernel_shape=[2, 2], auto_pad="SAME_LOWER", p=4)
example("2d_pads", randomly((1, 3, 5, 5)), kernel_shape=[3, 3], pads=[2, 2, 2, 2], p=3)
example("2d_strides", randomly((1, 3, 8, 8)), kernel_shape=[5, 5], strides=[3, 3], p=2)

# Every type: small integers (exact squares), p left at its default (2) and p = 1 (an exact sum).
example("2d_default_p", counting((1, 2, 3, 3)), kernel_shape=[2, 2])
example("2d_p1_pads", counting((1, 1, 4, 4)), kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], p=1)
# Edge cases of the walker.
example("2d_ceil_pads", randomly((1, 2, 5, 5)), kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 0, 0], ceil_mode=1,
        p=2)
example("1d_ceil_dilations", randomly((1, 2, 9)), kernel_shape=[3], strides=[2], dilations=[2], ceil_mode=1, p=3)
# Length 10, kernel 3, stride 2: (10 - 3) / 2 = 3.5, so ceil gives 5 windows (the last one holds 2 elements) and
# floor 4; every type (LpPool-18 adds ceil_mode: earlier versions have no such example).
example("1d_ceil_uneven", counting((1, 2, 10)), kernel_shape=[3], strides=[2], ceil_mode=1)
# The same geometry with the last two elements 0: the short last window is 0 however a runtime scales it, so
# the output shape alone (5, not floor's 4) tells ceil_mode honoured from ignored.
example("1d_ceil_zero_tail", lambda t, rng: documented(t, [[[1, 2, 3, 4, 5, 6, 7, 8, 0, 0]]]), kernel_shape=[3],
        strides=[2], ceil_mode=1)
example("2d_valid_strides", randomly((2, 2, 6, 7)), kernel_shape=[3, 2], strides=[2, 3], auto_pad="VALID", p=2)


@OPERATOR.example
def ieee_specials(v, t, rng):
    """An infinity of either sign makes its windows +inf; NaN makes them NaN."""
    if t.dtype not in ("float", "float16"):
        return NotApplicable("IEEE special values run in float and float16")
    x = random(t, (1, 1, 4, 4), rng).astype(np.float64) / 8
    x[0, 0, 0, 0], x[0, 0, 3, 3], x[0, 0, 1, 3] = np.inf, -np.inf, np.nan
    return case(v, t, x.astype(t.np()), kernel_shape=[2, 2], strides=[2, 2], p=2)


padding_rejections(OPERATOR)

# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^ieee_specials \S+: reference evaluator: output 0: 1 of 4 values differ; at index \(0, 0, 0, 1\): got \S+ expected nan",
    "the evaluator marks padding with NaN and drops NaN from the sum, so an input NaN vanishes; |NaN|^p is NaN "
    "and so is the norm",
)
OPERATOR.reference_differs(
    r"^1d_ceil_uneven \S+: reference evaluator: output 0: 2 of 10 values differ",
    "the evaluator averages |x|^p over the window's elements inside the input and multiplies by the kernel size, "
    "so ceil_mode's short last window (2 of 3 elements) is scaled by 3/2; the norm sums the elements there are "
    "(onnxruntime 1.31.1 agrees with ours)",
)
