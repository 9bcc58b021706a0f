"""AveragePool: the mean of each window, padding excluded unless count_include_pad; exact mean rounded once."""

import numpy as np

from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.pool_family import (attributes, average, documented, grid, padding_rejections, pooled,
                                                     pooling_windows, random, with_infinities)
from onnx_conformance.generators.semantics import Undefined, attr

OPERATOR = Operator("AveragePool")


@OPERATOR.semantics
def average_pool(v, attrs, inputs):
    """'The output of each pooling window is divided by the number of elements (exclude pad when attribute
    count_include_pad is zero)': the exact mean of each window rounded once to T."""
    x = inputs["X"]
    shape, wins = pooling_windows(v, attrs, x)
    y, _, _ = average(x, shape, wins, attr(attrs, "count_include_pad", 0))
    return {"Y": pooled(y, x)}


def case(v, t, x, kernel_shape, strides=None, pads=None, dilations=None, ceil_mode=None,
         count_include_pad=None, auto_pad=None):
    """The case: the attributes given (the version must have them), the semantics' Y, the accumulation
    tolerance of this data's windows."""
    attrs = attributes(v, {"auto_pad": auto_pad, "kernel_shape": kernel_shape, "strides": strides, "pads": pads,
                           "dilations": dilations, "ceil_mode": ceil_mode, "count_include_pad": count_include_pad})
    if isinstance(attrs, NotApplicable):
        return attrs
    try:
        shape, wins = pooling_windows(v, attrs, x)
        _, n, mag = average(x, shape, wins, count_include_pad or 0)
    except Undefined as e:
        return NotApplicable(e.reason)
    return OPERATOR.expect(v, {"X": x}, attrs, tolerance=accumulation(t.dtype, n, float(mag)))


def example(name, data, types=None, **attrs):
    """Register an example; `types` limits it to those types (the others are covered by the documented examples)."""
    types = types or (SOME if getattr(data, "random", False) else None)

    def make(v, t, rng):
        if types and t.dtype not in types:
            return NotApplicable(f"this example runs in {', '.join(types)}; {t.dtype} is covered by the documented "
                                 "examples (the walker does not depend on the type)")
        return case(v, t, data(t, rng), **attrs)

    OPERATOR.example(make, name=name)


SOME = ("float",)
SPECIALS = ("float", "float16", "bfloat16")


def fixed(rows):
    return lambda t, rng: documented(t, rows)


def counting(shape):
    return lambda t, rng: grid(t, shape)


def randomly(shape):
    """Random data of the shape: such examples run in SOME types (the walker does not depend on the type)."""
    def data(t, rng):
        return random(t, shape, rng)

    data.random = True
    return data


# onnx's documented examples (test_averagepool_*), their attributes and (fixed) data.
example("2d_precomputed_pads", counting((1, 1, 5, 5)), kernel_shape=[5, 5], pads=[2, 2, 2, 2])
example("2d_precomputed_pads_count_include_pad", counting((1, 1, 5, 5)), kernel_shape=[5, 5], pads=[2, 2, 2, 2],
        count_include_pad=1)
example("2d_precomputed_strides", counting((1, 1, 5, 5)), kernel_shape=[2, 2], strides=[2, 2])
example("2d_precomputed_same_upper", counting((1, 1, 5, 5)), kernel_shape=[3, 3], strides=[2, 2],
        auto_pad="SAME_UPPER")
