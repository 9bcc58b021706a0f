"""Mutants of the image and resampling operators: coordinate modes and their defaults from another
version or framework, align_corners, padding and pixel formats not honoured, and thresholds compared
the other way at equality."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import Mutant, default, ignored, with_inputs

FAMILY = "Image and resampling"

ALIGN = "if align_corners=1, consider -1 and 1 to refer to the centers of the corner pixels."


def _nudged(k: int, towards: float):
    """Threshold input k moved one step towards `towards`: a strict comparison at it becomes non-strict."""
    def inputs(*xs, **_):
        if len(xs) <= k or xs[k] is None or np.asarray(xs[k]).dtype.kind != "f":
            return xs
        t = np.asarray(xs[k])
        return xs[:k] + (np.nextafter(t, np.asarray(towards, t.dtype)).astype(t.dtype),) + xs[k + 1:]
    return with_inputs(inputs)


MUTANTS = [
    Mutant("AffineGrid.ignores_align_corners", "AffineGrid", "ignored attributes", ALIGN, ignored("align_corners")),
    Mutant("GridSample.ignores_align_corners", "GridSample", "ignored attributes",
           "If align_corners=1, the extrema (-1 and 1) are considered as referring to the center points of the "
           "input's corner pixels", ignored("align_corners")),
    Mutant("GridSample.ignores_padding_mode", "GridSample", "ignored attributes",
           "Support padding modes for outside grid values", ignored("padding_mode")),
    Mutant("GridSample.ignores_mode", "GridSample", "ignored attributes", "Three interpolation modes",
           ignored("mode")),
    Mutant("ImageDecoder.ignores_pixel_format", "ImageDecoder", "layout modes",
           'Pixel format. Can be one of "RGB", "BGR", or "Grayscale".', ignored("pixel_format")),
    Mutant("NonMaxSuppression.iou_at_threshold_suppressed", "NonMaxSuppression", "off-by-one windows",
           "Boxes are suppressed if their IOU with a previously selected box is strictly greater than iou_threshold "
           "(i.e., boxes with IOU exactly equal to the threshold are kept).", _nudged(3, -np.inf)),
    Mutant("NonMaxSuppression.score_at_threshold_removed", "NonMaxSuppression", "off-by-one windows",
           "Bounding boxes with score less than score_threshold are removed.", _nudged(4, np.inf)),
    Mutant("NonMaxSuppression.ignores_center_point_box", "NonMaxSuppression", "layout modes",
           "Integer indicate the format of the box data.", ignored("center_point_box")),
    Mutant("Resize.asymmetric_by_default", "Resize", "version confusion",
           "This attribute describes how to transform the coordinate in the resized tensor to the coordinate in the "
           "original tensor.", default("coordinate_transformation_mode", "asymmetric"), since=(11, None),
           note="version 10's only reading; the default is half_pixel from version 11"),
    Mutant("Resize.round_prefer_ceil_by_default", "Resize", "wrong defaults",
           '"round_prefer_floor" (default, as known as round half down)', default("nearest_mode", "round_prefer_ceil"),
           since=(11, None), note="C's round(): half away from zero"),
    Mutant("Resize.cubic_coeff_of_tensorflow", "Resize", "wrong defaults",
           "Two common choice are -0.5 (in some cases of TensorFlow) and -0.75 (in PyTorch).",
           default("cubic_coeff_a", -0.5), since=(11, None)),
    Mutant("Resize.ignores_exclude_outside", "Resize", "ignored attributes",
           "If set to 1, the weight of sampling locations outside the tensor will be set to 0 and the weight will be "
           "renormalized so that their sum is 1.0.", ignored("exclude_outside"), since=(11, None)),
    Mutant("Resize.ignores_antialias", "Resize", "ignored attributes",
           'If set to 1, "linear" and "cubic" interpolation modes will use an antialiasing filter when downscaling.',
           ignored("antialias"), since=(18, None)),
    Mutant("Upsample.ignores_mode", "Upsample", "ignored attributes",
           "Two interpolation modes: nearest (default), and linear (including bilinear, trilinear, etc)",
           ignored("mode")),
]
