"""ConvTranspose: each input pixel times the kernel, scattered at stride * position, summed; pads crop the full output."""

import math

import numpy as np

from onnx_conformance.generators import conv_family as cf
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.conv_family import documented, operand, specials
from onnx_conformance.generators.semantics import Rejected, Undefined, attr

OPERATOR = Operator("ConvTranspose")

DOC_X = np.arange(9).reshape(1, 1, 3, 3).tolist()
DOC_W = np.ones((1, 2, 3, 3)).tolist()
DOC_X_1D = [[[0.0, 1.0, 2.0]]]
DOC_W_1D = np.ones((1, 2, 3)).tolist()
DOC_X_3D = np.arange(60).reshape(1, 1, 3, 4, 5).tolist()
DOC_W_3D = np.ones((1, 2, 3, 3, 3)).tolist()
DOC_X_DIL = [[[[3.0, 8.0, 1.0], [9.0, 5.0, 7.0], [3.0, 2.0, 6.0]]]]
DOC_W_DIL = [[[[7.0, 2.0], [1.0, 9.0]]]]
DOC_X_GROUP = np.arange(18).reshape(1, 2, 3, 3).tolist()
DOC_X_GROUP_3 = [DOC_X_GROUP[0], [np.arange(18, 27).reshape(3, 3).tolist(), DOC_X_GROUP[0][1]], DOC_X_GROUP[0]]
DOC_W_GROUP = np.ones((2, 1, 3, 3)).tolist()


def v1_same_reason(v):
    """Why ConvTranspose-1's SAME_* has no value here: its auto_pad sentence and its equations disagree."""
    return (f"ConvTranspose-{v.since_version}'s auto_pad sentence ('pad the input so that the output spatial size "
            "match the input', the odd pixel 'at the end for SAME_UPPER') and its equations (output_shape = "
            "stride * (input - 1) + ..., 'If (auto_pads != SAME_UPPER): pads[start_i] = total_padding[i]/2') "
            "disagree on the size and the split; only stride 1 with an even total padding satisfies both")


SHAPES = "X: '(N x C x D1 x D2 ... x Dn)'; W: '(C x M/group x k1 x k2 x ... x kn)'"
W_SHAPE = "W: 'has size (C x M/group x kH x kW), where C is the number of channels'"
GROUPS = "group: 'number of groups input channels and output channels are divided into' ({} channels into {} groups)"
OUTPUT_PADDING = ("output_padding: 'Each padding value in \"output_padding\" must be less than the corresponding "
                  "stride/dilation dimension.'")
NEGATIVE_OUTPUT = ("'output_shape[i] = stride[i] * (input_size[i] - 1) + output_padding[i] + ((kernel_shape[i] - 1) "
                   "* dilations[i] + 1) - pads[start_i] - pads[end_i]' is negative here")


def resolve(v, attrs: dict, x_shape, w_shape) -> dict:
    """strides, the pads in effect, dilations, group and output_padding of a ConvTranspose node on these
    shapes. Pads come from output_shape where given ('If output_shape is specified pads values are
    ignored'), else from SAME_* (an output of input * stride), else VALID's zeros or the explicit pads; the
    split follows the version's equations (ConvTranspose-11: 'If (auto_pads == SAME_UPPER): pads[start_i]
    = total_padding[i]/2'; ConvTranspose-1: 'If (auto_pads != SAME_UPPER)'). ConvTranspose-1's SAME_* has
    a value only where its sentence and its equations agree (stride 1, an even total)."""
    s, d, pads, auto_pad, group = cf.attributes(v, attrs, x_shape, w_shape, SHAPES)
    n, kernel = len(x_shape) - 2, list(w_shape[2:])
    adj = list(attr(attrs, "output_padding", [0] * n))
    output_shape = attrs.get("output_shape")
    if w_shape[0] != x_shape[1]:
        raise Rejected(W_SHAPE)
    if group < 1 or x_shape[1] % group:
        raise Rejected(GROUPS.format(x_shape[1], group))
    if len(adj) != n or any(a < 0 for a in adj):
        raise Rejected("output_padding: one value per spatial axis, 'added to one side of the output'")
    if v.since_version >= 11 and any(a >= st and a >= dl for a, st, dl in zip(adj, s, d)):
        raise Rejected(OUTPUT_PADDING)
    if output_shape is not None:
        output_shape = list(output_shape)[-n:]  # ConvTranspose-1's may also name N and C
    v11 = v.since_version >= 11
    floor_first = (auto_pad == "SAME_UPPER") if v11 else (auto_pad != "SAME_UPPER")
    if output_shape is not None:
        effective = cf.transpose_pads(x_shape[2:], kernel, s, d, adj, output_shape, floor_first)
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        target = [size * st for size, st in zip(x_shape[2:], s)]
        effective = cf.transpose_pads(x_shape[2:], kernel, s, d, adj, target, floor_first)
        if not v11 and (any(st != 1 for st in s) or any((e + b_) % 2 for b_, e in zip(effective[:n], effective[n:]))):
            raise Undefined(v1_same_reason(v))
    elif auto_pad == "VALID":
        effective = [0] * (2 * n)
    else:
        effective = pads or [0] * (2 * n)
    if any(cf.transposed_size(x_shape[2 + i], kernel[i], s[i], d[i], adj[i], effective[i], effective[n + i]) < 1
           for i in range(n)):
        raise Rejected(NEGATIVE_OUTPUT)
    return dict(strides=s, pads=effective, dilations=d, group=group, output_padding=adj)


