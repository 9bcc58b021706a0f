"""Conv: Y[n, m] = sum over the group's input channels and the kernel of X * W (+ B[m]), N-d, exact sums rounded once."""

import math

import numpy as np

from onnx_conformance.generators import conv_family as cf
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.conv_family import documented, operand, specials
from onnx_conformance.generators.linalg_family import beyond_the_type, finite_magnitudes
from onnx_conformance.generators.semantics import Rejected, Undefined, rule
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("Conv")

DOC_X5 = np.arange(25).reshape(1, 1, 5, 5).tolist()
DOC_X7 = np.arange(35).reshape(1, 1, 7, 5).tolist()
DOC_W = np.ones((1, 1, 3, 3)).tolist()


def w_sentence(v) -> str:
    """W's sentence stating the channel rule ('X.shape[1] == (W.shape[1] * group) == C', version 11 adding
    'W.shape[0] mod G == 0'), as this version words it (without its period)."""
    return rule(v, r"X\.shape\[1\] ==", "W").rstrip(".")


SHAPES = "X: '(N x C x D1 x D2 ... x Dn)'; W: '(M x C/group x k1 x k2 x ... x kn)'"
EMPTY_OUTPUT = ("Y: 'The output dimensions are functions of the kernel size, stride size, and pad lengths': a "
                "kernel wider than the padded input gives a negative output dimension")


def resolve(v, attrs: dict, x_shape, w_shape) -> dict:
    """strides, the pads in effect (explicit, or auto_pad's), dilations and group of a Conv node on these
    shapes, checked against the spec's rules: 'X.shape[1] == (W.shape[1] * group) == C' (and from
    version 11 'W.shape[0] mod G == 0'), B 'has size of M', and a dilated kernel no wider than the padded
    input. Conv-1's SAME_* with a stride above 1 has no value: 'the output spatial size match the input'
    is what no padding gives."""
    a = cf.attributes(v, attrs, x_shape, w_shape, SHAPES)
    group = a.group
    if a.auto_pad in ("SAME_UPPER", "SAME_LOWER") and v.since_version < 11 and any(s != 1 for s in a.strides):
        raise Undefined(f"Conv-{v.since_version}'s SAME_* asks that 'the output spatial size match the input', "
                        "which no padding gives with a stride above 1; ceil(input / stride) is Conv-11's")
    if group < 1 or x_shape[1] != w_shape[1] * group:
        raise Rejected(w_sentence(v))
    if w_shape[0] % group:
        if "W.shape[0] mod G == 0" not in w_sentence(v):
            raise Undefined(f"Conv-{v.since_version} gives no value when M is not a multiple of group "
                            "('W.shape[0] mod G == 0' is Conv-11's rule)")
        raise Rejected(w_sentence(v))
    return cf.convolve_args(a, x_shape, w_shape, EMPTY_OUTPUT)


@OPERATOR.quality
def overflowing(v, attrs, inputs, outputs):
    """The finite terms' magnitudes (|X| |W|, + |B|) summed per output, as linalg_family.beyond_the_type reads them."""
    x, w, b = inputs["X"], inputs["W"], inputs.get("B")
    g = resolve(v, attrs, x.shape, w.shape)
    bound = cf.convolve(finite_magnitudes(x).astype(np.float64).astype(object),
                        finite_magnitudes(w).astype(np.float64).astype(object), **g)
    bound = cf.add_bias(bound, None if b is None else finite_magnitudes(b).astype(np.float64).astype(object))
    return beyond_the_type(np.array([float(e) for e in bound.reshape(-1)], dtype=np.longdouble), name_of_numpy(x.dtype))


@OPERATOR.semantics
def conv(v, attrs, inputs):
    """Y[b, m] = sum over the group's input channels and the kernel of the padded X times W, plus B[m]:
    the exact sum rounded once to T."""
    x, w, b = inputs["X"], inputs["W"], inputs.get("B")
    g = resolve(v, attrs, x.shape, w.shape)
    if b is not None and b.shape != (w.shape[0],):
        raise Rejected("B: 'Optional 1D bias to be added to the convolution, has size of M.'")
    if cf.padding_meets_nonfinite(x.shape, w, **g):
        raise Undefined("a NaN or infinite weight meets the zero padding: 0 * inf is NaN by the spec's padding, no "
                        "term where padding is skipped")
    return {"Y": cf.rounded_like(cf.add_bias(cf.convolve(x, w, **g), b), x)}


