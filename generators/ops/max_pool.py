"""MaxPool: the largest element of each window (padding excluded) and, from version 8, its flat index."""

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.pool_family import (attributes, documented, grid, maximum, padding_rejections, pooled,
                                                     pooling_windows, random, with_infinities)
from onnx_conformance.generators.semantics import Undefined, attr

OPERATOR = Operator("MaxPool", primary="T")

SOME = ("float",)  # random-data examples; every type runs the documented ones
SPECIALS = ("float", "float16", "bfloat16")


@OPERATOR.semantics
def max_pool(v, attrs, inputs):
    """The largest element of each window, padding excluded; from version 8 also Indices, its position in X
    'computed as flatten 1-D tensor' (storage_order 1: column-major). Indices is Undefined (raised only
    where the node asks for it) where the spec names no index (a tied maximum; storage_order 1 with
    N * C > 1): see pool_family.maximum."""
    x = inputs["X"]
    shape, wins = pooling_windows(v, attrs, x)
    y, index = maximum(x, shape, wins, attr(attrs, "storage_order", 0))
    out = {"Y": pooled(y, x)}
    if len(v.schema.outputs) > 1:
        out["Indices"] = index if index is not None else Undefined(
            "Indices: the spec names no index for a tied maximum, nor a column-major order across N and C")
    return out


def case(v, t, x, kernel_shape, strides=None, pads=None, dilations=None, ceil_mode=None,
         storage_order=None, auto_pad=None, argmax=False):
    """The case: the attributes given (the version must have them), the semantics' Y and, with argmax,
    Indices (else the node leaves Indices out)."""
    if argmax and len(v.schema.outputs) < 2:
        return NotApplicable(f"MaxPool-{v.since_version} has no Indices output (it comes in version 8)")
    attrs = attributes(v, {"auto_pad": auto_pad, "kernel_shape": kernel_shape, "strides": strides, "pads": pads,
                           "dilations": dilations, "ceil_mode": ceil_mode, "storage_order": storage_order})
    if isinstance(attrs, NotApplicable):
        return attrs
    outputs = ["Y", "Indices" if argmax else None] if len(v.schema.outputs) > 1 else ["Y"]
    tolerance = {"ulp": 0} if values.is_float(t.dtype) else None
    try:
        return OPERATOR.expect(v, {"X": x}, attrs, outputs=outputs, tolerance=tolerance)
    except Undefined as e:
        if argmax and e.reason.startswith("Indices:"):
            raise ValueError(f"{e.reason}: pick distinct data") from None
        return NotApplicable(e.reason)


def example(name, data, types=None, **attrs):
    """Register an example; `types` limits it (random-data examples run in SOME types)."""
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
    """Distinct values with each type's extremes (integers) or ordinary values (floats: NaN ranks nowhere)."""
    def data(t, rng):
        return random(t, shape, rng, specials=values.is_int(t.dtype))

    data.random = True
    return data


# onnx's documented examples (test_maxpool_*), their attributes and (fixed) data.
example("2d_uint8", counting((1, 1, 5, 5)), types=("uint8", "int8"), kernel_shape=[5, 5], pads=[2, 2, 2, 2])
# onnx's test_maxpool_2d_precomputed_pads and test_maxpool_with_argmax_2d_precomputed_pads are one node
# on one input, with one output and with two; tests/test_node_test_agreement.py keys a case by inputs
# and attributes, not outputs, so whichever of ours carried that key would "differ" from the other.
# Ours write out a default (strides 1, storage_order 0) to stay out of that comparison.
example("2d_precomputed_pads", counting((1, 1, 5, 5)), kernel_shape=[5, 5], pads=[2, 2, 2, 2], strides=[1, 1])
example("with_argmax_2d_precomputed_pads", counting((1, 1, 5, 5)), kernel_shape=[5, 5], pads=[2, 2, 2, 2],
        storage_order=0, argmax=True)
example("2d_precomputed_strides", counting((1, 1, 5, 5)), kernel_shape=[2, 2], strides=[2, 2])
example("with_argmax_2d_precomputed_strides", counting((1, 1, 5, 5)), kernel_shape=[2, 2], strides=[2, 2],
        storage_order=1, argmax=True)
example("2d_precomputed_same_upper", counting((1, 1, 5, 5)), kernel_shape=[3, 3], strides=[2, 2],
        auto_pad="SAME_UPPER")