example("2d_ceil", counting((1, 1, 4, 4)), kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
example("2d_dilations", counting((1, 1, 4, 4)), kernel_shape=[2, 2], strides=[1, 1], dilations=[2, 2], ceil_mode=1)
example("3d_dilations_small", lambda t, rng: documented(t, np.tile(np.arange(1, 17).reshape(4, 4), (1, 1, 4, 1, 1))),
        kernel_shape=[2, 2, 2], strides=[1, 1, 1], dilations=[2, 2, 2], ceil_mode=1)
# onnx's example of this name feeds 4-digit decimals and expects the mean rounded to 4 digits
# (0.1511 for 1.3595 / 9); here the same geometry with data whose mean each type holds closely,
# so the expected value is the correctly rounded mean, not a 4-digit approximation.
example("2d_ceil_last_window_starts_on_pad",
        fixed([[[[0.875, 0.0625], [0.25, 0.125]], [[0.75, 0.5], [0.5625, 0.625]], [[0.9375, 1.0], [0.5, 0.8125]]]]),
        kernel_shape=[3, 3], strides=[3, 3], pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1)

# onnx's examples on random data: the same attributes on small tensors of every type.
example("1d_default", randomly((1, 3, 8)), kernel_shape=[2])
example("2d_default", randomly((1, 3, 5, 5)), kernel_shape=[2, 2])
example("3d_default", randomly((1, 2, 3, 3, 3)), kernel_shape=[2, 2, 2])
example("2d_same_upper", randomly((1, 3, 5, 5)), kernel_shape=[2, 2], auto_pad="SAME_UPPER")
example("2d_same_lower", randomly((1, 3, 5, 5)), kernel_shape=[2, 2], auto_pad="SAME_LOWER")
example("2d_pads", randomly((1, 3, 5, 5)), kernel_shape=[3, 3], pads=[2, 2, 2, 2])
example("2d_pads_count_include_pad", randomly((1, 3, 5, 5)), kernel_shape=[3, 3], pads=[2, 2, 2, 2],
        count_include_pad=1)
example("2d_strides", randomly((1, 3, 8, 8)), kernel_shape=[5, 5], strides=[3, 3])
for cip in (0, 1):
    for ceil in (True, False):
        example(f"3d_dilations_large_count_include_pad_is_{cip}_ceil_mode_is_{ceil}", randomly((1, 1, 9, 9, 9)), types=("float",),
                kernel_shape=[3, 3, 3], strides=[3, 3, 3], dilations=[2, 2, 2], count_include_pad=cip,
                ceil_mode=int(ceil))

# Edge cases of the walker.
example("2d_valid_strides", randomly((2, 2, 6, 7)), kernel_shape=[3, 2], strides=[2, 3], auto_pad="VALID")
example("2d_same_lower_strides", randomly((1, 2, 6, 6)), kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_LOWER")
example("2d_asymmetric_pads_count_include_pad", randomly((1, 2, 4, 5)), kernel_shape=[2, 3], strides=[2, 2],
        pads=[1, 0, 0, 2], count_include_pad=1)
example("2d_ceil_pads", randomly((1, 2, 5, 5)), kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 0, 0], ceil_mode=1)
example("1d_ceil_dilations_pads", randomly((1, 2, 9)), kernel_shape=[3], strides=[2], pads=[1, 1], dilations=[2],
        ceil_mode=1, count_include_pad=1)


@OPERATOR.example
def ieee_infinities(v, t, rng):
    """An infinity makes its windows infinite; +inf and -inf in one window give NaN (IEEE 754)."""
    if t.dtype not in SPECIALS:
        return NotApplicable(f"IEEE special values run in {', '.join(SPECIALS)}")
    return case(v, t, with_infinities(t, (1, 1, 4, 4), rng), kernel_shape=[2, 2], strides=[1, 1])


@OPERATOR.example
def nan_propagates(v, t, rng):
    if t.dtype not in SPECIALS:
        return NotApplicable(f"IEEE special values run in {', '.join(SPECIALS)}")
    x = random(t, (1, 1, 3, 3), rng).astype(np.float64)
    x[0, 0, 1, 1] = np.nan
    return case(v, t, x.astype(t.np()), kernel_shape=[2, 2], pads=[0, 0, 1, 1])


padding_rejections(OPERATOR)

# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^nan_propagates ",
    "the evaluator pads with NaN and averages with nanmean, so an input NaN is dropped like padding; "
    "a NaN element makes the sum, and the mean, NaN",
)
OPERATOR.reference_differs(
    r"^\S+ bfloat16: .*max ulp \d+ \|?$|^\S+ bfloat16: .*max ulp \d+$",
    "the evaluator sums bfloat16 in bfloat16 (one rounding per addition); ours is the exact mean rounded once",
)
OPERATOR.reference_differs(
    r"^(2d_pads|2d_precomputed_pads|2d_precomputed_same_upper|2d_same_lower|2d_same_upper|2d_same_lower_strides"
    r"|2d_ceil_pads|2d_asymmetric_pads_count_include_pad) (float|double|float16): ",
    "AveragePool-1 divides by 'the number of elements exclude pad'; the evaluator's version-1 kernel counts the "
    "padding (the corner of 2d_precomputed_pads: 171 / 25 = 6.84 instead of 171 / 9 = 19); versions 7 on agree",
)
OPERATOR.reference_differs(
    r"^3d_dilations_large_count_include_pad_is_0_ceil_mode_is_True float: ",
    "the evaluator's 3-D ceil_mode windows with dilations are misplaced: Y[0,0,0,0,0] must be the mean of X at "
    "positions 0, 2, 4 on each axis (kernel 3, dilation 2), which ours is",
)