def case(v, t, x, w, b=None, *, kernel_shape=False, strides=None, pads=None, dilations=None, group=None,
         auto_pad=None):
    """The case: the attributes given (kernel_shape=True writes W's kernel shape), the semantics' Y, and the
    accumulation tolerance of this data (C/group * prod(kernel) terms, the largest sum of |terms|)."""
    attrs = cf.given(w, kernel_shape, strides=strides, pads=pads, dilations=dilations, group=group, auto_pad=auto_pad)
    try:
        g = resolve(v, attrs, x.shape, w.shape)
    except Undefined as e:
        return NotApplicable(e.reason)
    terms = w.shape[1] * math.prod(w.shape[2:])
    tol = cf.tolerance(t, terms, cf.magnitude(x, w, b, **g))
    return OPERATOR.expect(v, {"X": x, "W": w, "B": b}, attrs, tolerance=tol)


# ---------------------------------------------------------------------------------------------
# onnx's documented examples (test_basic_conv_*, test_conv_with_*), in every type


@OPERATOR.example
def basic_conv_with_padding(v, t, rng):
    return case(v, t, documented(t, DOC_X5), documented(t, DOC_W), kernel_shape=True, pads=[1, 1, 1, 1])


@OPERATOR.example
def basic_conv_without_padding(v, t, rng):
    return case(v, t, documented(t, DOC_X5), documented(t, DOC_W), kernel_shape=True, pads=[0, 0, 0, 0])


@OPERATOR.example
def conv_with_strides_padding(v, t, rng):
    return case(v, t, documented(t, DOC_X7), documented(t, DOC_W), kernel_shape=True, pads=[1, 1, 1, 1],
                strides=[2, 2])


@OPERATOR.example
def conv_with_strides_no_padding(v, t, rng):
    return case(v, t, documented(t, DOC_X7), documented(t, DOC_W), kernel_shape=True, pads=[0, 0, 0, 0],
                strides=[2, 2])


@OPERATOR.example
def conv_with_strides_and_asymmetric_padding(v, t, rng):
    return case(v, t, documented(t, DOC_X7), documented(t, DOC_W), kernel_shape=True, pads=[1, 0, 1, 0],
                strides=[2, 2])


@OPERATOR.example
def conv_with_autopad_same(v, t, rng):
    return case(v, t, documented(t, DOC_X5), documented(t, DOC_W), kernel_shape=True, auto_pad="SAME_LOWER",
                strides=[2, 2])


# ---------------------------------------------------------------------------------------------
# each result-changing attribute on its own, random signed data

geometry = cf.geometry_only(
    "the documented examples, bias, group, depthwise, conv_1d, all_attributes and ieee_specials")


@OPERATOR.example
@geometry
def kernel_shape_inferred(v, t, rng):
    """No kernel_shape: 'If not present, should be inferred from input W' (a 2 x 3 kernel)."""
    return case(v, t, operand(t, (1, 2, 4, 5), rng), operand(t, (3, 2, 2, 3), rng))


@OPERATOR.example
def bias(v, t, rng):
    """B of size M, added to every output of its feature map."""
    return case(v, t, operand(t, (2, 2, 4, 4), rng), operand(t, (3, 2, 3, 3), rng), operand(t, (3,), rng),
                kernel_shape=True)


@OPERATOR.example
@geometry
def strides(v, t, rng):
    """Different strides per axis, no padding: the last rows a stride skips stay out."""
    return case(v, t, operand(t, (1, 2, 6, 7), rng), operand(t, (2, 2, 2, 3), rng), strides=[3, 2])


@OPERATOR.example
@geometry
def pads_asymmetric(v, t, rng):
    """Different begin and end pads per axis."""
    return case(v, t, operand(t, (1, 1, 4, 5), rng), operand(t, (2, 1, 3, 3), rng), pads=[2, 0, 1, 3])


@OPERATOR.example
@geometry
def dilations(v, t, rng):
    return case(v, t, operand(t, (1, 2, 7, 6), rng), operand(t, (2, 2, 3, 2), rng), dilations=[2, 3])


@OPERATOR.example
@geometry
def dilations_strides_pads(v, t, rng):
    return case(v, t, operand(t, (1, 1, 7, 7), rng), operand(t, (2, 1, 3, 3), rng), dilations=[2, 2],
                strides=[2, 3], pads=[2, 1, 1, 2])


@OPERATOR.example
def group(v, t, rng):
    """group 2: output channels 0-1 read input channels 0-1, 2-3 read 2-3."""
    return case(v, t, operand(t, (1, 4, 4, 4), rng), operand(t, (4, 2, 2, 2), rng), operand(t, (4,), rng),
                group=2)


@OPERATOR.example
def depthwise(v, t, rng):
    """group == C == 3, two feature maps per channel (W of shape (6, 1, 3, 3))."""
    return case(v, t, operand(t, (1, 3, 5, 5), rng), operand(t, (6, 1, 3, 3), rng), group=3, pads=[1, 1, 1, 1])


