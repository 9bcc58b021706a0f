"""MaxRoiPool: the largest element of each of pooled_shape bins of each RoI, per channel.

The doc gives the output shape (num_rois, channels, pooled_shape[0], pooled_shape[1]), the RoI
layout [batch_id, x1, y1, x2, y2] and spatial_scale, not the bins: the oracle follows Fast R-CNN's
RoI max pooling, where the operator comes from: corners scaled and rounded to the nearest pixel
(no corner here lies half-way), the RoI spans x1..x2 inclusive (at least one pixel), bin i of n covers
[floor(i * size / n), ceil((i + 1) * size / n)) from the RoI's start, clipped to the map; an empty
bin is 0 (none here).
"""

import math
from fractions import Fraction

import numpy as np

from onnx_conformance.generators.case import Case, Declared, Operator
from onnx_conformance.generators.linalg_family import to_type
from onnx_conformance.generators.pool_family import random, with_infinities

OPERATOR = Operator("MaxRoiPool")


def nearest(q: Fraction) -> int:
    if q.denominator == 2:
        raise ValueError("a corner half-way between pixels: pick another RoI")
    return round(q)


def max_roi_pool(x, rois, pooled, scale):
    h_, w_ = x.shape[2:]
    ph_, pw_ = pooled
    scale = Fraction(float(np.float32(scale)))
    y = np.empty((rois.shape[0], x.shape[1], ph_, pw_), dtype=object)
    for r, roi in enumerate(rois):
        b = int(roi[0])
        x1, y1, x2, y2 = (nearest(Fraction(float(e)) * scale) for e in roi[1:])
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for ph in range(ph_):
            hs = min(max(math.floor(Fraction(ph * rh, ph_)) + y1, 0), h_)
            he = min(max(math.ceil(Fraction((ph + 1) * rh, ph_)) + y1, 0), h_)
            for pw in range(pw_):
                ws = min(max(math.floor(Fraction(pw * rw, pw_)) + x1, 0), w_)
                we = min(max(math.ceil(Fraction((pw + 1) * rw, pw_)) + x1, 0), w_)
                if he <= hs or we <= ws:
                    raise ValueError("an empty bin: pick another RoI")
                for c in range(x.shape[1]):
                    y[r, c, ph, pw] = float(np.max(x[b, c, hs:he, ws:we].astype(np.float64)))
    return y


def case(v, t, x, rois, pooled_shape, spatial_scale=None):
    attrs = {"pooled_shape": pooled_shape}
    if spatial_scale is not None:
        attrs["spatial_scale"] = spatial_scale
    rois = np.array(rois, dtype=np.float64).astype(t.np())
    y = max_roi_pool(x, rois, pooled_shape, 1.0 if spatial_scale is None else spatial_scale)
    return Case({"X": x, "rois": rois}, {"Y": to_type(y, t.dtype)}, attrs, tolerance={"ulp": 0})


@OPERATOR.example
def exact_bins(v, t, rng):
    """A 6 x 6 RoI in 2 x 2 bins of 3 x 3."""
    return case(v, t, random(t, (1, 2, 6, 6), rng), [[0, 0, 0, 5, 5]], [2, 2])


@OPERATOR.example
def overlapping_bins_batches(v, t, rng):
    """RoIs on both images; a 5-pixel side in 2 bins: [0, 3) and [2, 5), the middle pixel in both."""
    return case(v, t, random(t, (2, 2, 6, 7), rng), [[1, 1, 0, 5, 4], [0, 2, 1, 6, 5], [1, 0, 0, 6, 5]], [2, 3])


@OPERATOR.example
def spatial_scale(v, t, rng):
    """Corners in image coordinates scaled by 0.25 onto the map (8 -> 2, 20 -> 5)."""
    return case(v, t, random(t, (1, 1, 6, 6), rng), [[0, 8, 4, 20, 16], [0, 0, 0, 12, 8]], [2, 2],
                spatial_scale=0.25)


@OPERATOR.example
def clipped(v, t, rng):
    """A RoI reaching past the map: its bins are clipped to it."""
    return case(v, t, random(t, (1, 2, 4, 5), rng), [[0, 2, 1, 6, 4]], [3, 2])


@OPERATOR.example
def default_scale_1x1(v, t, rng):
    """pooled_shape 1 x 1: the maximum of the whole RoI; spatial_scale left at its default 1."""
    return case(v, t, random(t, (1, 3, 4, 4), rng), [[0, 1, 0, 3, 2]], [1, 1])


@OPERATOR.example
def ieee_infinities(v, t, rng):
    """+inf wins its bins, -inf none."""
    return case(v, t, with_infinities(t, (1, 1, 4, 4), rng), [[0, 0, 0, 3, 3]], [2, 2])


@OPERATOR.rejection
def rois_four_columns(v, t, rng):
    """rois: 'Should be a 2-D tensor of shape (num_rois, 5) given as [[batch_id, x1, y1, x2, y2], ...].'"""
    x = random(t, (1, 1, 4, 4), rng)
    rois = np.array([[0, 0, 3, 3]], dtype=np.float64).astype(t.np())
    return Case({"X": x, "rois": rois}, {"Y": Declared(t.dtype, [None] * 4)}, {"pooled_shape": [2, 2]},
                error="rois: 'Should be a 2-D tensor of shape (num_rois, 5) given as [[batch_id, x1, y1, x2, y2], ...].'")


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(r"No registered implementation for operator 'MaxRoiPool'", "the evaluator has no MaxRoiPool")
