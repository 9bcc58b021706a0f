"""Mutants of the pooling operators: ceil_mode, count_include_pad, dilations and storage_order not
honoured, pads in another order or counted as zeros, indices without the batch and channel offset,
16-bit sums, NaN skipped and maxima that start at zero."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import (
    Mutant, default, floating, ignored, text, with_attributes, with_inputs, with_pads_interleaved,
)

FAMILY = "Pooling"

PADS = "`pads` format should be as follow [x1_begin, x2_begin...x1_end, x2_end,...]"
CEIL = "Whether to use ceil or floor (default) to compute the output shape."


def _max_pool_pads_as_zeros(call, x, **attrs):
    """Explicit pads filled with 0 instead of taking no part in the maximum."""
    pads = attrs.get("pads")
    if pads is None or not any(pads) or text(attrs.get("auto_pad")) not in ("", "NOTSET") or not floating(x):
        return call.run(x, **attrs)
    n = len(pads) // 2
    widths = [(0, 0), (0, 0)] + [(int(pads[i]), int(pads[i + n])) for i in range(n)]
    outs = call.run(np.pad(x, widths), **{**attrs, "pads": [0] * len(pads)})
    if outs[0].shape != call.run(x, **attrs)[0].shape:  # ceil_mode windows may start in the pads
        return call.run(x, **attrs)
    return (outs[0], *call.run(x, **attrs)[1:])


def _indices_per_image(call, x, **attrs):
    """The Indices output counted within each image, without the batch and channel offset."""
    outs = call.run(x, **attrs)
    if len(outs) < 2 or outs[1] is None:
        return outs
    per_image = int(np.prod(x.shape[2:], dtype=np.int64))
    return outs[0], (outs[1] % per_image).astype(outs[1].dtype)


def _global(kind: str):
    def wrong(call, x, **attrs):
        (y,) = call.run(x, **attrs)
        if not floating(x) or x.size == 0 or x.ndim < 3:
            return (y,)
        flat = x.reshape(x.shape[0], x.shape[1], -1)
        with np.errstate(all="ignore"):
            if kind == "16bit":
                if x.dtype.itemsize != 2:
                    return (y,)
                acc = np.zeros(flat.shape[:2], x.dtype)
                for k in range(flat.shape[2]):
                    acc = (acc + flat[..., k]).astype(x.dtype)
                z = (acc / np.asarray(flat.shape[2], x.dtype)).astype(x.dtype)
            elif kind == "fmax":
                z = np.fmax.reduce(flat, axis=2)
            else:  # the running maximum starts at 0
                z = np.maximum(np.max(flat, axis=2), np.zeros((), x.dtype))
        return (np.asarray(z).astype(y.dtype).reshape(y.shape),)
    return wrong


def _unpool_without_output_shape(*xs, **_):
    return xs[:2]


MUTANTS = [
    Mutant("AveragePool.ignores_count_include_pad", "AveragePool", "ignored attributes",
           "Whether include pad pixels when calculating values for the edges.", ignored("count_include_pad"),
           since=(7, None)),
    Mutant("AveragePool.ignores_ceil_mode", "AveragePool", "off-by-one windows", CEIL, ignored("ceil_mode"),
           since=(10, None)),
    Mutant("AveragePool.pads_interleaved", "AveragePool", "layout modes", PADS,
           with_attributes(with_pads_interleaved)),
    Mutant("AveragePool.ignores_dilations", "AveragePool", "ignored attributes",
           "Dilation value along each spatial axis of filter.", ignored("dilations"), since=(19, None)),
    Mutant("GlobalAveragePool.16bit_accumulation", "GlobalAveragePool", "16-bit accumulation",
           "GlobalAveragePool consumes an input tensor X and applies average pooling across the values in the same "
           "channel.", _global("16bit")),
    Mutant("GlobalLpPool.ignores_p", "GlobalLpPool", "ignored attributes",
           "p value of the Lp norm used to pool over the input data.", ignored("p"), since=(2, None)),
    Mutant("GlobalMaxPool.fmax", "GlobalMaxPool", "NaN propagation",
           "GlobalMaxPool consumes an input tensor X and applies max pooling across the values in the same channel.",
           _global("fmax")),
    Mutant("GlobalMaxPool.maximum_starts_at_zero", "GlobalMaxPool", "wrong defaults",
           "GlobalMaxPool consumes an input tensor X and applies max pooling across the values in the same channel.",
           _global("zero")),
    Mutant("LpPool.ignores_p", "LpPool", "ignored attributes",
           "p value of the Lp norm used to pool over the input data.", ignored("p"), since=(2, None)),
    Mutant("LpPool.ignores_dilations", "LpPool", "ignored attributes",
           "dilation value along each spatial axis of the filter.", ignored("dilations"), since=(18, None)),
    Mutant("LpPool.ignores_ceil_mode", "LpPool", "off-by-one windows", CEIL, ignored("ceil_mode"), since=(18, None)),
    Mutant("MaxPool.ignores_ceil_mode", "MaxPool", "off-by-one windows", CEIL, ignored("ceil_mode"),
           since=(10, None)),
    Mutant("MaxPool.ignores_storage_order", "MaxPool", "layout modes",
           "This attribute is used only to convert an n-tuple index value into a single integer value for producing "
           "the second output.", ignored("storage_order"), since=(8, None)),
    Mutant("MaxPool.pads_as_zeros", "MaxPool", "off-by-one windows",
           "max pooling consisting of computing the max on all values of a subset of the input tensor according to "
           "the kernel size and downsampling the data into the output tensor Y for further processing.",
           _max_pool_pads_as_zeros),
    Mutant("MaxPool.indices_per_image", "MaxPool", "index edges",
           "The indices are computed as flatten 1-D tensor, and the indices do not consider padding.",
           _indices_per_image, since=(8, None)),
    Mutant("MaxRoiPool.ignores_spatial_scale", "MaxRoiPool", "ignored attributes",
           "Multiplicative spatial scale factor to translate ROI coordinates from their input scale to the scale "
           "used when pooling.", ignored("spatial_scale")),
    Mutant("MaxUnpool.ignores_output_shape", "MaxUnpool", "ignored attributes",
           "If 'output_shape' is specified, 'pads' values are ignored.", with_inputs(_unpool_without_output_shape)),
    Mutant("MaxUnpool.ignores_pads", "MaxUnpool", "ignored attributes",
           "Padding for the beginning and ending along each spatial axis", ignored("pads")),
    Mutant("RoiAlign.output_half_pixel_by_default", "RoiAlign", "version confusion",
           "Use the value 'half_pixel' to pixel shift the input coordinates by -0.5 (the recommended behavior).",
           default("coordinate_transformation_mode", "output_half_pixel"), since=(16, None),
           note="version 10's behaviour, which the attribute's default changed at 16"),
    Mutant("RoiAlign.ignores_mode", "RoiAlign", "ignored attributes",
           "Two modes are supported: 'avg' and 'max'.", ignored("mode")),
    Mutant("RoiAlign.ignores_sampling_ratio", "RoiAlign", "ignored attributes",
           "If > 0, then exactly sampling_ratio x sampling_ratio grid points are used.", ignored("sampling_ratio")),
]