@OPERATOR.semantics
def conv_transpose(v, attrs, inputs):
    """Each X pixel times the kernel, added at stride * position + dilation * offset of the full output,
    which pads crop; plus B[m]. The exact sum rounded once to T."""
    x, w, b = inputs["X"], inputs["W"], inputs.get("B")
    g = resolve(v, attrs, x.shape, w.shape)
    if b is not None and b.shape != (w.shape[1] * g["group"],):
        raise Rejected("B: 'Optional 1D bias to be added to the convolution, has size of M.'")
    return {"Y": cf.rounded_like(cf.add_bias(cf.conv_transpose(x, w, **g), b), x)}


def convT(v, t, x, w, b=None, *, kernel_shape=False, strides=None, pads=None, dilations=None, group=None,
          output_padding=None, output_shape=None, auto_pad=None):
    """The case: the attributes given, the semantics' Y, the accumulation tolerance of this data."""
    attrs = cf.given(w, kernel_shape, strides=strides, pads=pads, dilations=dilations, group=group,
                     output_padding=output_padding, output_shape=output_shape, auto_pad=auto_pad)
    try:
        g = resolve(v, attrs, x.shape, w.shape)
    except Undefined as e:
        return NotApplicable(e.reason)
    terms = (x.shape[1] // g["group"]) * math.prod(w.shape[2:])
    tol = cf.tolerance(t, terms, cf.largest_sum(cf.conv_transpose, x, w, b, **g))
    return OPERATOR.expect(v, {"X": x, "W": w, "B": b}, attrs, tolerance=tol)


# ---------------------------------------------------------------------------------------------
# onnx's documented examples (test_convtranspose*), in every type


@OPERATOR.example(name="default")
def default_(v, t, rng):
    return convT(v, t, documented(t, DOC_X), documented(t, DOC_W))


@OPERATOR.example(name="1d")
def one_d(v, t, rng):
    return convT(v, t, documented(t, DOC_X_1D), documented(t, DOC_W_1D))


@OPERATOR.example(name="3d")
def three_d(v, t, rng):
    return convT(v, t, documented(t, DOC_X_3D), documented(t, DOC_W_3D))


@OPERATOR.example
def output_shape(v, t, rng):
    """output_shape (10, 8) beyond the computed (9, 7): the extra row and column, which no input reaches, are zero."""
    return convT(v, t, documented(t, DOC_X), documented(t, DOC_W), strides=[3, 2], output_shape=[10, 8])


@OPERATOR.example
def pad(v, t, rng):
    """output_padding (1, 1) at strides (3, 2): one more row and column on the high side."""
    return convT(v, t, documented(t, DOC_X), documented(t, DOC_W), strides=[3, 2], output_padding=[1, 1])


@OPERATOR.example
def kernel_shape(v, t, rng):
    return convT(v, t, documented(t, DOC_X), documented(t, DOC_W), kernel_shape=True, strides=[3, 2],
                 output_shape=[10, 8], output_padding=[1, 1])


@OPERATOR.example
def pads(v, t, rng):
    return convT(v, t, documented(t, DOC_X), documented(t, DOC_W), strides=[3, 2], pads=[1, 2, 1, 2])


@OPERATOR.example
def dilations(v, t, rng):
    return convT(v, t, documented(t, DOC_X_DIL), documented(t, DOC_W_DIL), dilations=[2, 2])


@OPERATOR.example
def autopad_same(v, t, rng):
    return convT(v, t, documented(t, DOC_X), documented(t, DOC_W), auto_pad="SAME_UPPER", strides=[2, 2])


@OPERATOR.example
def group_2(v, t, rng):
    return convT(v, t, documented(t, DOC_X_GROUP), documented(t, DOC_W_GROUP), group=2)


@OPERATOR.example
def group_2_image_3(v, t, rng):
    return convT(v, t, documented(t, DOC_X_GROUP_3), documented(t, DOC_W_GROUP), group=2)


# ---------------------------------------------------------------------------------------------
# each result-changing attribute on its own, random signed data

geometry = cf.geometry_only(
    "the documented examples, bias, group_bias, all_attributes and ieee_specials")


@OPERATOR.example
def bias(v, t, rng):
    """B of size M = W.shape[1] * group, added to every output of its feature map."""
    return convT(v, t, operand(t, (2, 2, 3, 3), rng), operand(t, (2, 3, 2, 2), rng), operand(t, (3,), rng),
                 strides=[2, 1])


@OPERATOR.example
def group_bias(v, t, rng):
    """group 2 of 4 input channels, 3 feature maps per group, and a bias."""
    return convT(v, t, operand(t, (1, 4, 3, 2), rng), operand(t, (4, 3, 2, 2), rng), operand(t, (6,), rng),
                 group=2)


@OPERATOR.example
@geometry
def strides_dilations(v, t, rng):
    return convT(v, t, operand(t, (1, 2, 3, 4), rng), operand(t, (2, 1, 2, 3), rng), strides=[2, 3],
                 dilations=[3, 2])


@OPERATOR.example
@geometry
def pads_asymmetric(v, t, rng):
    """Different begin and end crops per axis."""
    return convT(v, t, operand(t, (1, 1, 3, 4), rng), operand(t, (1, 2, 3, 3), rng), strides=[2, 2],
                 pads=[0, 2, 3, 1])


@OPERATOR.example
@geometry
def output_padding_with_pads(v, t, rng):
    """An end pad of 2 with output_padding 1: the output keeps one computed row the pad would crop
    ('it only controls the selection of the computed values')."""
    if v.since_version < 11:
        return NotApplicable(f"ConvTranspose-{v.since_version}'s output_padding is 'The zero-padding added to one "
                             "side of the output', zeros after the crop; selecting computed values is "
                             "ConvTranspose-11's")
    return convT(v, t, operand(t, (1, 1, 3, 3), rng), operand(t, (1, 1, 3, 3), rng), strides=[2, 2],
                 pads=[0, 0, 2, 2], output_padding=[1, 1])


@OPERATOR.example
@geometry
def output_shape_odd_total(v, t, rng):
    """output_shape (6, 8) of the computed (7, 9): total padding 1 per axis, split by the version's equations
    (the odd pixel at the start from ConvTranspose-11, at the end in ConvTranspose-1)."""
    return convT(v, t, operand(t, (1, 1, 3, 4), rng), operand(t, (1, 1, 3, 3), rng), strides=[2, 2],
                 output_shape=[6, 8])


@OPERATOR.example
@geometry
def output_shape_with_output_padding(v, t, rng):
    """output_shape with output_padding: 'output_padding does not contribute additional size to output_shape
    but participates in the computation of the needed padding amount' (total 2 + 1 - ... per axis)."""
    if v.since_version < 11:
        return NotApplicable(f"ConvTranspose-{v.since_version} does not say how output_padding and output_shape "
                             "combine; ConvTranspose-11 does")
    return convT(v, t, operand(t, (1, 1, 3, 3), rng), operand(t, (1, 1, 3, 3), rng), strides=[2, 2],
                 output_padding=[1, 1], output_shape=[6, 5])


@OPERATOR.example
@geometry
def autopad_same_upper_stride1(v, t, rng):
    """Stride 1, a 3 x 3 kernel: total padding 2 per axis, one pixel cropped at each side (every version agrees)."""
    return convT(v, t, operand(t, (1, 2, 3, 4), rng), operand(t, (2, 1, 3, 3), rng), auto_pad="SAME_UPPER")


@OPERATOR.example
@geometry
def autopad_same_lower(v, t, rng):
    """Stride 2, a kernel of 3: output 2 * input, total padding 1: the odd pixel cropped at the beginning."""
    return convT(v, t, operand(t, (1, 1, 3, 4), rng), operand(t, (1, 1, 3, 3), rng), auto_pad="SAME_LOWER",
                 strides=[2, 2])


@OPERATOR.example
@geometry
def autopad_same_upper(v, t, rng):
    """The same shapes with SAME_UPPER: the odd pixel cropped at the end."""
    return convT(v, t, operand(t, (1, 1, 3, 4), rng), operand(t, (1, 1, 3, 3), rng), auto_pad="SAME_UPPER",
                 strides=[2, 2])


@OPERATOR.example
@geometry
def autopad_notset(v, t, rng):
    """auto_pad NOTSET written out: the explicit pads crop."""
    return convT(v, t, operand(t, (1, 1, 3, 3), rng), operand(t, (1, 1, 3, 2), rng), auto_pad="NOTSET",
                 strides=[2, 2], pads=[1, 0, 0, 1])


@OPERATOR.example
@geometry
def autopad_valid(v, t, rng):
    return convT(v, t, operand(t, (1, 1, 3, 2), rng), operand(t, (1, 2, 2, 3), rng), auto_pad="VALID",
                 strides=[2, 3])


@OPERATOR.example
def all_attributes(v, t, rng):
    """Batch 2, group 2, strides, pads, dilations, output_padding and bias together (1-D)."""
    return convT(v, t, operand(t, (2, 4, 5), rng), operand(t, (4, 1, 3), rng), operand(t, (2,), rng),
                 kernel_shape=True, strides=[3], pads=[1, 2], dilations=[2], group=2, output_padding=[1])


@OPERATOR.example
def ieee_specials(v, t, rng):
    """NaN, inf and -inf in X spread over the outputs their kernel reaches (IEEE 754 sums)."""
    return convT(v, t, specials(t, (1, 1, 4, 4), rng), operand(t, (1, 1, 2, 2), rng), strides=[2, 2])


# ---------------------------------------------------------------------------------------------
# what the spec rules out


def rejected(v, t, x, w, **attrs):
    return cf.rejected(OPERATOR, v, t, x, w, **attrs)


@OPERATOR.rejection
def w_channels_mismatch(v, t, rng):
    """X has 2 channels, W.shape[0] is 3."""
    return rejected(v, t, operand(t, (1, 2, 3, 3), rng), operand(t, (3, 1, 2, 2), rng))


@OPERATOR.rejection
def channels_not_divisible_by_group(v, t, rng):
    """C = 3 with group 2: C/group channels per group is no integer."""
    return rejected(v, t, operand(t, (1, 3, 3, 3), rng), operand(t, (3, 1, 2, 2), rng), group=2)


@OPERATOR.rejection
def output_padding_not_less_than_stride(v, t, rng):
    """output_padding 1 at stride 1 and dilation 1."""
    if v.since_version < 11:
        return NotApplicable(f"ConvTranspose-{v.since_version} sets no bound on output_padding")
    return rejected(v, t, operand(t, (1, 1, 3, 3), rng), operand(t, (1, 1, 2, 2), rng), output_padding=[1, 1])


@OPERATOR.rejection
def pads_beyond_output(v, t, rng):
    """pads 3 on each side of a computed 5 x 5 output: 5 - 6 = -1 rows."""
    return rejected(v, t, operand(t, (1, 1, 3, 3), rng), operand(t, (1, 1, 3, 3), rng), pads=[3, 3, 3, 3])


OPERATOR.rejection(cf.pads_with_auto_pad(OPERATOR, (1, 1, 3, 3), (1, 1, 3, 3)), name="pads_with_auto_pad")


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(*cf.HALF_SUMS)
OPERATOR.reference_differs(
    r"^(all_attributes|group_bias) .*cannot reshape array",
    "the evaluator's grouped ConvTranspose fails (a reshape error) when a group holds more than one input channel; "
    "W of shape (C, M/group, k...) and 'number of groups input channels and output channels are divided into' allow it",
)
OPERATOR.reference_differs(
    r"^output_shape_(odd_total|with_output_padding) .*expected size of input",
    "the evaluator refuses an output_shape below the computed output; the spec turns it into pads "
    "('output_shape can also be explicitly specified in which case pads values are auto generated')",
)
OPERATOR.reference_differs(*cf.AUTO_PAD_OVER_PADS)
