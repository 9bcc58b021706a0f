"""DeformConv: Conv whose kernel samples the input at offset (fractional) positions, by linear interpolation, times a mask."""

import math

import numpy as np

from onnx_conformance.generators import conv_family as cf
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.conv_family import documented, operand
from onnx_conformance.generators.semantics import Rejected, Undefined, attr

OPERATOR = Operator("DeformConv")

DOC_X = np.arange(9).reshape(1, 1, 3, 3).tolist()
DOC_W = np.ones((1, 1, 2, 2)).tolist()


SHAPES = "X: '(N, C, D1, D2, ... , Dn)'; W: '(oC, C/group, k1, k2, ... , kn)'"
W_SHAPE = "W: 'It has shape (oC, C/group, kH, kW)'"
GROUP = "group: 'C and oC must both be divisible by group.'"
OFFSET_GROUP = "offset_group: 'C must be divisible by offset_group.'"
OFFSET_SHAPE = "offset: 'It has shape (N, offset_group * kH * kW * 2, oH, oW) for 2D data'"
MASK_SHAPE = "mask: 'It has shape (N, offset_group * kH * kW, oH, oW) for 2D data'"


def resolve(v, attrs: dict, x_shape, w_shape) -> dict:
    """strides, pads, dilations, group and offset_group of a DeformConv node on these shapes, checked
    against the spec's rules ('C and oC must both be divisible by group', W of shape (oC, C/group, k...),
    'C must be divisible by offset_group', a dilated kernel no wider than the padded input)."""
    a = cf.attributes(v, attrs, x_shape, w_shape, SHAPES)
    group, offset_group = a.group, attr(attrs, "offset_group", 1)
    if group < 1 or x_shape[1] % group or w_shape[0] % group:
        raise Rejected(GROUP)
    if x_shape[1] != w_shape[1] * group:
        raise Rejected(W_SHAPE)
    if offset_group < 1 or x_shape[1] % offset_group:
        raise Rejected(OFFSET_GROUP)
    empty = "Y: '(N, oC, o1, o2, ..., on)': a kernel wider than the padded input leaves no output"
    return dict(cf.convolve_args(a, x_shape, w_shape, empty), offset_group=offset_group)


@OPERATOR.semantics
def deform_conv(v, attrs, inputs):
    """Conv whose kernel element k of output o samples X at o * stride - pad_begin + k * dilation + offset
    by linear interpolation (zero outside the input), times mask (default ones), times W; plus B. The
    exact sum rounded once to T."""
    x, w, offset = inputs["X"], inputs["W"], inputs["offset"]
    b, mask = inputs.get("B"), inputs.get("mask")
    g = resolve(v, attrs, x.shape, w.shape)
    n = x.ndim - 2
    outs = cf.out_shape(x.shape[2:], w.shape[2:], g["strides"], g["dilations"], g["pads"])
    kn = math.prod(w.shape[2:])
    if list(offset.shape) != [x.shape[0], g["offset_group"] * kn * n, *outs]:
        raise Rejected(OFFSET_SHAPE)
    if mask is not None and list(mask.shape) != [x.shape[0], g["offset_group"] * kn, *outs]:
        raise Rejected(MASK_SHAPE)
    if b is not None and b.shape != (w.shape[0],):
        raise Rejected("B: 'Optional 1D bias of length oC to be added to the convolution.'")
    if not np.isfinite(offset.astype(np.float64)).all():
        raise Undefined("a NaN or infinite offset: linear interpolation at that sampling location has no value")
    return {"Y": cf.rounded_like(cf.add_bias(cf.deform_convolve(x, w, offset, mask, **g), b), x)}


def deform(v, t, x, w, offset, b=None, mask=None, *, kernel_shape=False, strides=None, pads=None, dilations=None,
           group=None, offset_group=None):
    """The case: the attributes given, the semantics' Y, the accumulation tolerance of this data."""
    attrs = cf.given(w, kernel_shape, strides=strides, pads=pads, dilations=dilations, group=group,
                     offset_group=offset_group)
    g = resolve(v, attrs, x.shape, w.shape)
    # each kernel element's sample is a linear interpolation of 2^n input values
    terms = w.shape[1] * math.prod(w.shape[2:]) * 2 ** (x.ndim - 2)
    tol = cf.tolerance(t, terms, cf.deform_magnitude(x, w, offset, mask, b, **g))
    return OPERATOR.expect(v, {"X": x, "W": w, "offset": offset, "B": b, "mask": mask}, attrs, tolerance=tol)