@OPERATOR.example
def autopad_same_upper(v, t, rng):
    """A 2 x 4 kernel at stride 1: odd total padding 1 and 3, the extra pixel at the end."""
    return case(v, t, operand(t, (1, 1, 4, 5), rng), operand(t, (1, 1, 2, 4), rng), auto_pad="SAME_UPPER")


@OPERATOR.example
@geometry
def autopad_same_lower(v, t, rng):
    """The same shapes: the extra pixel at the beginning."""
    return case(v, t, operand(t, (1, 1, 4, 5), rng), operand(t, (1, 1, 2, 4), rng), auto_pad="SAME_LOWER")


@OPERATOR.example
def autopad_same_upper_strides(v, t, rng):
    """Stride 2 on 7 and 6: outputs ceil(7/2) = 4 and ceil(6/2) = 3."""
    return case(v, t, operand(t, (1, 2, 7, 6), rng), operand(t, (2, 2, 3, 3), rng), auto_pad="SAME_UPPER",
                strides=[2, 2])


@OPERATOR.example
@geometry
def autopad_notset(v, t, rng):
    """auto_pad NOTSET written out: 'explicit padding is used'."""
    return case(v, t, operand(t, (1, 1, 4, 5), rng), operand(t, (1, 1, 2, 4), rng), auto_pad="NOTSET",
                pads=[1, 0, 0, 2])


@OPERATOR.example
@geometry
def autopad_valid(v, t, rng):
    return case(v, t, operand(t, (1, 1, 5, 4), rng), operand(t, (2, 1, 3, 2), rng), auto_pad="VALID",
                strides=[2, 1])


@OPERATOR.example
def conv_1d(v, t, rng):
    return case(v, t, operand(t, (2, 2, 9), rng), operand(t, (3, 2, 3), rng), operand(t, (3,), rng),
                strides=[2], pads=[1, 2])


@OPERATOR.example
@geometry
def conv_3d(v, t, rng):
    return case(v, t, operand(t, (1, 2, 3, 4, 4), rng), operand(t, (2, 2, 2, 2, 3), rng), operand(t, (2,), rng),
                pads=[1, 0, 1, 0, 1, 1], strides=[1, 2, 1])


@OPERATOR.example
def all_attributes(v, t, rng):
    """Batch 2, group 2, strides, pads, dilations and bias together."""
    return case(v, t, operand(t, (2, 4, 6, 5), rng), operand(t, (4, 2, 2, 2), rng), operand(t, (4,), rng),
                kernel_shape=True, strides=[2, 1], pads=[1, 0, 0, 1], dilations=[2, 1], group=2)


@OPERATOR.example
def ieee_specials(v, t, rng):
    """NaN, inf and -inf in X: a window holding NaN, or inf and -inf, is NaN; inf alone stays inf."""
    return case(v, t, specials(t, (1, 1, 5, 5), rng), operand(t, (1, 1, 2, 2), rng), pads=[1, 1, 0, 0])


# ---------------------------------------------------------------------------------------------
# what the spec rules out


def rejected(v, t, x, w, **attrs):
    return cf.rejected(OPERATOR, v, t, x, w, **attrs)


@OPERATOR.rejection
def channels_not_divisible_by_group(v, t, rng):
    """C = 3 with group 2: no W.shape[1] gives W.shape[1] * group == C."""
    return rejected(v, t, operand(t, (1, 3, 4, 4), rng), operand(t, (2, 1, 3, 3), rng), group=2)


@OPERATOR.rejection
def w_channels_mismatch(v, t, rng):
    """C = 4, group 1, W.shape[1] = 2."""
    return rejected(v, t, operand(t, (1, 4, 4, 4), rng), operand(t, (2, 2, 3, 3), rng))


@OPERATOR.rejection
def feature_maps_not_divisible_by_group(v, t, rng):
    """M = 3 with group 2."""
    if "W.shape[0] mod G == 0" not in w_sentence(v):
        return NotApplicable(f"Conv-{v.since_version} states no rule on M and group "
                             "('W.shape[0] mod G == 0' is Conv-11's)")
    return rejected(v, t, operand(t, (1, 4, 4, 4), rng), operand(t, (3, 2, 3, 3), rng), group=2)


@OPERATOR.rejection
def kernel_larger_than_padded_input(v, t, rng):
    """A 5 x 5 kernel over a 3 x 3 input, no padding: floor((3 - 5) / 1) + 1 = -1 outputs per axis."""
    return rejected(v, t, operand(t, (1, 1, 3, 3), rng), operand(t, (1, 1, 5, 5), rng))


OPERATOR.rejection(cf.pads_with_auto_pad(OPERATOR, (1, 1, 4, 4), (1, 1, 3, 3)), name="pads_with_auto_pad")


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(*cf.HALF_SUMS)
OPERATOR.reference_differs(*cf.AUTO_PAD_OVER_PADS)