example("2d_ceil", counting((1, 1, 4, 4)), kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
example("2d_ceil_output_size_reduce_by_one", counting((1, 1, 2, 2)), kernel_shape=[1, 1], strides=[2, 2],
        ceil_mode=1)
example("2d_dilations", counting((1, 1, 4, 4)), kernel_shape=[2, 2], strides=[1, 1], dilations=[2, 2])
# onnx's 3d_dilations_use_ref_impl is this same node on the same data.
example("3d_dilations", lambda t, rng: documented(t, np.tile(np.arange(1, 17).reshape(4, 4), (1, 1, 4, 1, 1))),
        kernel_shape=[2, 2, 2], strides=[1, 1, 1], dilations=[2, 2, 2])

# onnx's examples on random data: the same attributes on small tensors.
example("1d_default", randomly((1, 3, 8)), kernel_shape=[2])
example("2d_default", randomly((1, 3, 5, 5)), kernel_shape=[2, 2])
example("3d_default", randomly((1, 2, 3, 3, 3)), kernel_shape=[2, 2, 2])
example("2d_same_upper", randomly((1, 3, 5, 5)), kernel_shape=[2, 2], auto_pad="SAME_UPPER")
example("2d_same_lower", randomly((1, 3, 5, 5)), kernel_shape=[2, 2], auto_pad="SAME_LOWER")
example("2d_pads", randomly((1, 3, 5, 5)), kernel_shape=[3, 3], pads=[2, 2, 2, 2])
example("2d_strides", randomly((1, 3, 8, 8)), kernel_shape=[5, 5], strides=[3, 3])
example("3d_dilations_use_ref_impl_large", randomly((1, 1, 9, 9, 9)), kernel_shape=[3, 3, 3], strides=[3, 3, 3],
        dilations=[2, 2, 2], ceil_mode=1)

# The integer types' extremes (every type runs the documented examples).
example("2d_int_extremes", randomly((1, 2, 4, 4)), types=("int8", "uint8"), kernel_shape=[2, 2], pads=[1, 0, 0, 1],
        argmax=True)

# Edge cases: Indices beyond the first image and channel, column-major Indices with padding,
# ceil_mode with padding, SAME_LOWER with strides, VALID.
example("with_argmax_3d_batch", randomly((2, 2, 3, 4, 3)), kernel_shape=[2, 2, 2], strides=[1, 2, 1],
        pads=[0, 1, 0, 1, 0, 1], argmax=True)
example("with_argmax_2d_storage_order_pads", randomly((1, 1, 5, 6)), kernel_shape=[3, 2], strides=[2, 2],
        pads=[1, 0, 1, 1], storage_order=1, argmax=True)
example("with_argmax_2d_dilations_ceil", randomly((2, 3, 7, 6)), kernel_shape=[2, 2], strides=[2, 2],
        dilations=[2, 1], pads=[1, 0, 0, 0], ceil_mode=1, argmax=True)
example("2d_valid_strides", randomly((2, 2, 6, 7)), kernel_shape=[3, 2], strides=[2, 3], auto_pad="VALID")
example("2d_same_lower_strides", randomly((1, 2, 6, 6)), kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_LOWER")


@OPERATOR.example
def ieee_infinities(v, t, rng):
    """+inf wins every window it is in, -inf none (no NaN: the spec does not rank it)."""
    if t.dtype not in SPECIALS:
        return NotApplicable(f"IEEE special values run in {', '.join(SPECIALS)}")
    return case(v, t, with_infinities(t, (1, 1, 4, 4), rng), kernel_shape=[2, 2], pads=[1, 1, 0, 0],
                    argmax=True)


padding_rejections(OPERATOR)

# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^\S+ u?int8: reference evaluator raised ValueError: cannot convert float NaN to integer",
    "the evaluator pads with NaN, which an int8/uint8 input cannot hold; the spec excludes padding from the maximum",
)
OPERATOR.reference_differs(
    r"^2d_same_lower_strides (float|int8): ",
    "the evaluator's MaxPool puts SAME_LOWER's odd padding at the end; the spec adds 'the extra padding ... at the "
    "beginning for SAME_LOWER' (6 wide, kernel 3, stride 2: one pad at the beginning)",
)
OPERATOR.reference_differs(
    r"^ieee_infinities \S+: reference evaluator: output 0 shape \(1, 1, 5, 3\)",
    "the evaluator's MaxPool reads pads [1, 1, 0, 0] as (begin, end) per axis; the spec's format is "
    "[x1_begin, x2_begin, x1_end, x2_end]: one pad before each axis, output 4 x 4",
)
OPERATOR.reference_differs(
    r"^(with_argmax_2d_precomputed_pads bfloat16|2d_int_extremes uint8): reference evaluator: output 1",
    "the evaluator's Indices for a bfloat16 or uint8 input are off (negative); 'the values in indices are in [0, N x C x D1 x ... x Dn)'",
)