def doc_offset(t, shape, marks):
    off = np.zeros(shape)
    for idx, value in marks:
        off[idx] = value
    return off.astype(t.np())


def offsets(t, shape, rng, reach: int = 6):
    """Offsets in quarters within +-reach/4 (exact in every type): samples between pixels, on pixels, and
    beyond the input's edge."""
    return (rng.integers(-reach, reach + 1, size=shape) / 4).astype(t.np())


def masks(t, shape, rng):
    return (rng.integers(0, 9, size=shape) / 8).astype(t.np())


# ---------------------------------------------------------------------------------------------
# onnx's documented examples (test_basic_deform_conv_*, test_deform_conv_with_*), in every type


@OPERATOR.example
def basic_with_padding(v, t, rng):
    """An h offset of 0.5 and a w offset of -0.1 (the type's nearest value) at two output positions."""
    off = doc_offset(t, (1, 8, 4, 4), [((0, 0, 0, 0), 0.5), ((0, 5, 1, 2), -0.1)])
    return deform(v, t, documented(t, DOC_X), documented(t, DOC_W), off, kernel_shape=True, pads=[1, 1, 1, 1])


@OPERATOR.example
def basic_without_padding(v, t, rng):
    off = doc_offset(t, (1, 8, 2, 2), [((0, 0, 0, 0), 0.5), ((0, 5, 0, 1), -0.1)])
    return deform(v, t, documented(t, DOC_X), documented(t, DOC_W), off, kernel_shape=True, pads=[0, 0, 0, 0])


@OPERATOR.example
def with_mask_bias(v, t, rng):
    off = doc_offset(t, (1, 8, 2, 2), [((0, 0, 0, 0), 0.5), ((0, 5, 0, 1), -0.1)])
    mask = np.ones((1, 4, 2, 2))
    mask[0, 2, 1, 1] = 0.2
    return deform(v, t, documented(t, DOC_X), documented(t, DOC_W), off, documented(t, [1.0]),
                  mask.astype(t.np()), kernel_shape=True, pads=[0, 0, 0, 0])


@OPERATOR.example
def with_multiple_offset_groups(v, t, rng):
    x = np.zeros((1, 2, 3, 3))
    x[0, 0] = np.arange(9).reshape(3, 3)
    x[0, 1] = np.arange(8, -1, -1).reshape(3, 3)
    off = doc_offset(t, (1, 16, 2, 2), [((0, 0, 0, 0), 0.5), ((0, 13, 0, 1), -0.1)])
    return deform(v, t, x.astype(t.np()), documented(t, np.ones((1, 2, 2, 2))), off, kernel_shape=True,
                  pads=[0, 0, 0, 0], offset_group=2)


# ---------------------------------------------------------------------------------------------
# each attribute and input on its own, random data

geometry = cf.geometry_only("the documented examples, offsets, mask_bias and group_offset_groups", what="sampling")


@OPERATOR.example
def offsets_fractional(v, t, rng):
    """Offsets in quarters up to 1.5 pixels: samples between pixels and beyond the edges ('Sampling locations
    outside of the padded input tensor gives zero'), kernel_shape inferred from W."""
    return deform(v, t, operand(t, (1, 2, 4, 4), rng), operand(t, (2, 2, 2, 2), rng),
                  offsets(t, (1, 8, 3, 3), rng))


@OPERATOR.example
def zero_offsets(v, t, rng):
    """All offsets zero: the plain convolution of the input."""
    return deform(v, t, operand(t, (1, 2, 4, 5), rng), operand(t, (2, 2, 3, 2), rng),
                  np.zeros((1, 12, 2, 4), t.np()), pads=[0, 0, 0, 0])


@OPERATOR.example
def mask_bias(v, t, rng):
    """A mask in eighths (zero included) and a bias."""
    return deform(v, t, operand(t, (2, 1, 4, 4), rng), operand(t, (2, 1, 2, 2), rng),
                  offsets(t, (2, 8, 3, 3), rng), operand(t, (2,), rng), masks(t, (2, 4, 3, 3), rng))


