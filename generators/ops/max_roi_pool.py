"""MaxRoiPool: the largest element of each of pooled_shape bins of each RoI, per channel.

The doc gives the output shape (num_rois, channels, pooled_shape[0], pooled_shape[1]), the RoI
layout [batch_id, x1, y1, x2, y2] and spatial_scale, not the bins: the oracle follows Fast R-CNN's
RoI max pooling, where the operator comes from: corners scaled and rounded to the nearest pixel
(a corner half-way between two is Undefined: Fast R-CNN's C round() and Python's disagree there), the
RoI spans x1..x2 inclusive (at least one pixel), bin i of n covers [floor(i * size / n), ceil((i + 1) *
size / n)) from the RoI's start, clipped to the map; an empty bin is 0.
"""

import math
from fractions import Fraction

import numpy as np

from onnx_conformance.generators.case import Declared, Operator
from onnx_conformance.generators.linalg_family import to_type
from onnx_conformance.generators.pool_family import random, with_infinities
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("MaxRoiPool")


ROIS = "rois: 'Should be a 2-D tensor of shape (num_rois, 5) given as [[batch_id, x1, y1, x2, y2], ...].'"


def nearest(q: Fraction) -> int:
    """A scaled corner rounded to the nearest pixel (Fast R-CNN's rounding)."""
    if q.denominator == 2:
        raise Undefined("a RoI corner lies half-way between two pixels: the spec does not say how corners round")
    return round(q)


def pool_rois(x, rois, pooled, scale):
    """Per RoI, channel and bin the largest element of the bin (exact input values; 0 for an empty bin)."""
    h_, w_ = x.shape[2:]
    ph_, pw_ = pooled
    scale = Fraction(float(np.float32(scale)))
    y = np.empty((rois.shape[0], x.shape[1], ph_, pw_), dtype=object)
    for r, roi in enumerate(rois):
        b = float(roi[0])
        if not b.is_integer() or not 0 <= b < x.shape[0]:
            raise Rejected(f"{ROIS} (batch_id {b} names no image of the batch)")
        b = int(b)
        x1, y1, x2, y2 = (nearest(Fraction(float(e)) * scale) for e in roi[1:])
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for ph in range(ph_):
            hs = min(max(math.floor(Fraction(ph * rh, ph_)) + y1, 0), h_)
            he = min(max(math.ceil(Fraction((ph + 1) * rh, ph_)) + y1, 0), h_)
            for pw in range(pw_):
                ws = min(max(math.floor(Fraction(pw * rw, pw_)) + x1, 0), w_)
                we = min(max(math.ceil(Fraction((pw + 1) * rw, pw_)) + x1, 0), w_)
                for c in range(x.shape[1]):
                    empty = he <= hs or we <= ws
                    y[r, c, ph, pw] = 0.0 if empty else float(np.max(x[b, c, hs:he, ws:we].astype(np.float64)))
    return y


@OPERATOR.semantics
def max_roi_pool(v, attrs, inputs):
    """Y (num_rois, channels, pooled_shape[0], pooled_shape[1]): each RoI's bins' maxima, rounded to T
    (exact: they are X's values)."""
    x, rois = inputs["X"], inputs["rois"]
    pooled = attrs.get("pooled_shape")
    if pooled is None or len(pooled) != 2 or any(p < 1 for p in pooled):
        raise Rejected("pooled_shape: 'ROI pool output shape (height, width).'")
    if x.ndim != 4:
        raise Rejected("X: '(N x C x H x W)'")
    if rois.ndim != 2 or rois.shape[1] != 5:
        raise Rejected(ROIS)
    y = pool_rois(x, rois, pooled, attr(attrs, "spatial_scale", 1.0))
    return {"Y": to_type(y, name_of_numpy(x.dtype))}


def case(v, t, x, rois, pooled_shape, spatial_scale=None):
    """The case: RoIs in T, the attributes given, the semantics' Y, compared exactly."""
    attrs = {"pooled_shape": pooled_shape}
    if spatial_scale is not None:
        attrs["spatial_scale"] = spatial_scale
    rois = np.array(rois, dtype=np.float64).astype(t.np())
    return OPERATOR.expect(v, {"X": x, "rois": rois}, attrs, tolerance={"ulp": 0})


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
    return OPERATOR.reject(v, {"X": x, "rois": rois}, {"pooled_shape": [2, 2]}, {"Y": Declared(t.dtype, [None] * 4)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(r"No registered implementation for operator 'MaxRoiPool'", "the evaluator has no MaxRoiPool")
