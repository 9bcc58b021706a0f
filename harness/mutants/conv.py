"""Mutants of the convolutions: dilations and output padding not honoured, pads in another framework's
order, SAME_LOWER padded as SAME_UPPER, kernels flipped, offsets read (x, y), and state or mask dropped."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import (
    Mutant, ignored, text, with_attributes, with_inputs, with_pads_interleaved,
)

FAMILY = "Convolution"

PADS = "`pads` format should be as follow [x1_begin, x2_begin...x1_end, x2_end,...]"
SAME_LOWER = ("In case the padding is an odd number, the extra padding is added at the end for SAME_UPPER and at "
              "the beginning for SAME_LOWER.")


def _same_lower_as_upper(call, a):
    if text(a.get("auto_pad")) == "SAME_LOWER":
        a["auto_pad"] = "SAME_UPPER"
    return a


def _without(k: int):
    """Optional input k not read, as if absent."""
    return with_inputs(lambda *xs, **_: xs[:k] + (None,) * (len(xs) > k) + xs[k + 1:])


def _offsets_xy(x, w, offset, *rest, **_):
    """2-D offsets read as (x, y) pairs instead of (y, x)."""
    if offset.ndim != 4:
        return (x, w, offset, *rest)
    n, c, oh, ow = offset.shape
    pairs = offset.reshape(n, c // 2, 2, oh, ow)[:, :, ::-1]
    return (x, w, np.ascontiguousarray(pairs).reshape(offset.shape), *rest)


def _kernel_flipped(x, w, *rest, **_):
    """True convolution instead of ONNX's cross-correlation: the kernel taken back to front."""
    return (x, np.ascontiguousarray(w[..., ::-1]), *rest)


MUTANTS = [
    Mutant("CausalConvWithState.ignores_past_state", "CausalConvWithState", "ignored attributes",
           "Carry state from previous step with shape (batch_size, channels, k - 1).", _without(3)),
    Mutant("CausalConvWithState.kernel_flipped", "CausalConvWithState", "layout modes",
           "Weight layout: (channels, 1, k) for depthwise convolution.", with_inputs(_kernel_flipped)),
    Mutant("Conv.ignores_dilations", "Conv", "ignored attributes",
           "dilation value along each spatial axis of the filter.", ignored("dilations")),
    Mutant("Conv.pads_interleaved", "Conv", "layout modes", PADS, with_attributes(with_pads_interleaved)),
    Mutant("Conv.same_lower_as_upper", "Conv", "off-by-one windows", SAME_LOWER,
           with_attributes(_same_lower_as_upper)),
    Mutant("ConvTranspose.ignores_output_padding", "ConvTranspose", "ignored attributes",
           "Additional elements added to the side with higher coordinate indices in the output.",
           ignored("output_padding")),
    Mutant("ConvTranspose.ignores_dilations", "ConvTranspose", "ignored attributes",
           "dilation value along each spatial axis of the filter.", ignored("dilations")),
    Mutant("ConvTranspose.pads_interleaved", "ConvTranspose", "layout modes", PADS,
           with_attributes(with_pads_interleaved)),
    Mutant("DeformConv.ignores_mask", "DeformConv", "ignored attributes",
           "The mask tensor to be applied to each position in the convolution kernel.", _without(4)),
    Mutant("DeformConv.offsets_read_xy", "DeformConv", "layout modes",
           "It has shape (N, offset_group * kH * kW * 2, oH, oW) for 2D data", with_inputs(_offsets_xy),
           note="the text does not order a pair; the project reads (dy, dx), the spatial axes' order, as onnx's "
           "reference and torchvision's deform_conv2d do"),
    Mutant("DeformConv.ignores_dilations", "DeformConv", "ignored attributes",
           "Dilation value along each spatial axis of the kernel.", ignored("dilations")),
]