@OPERATOR.example
def group_offset_groups(v, t, rng):
    """group 2 and offset_group 2 over 4 channels: each pair of channels its own offsets."""
    return deform(v, t, operand(t, (1, 4, 3, 3), rng), operand(t, (4, 2, 2, 2), rng),
                  offsets(t, (1, 16, 2, 2), rng), group=2, offset_group=2)


@OPERATOR.example
@geometry
def offset_group_across_groups(v, t, rng):
    """group 1 and offset_group 3 over 3 channels: one output reads three differently offset channels."""
    return deform(v, t, operand(t, (1, 3, 3, 4), rng), operand(t, (2, 3, 2, 2), rng),
                  offsets(t, (1, 24, 2, 3), rng), None, masks(t, (1, 12, 2, 3), rng), offset_group=3)


@OPERATOR.example
@geometry
def strides_pads(v, t, rng):
    return deform(v, t, operand(t, (1, 1, 5, 5), rng), operand(t, (1, 1, 3, 3), rng),
                  offsets(t, (1, 18, 3, 2), rng), strides=[2, 3], pads=[1, 1, 1, 0])


@OPERATOR.example
@geometry
def dilations(v, t, rng):
    return deform(v, t, operand(t, (1, 1, 5, 5), rng), operand(t, (1, 1, 2, 2), rng),
                  offsets(t, (1, 8, 3, 4), rng), dilations=[2, 1], pads=[0, 0, 0, 0])


@OPERATOR.example
@geometry
def deform_conv_1d(v, t, rng):
    """The spec's N-d case with n = 1: offsets (N, k * 1, o)."""
    return deform(v, t, operand(t, (1, 2, 6), rng), operand(t, (2, 2, 3), rng), offsets(t, (1, 3, 4), rng))


# ---------------------------------------------------------------------------------------------
# what the spec rules out


def rejected(v, t, x, w, offset, **attrs):
    return cf.rejected(OPERATOR, v, t, x, w, offset, **attrs)


@OPERATOR.rejection
def channels_not_divisible_by_offset_group(v, t, rng):
    return rejected(v, t, operand(t, (1, 3, 3, 3), rng), operand(t, (1, 3, 2, 2), rng),
                    np.zeros((1, 16, 2, 2), t.np()), offset_group=2)


@OPERATOR.rejection
def channels_not_divisible_by_group(v, t, rng):
    return rejected(v, t, operand(t, (1, 3, 3, 3), rng), operand(t, (2, 1, 2, 2), rng),
                    np.zeros((1, 8, 2, 2), t.np()), group=2)


@OPERATOR.rejection
def output_channels_not_divisible_by_group(v, t, rng):
    return rejected(v, t, operand(t, (1, 2, 3, 3), rng), operand(t, (3, 1, 2, 2), rng),
                    np.zeros((1, 8, 2, 2), t.np()), group=2)


@OPERATOR.rejection
def offset_channels_mismatch(v, t, rng):
    """offset with 6 channels for a 2 x 2 kernel (8 wanted)."""
    return rejected(v, t, operand(t, (1, 1, 3, 3), rng), operand(t, (1, 1, 2, 2), rng),
                    np.zeros((1, 6, 2, 2), t.np()))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r" (float16|bfloat16): .*values differ",
    "the evaluator accumulates in the 16-bit type (numpy on float16 arrays; bfloat16 likewise), rounding every "
    "partial sum; ours is the exact sum rounded once, and the tolerance allows a float accumulation",
)
OPERATOR.reference_differs(
    r"^(basic_with_padding|basic_without_padding|with_mask_bias|with_multiple_offset_groups) double: .*values differ",
    "the evaluator samples through its GridSample, which holds the sampling coordinates in float32, so a "
    "double offset of -0.1 is off by about 2e-8; ours interpolates at the double offset exactly ('Use linear "
    "interpolation for fractional offset values')",
)
OPERATOR.reference_differs(
    r"^deform_conv_1d .*not implemented",
    "the evaluator implements 2-D DeformConv only; 'This operator specification supports the general N-D case'",
)
