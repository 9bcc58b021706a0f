"""RoiAlign: per RoI and bin, bilinearly interpolated samples on a regular grid, averaged or maximised; exact in Fractions.

The doc names the method (Mask R-CNN's RoIAlign: 'in each ROI bin, the value of the sampled
locations are computed directly through bilinear interpolation') and the attributes; the sampling
follows the paper's reference implementation, which onnx's operator was taken from:

- RoI corners scaled by spatial_scale (a FLOAT attribute: its float32 value), shifted by -0.5 with
  coordinate_transformation_mode half_pixel (version 16 on, its default); with output_half_pixel
  (and in version 10, which has no shift) a RoI narrower than 1 is taken as 1 wide;
- bin size = RoI size / output size; sampling_ratio x sampling_ratio samples per bin at
  start + bin * (i + 0.5) / grid, or ceil(RoI size / output size) of them when sampling_ratio is 0
  ('an adaptive number of grid points ... computed as ceil(roi_width / output_width)');
- a sample beyond [-1, size] on either axis is 0; otherwise its coordinates are clamped to [0, size - 1]
  and interpolated from the four neighbours;
- mode avg: the mean of the bin's samples; mode max: the largest of the bin's samples (the sampled
  values, each 'computed ... through bilinear interpolation', pooled by max).

Every coordinate, weight and sum is an exact Fraction; the result is rounded once.
"""

import math
from fractions import Fraction

import numpy as np

from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.case import Declared, NotApplicable, Operator
from onnx_conformance.generators.linalg_family import to_type
from onnx_conformance.generators.rounding import exact
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("RoiAlign", primary="T1")


def bilinear(img, y, x):
    """The interpolated value at (y, x) of a 2-D list of Fractions, and the sum of |weight * value|."""
    h, w = len(img), len(img[0])
    if y < -1 or y > h or x < -1 or x > w:
        return Fraction(0), Fraction(0)
    y, x = max(y, Fraction(0)), max(x, Fraction(0))
    y0, x0 = math.floor(y), math.floor(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = Fraction(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = Fraction(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    hy, hx = 1 - ly, 1 - lx
    terms = [hy * hx * img[y0][x0], hy * lx * img[y0][x1], ly * hx * img[y1][x0], ly * lx * img[y1][x1]]
    return sum(terms, Fraction(0)), sum((abs(t) for t in terms), Fraction(0))


def align(x, rois, batch, out_h, out_w, sampling_ratio, scale, half_pixel, mode):
    """(Y as exact values, samples per bin at most, largest sum of |terms| / count over the outputs)."""
    n_rois, c_ = rois.shape[0], x.shape[1]
    y = np.empty((n_rois, c_, out_h, out_w), dtype=object)
    scale = Fraction(float(np.float32(scale)))
    most, mag = 1, Fraction(0)
    for r in range(n_rois):
        off = Fraction(1, 2) if half_pixel else Fraction(0)
        x1, y1, x2, y2 = (exact(float(e)) * scale - off for e in rois[r])
        rw, rh = x2 - x1, y2 - y1
        if not half_pixel:
            rw, rh = max(rw, Fraction(1)), max(rh, Fraction(1))
        bh, bw = rh / out_h, rw / out_w
        gh = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / out_h)
        gw = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / out_w)
        count = max(gh * gw, 1)
        most = max(most, count)
        for c in range(c_):
            img = [[exact(float(e)) for e in row] for row in x[int(batch[r]), c]]
            for ph in range(out_h):
                for pw in range(out_w):
                    samples, size = [], Fraction(0)
                    for iy in range(gh):
                        yy = y1 + ph * bh + (iy + Fraction(1, 2)) * bh / gh
                        for ix in range(gw):
                            xx = x1 + pw * bw + (ix + Fraction(1, 2)) * bw / gw
                            value, m = bilinear(img, yy, xx)
                            samples.append(value)
                            size += m
                    if mode == "max":
                        y[r, c, ph, pw] = max(samples) if samples else Fraction(0)
                        mag = max(mag, size)
                    else:
                        y[r, c, ph, pw] = sum(samples, Fraction(0)) / count
                        mag = max(mag, size / count)
    return y, most, mag


MODE = "mode: 'Two modes are supported: 'avg' and 'max'.'"
TRANSFORMATION = "coordinate_transformation_mode: 'Allowed values are 'half_pixel' and 'output_half_pixel'.'"


def settings(v, attrs: dict) -> dict:
    """The attributes at their defaults (output 1 x 1, adaptive sampling, scale 1, avg, half_pixel from
    version 16; version 10 shifts no coordinate), checked against their allowed values."""
    mode = attr(attrs, "mode", "avg")
    if mode not in ("avg", "max"):
        raise Rejected(MODE)
    half_pixel = False
    if v.has_attribute("coordinate_transformation_mode"):
        transformation = attr(attrs, "coordinate_transformation_mode", "half_pixel")
        if transformation not in ("half_pixel", "output_half_pixel"):
            raise Rejected(TRANSFORMATION)
        half_pixel = transformation == "half_pixel"
    out = dict(out_h=attr(attrs, "output_height", 1), out_w=attr(attrs, "output_width", 1),
               sampling_ratio=attr(attrs, "sampling_ratio", 0), scale=attr(attrs, "spatial_scale", 1.0),
               half_pixel=half_pixel, mode=mode)
    if out["out_h"] < 1 or out["out_w"] < 1:
        raise Rejected("output_height, output_width: 'Pooled output Y's height' and width, at least 1")
    if out["sampling_ratio"] < 0:
        raise Rejected("sampling_ratio: 'If > 0, then exactly sampling_ratio x sampling_ratio grid points are "
                       "used. If == 0, then an adaptive number of grid points are used'")
    return out


@OPERATOR.semantics
def roi_align(v, attrs, inputs):
    """Y (num_rois, C, output_height, output_width): per RoI and bin, the mean (avg) or the largest (max)
    of the bilinearly interpolated samples, exact, rounded once to T1."""
    x, rois, batch = inputs["X"], inputs["rois"], np.asarray(inputs["batch_indices"])
    s = settings(v, attrs)
    if x.ndim != 4:
        raise Rejected("X: '4-D feature map of shape (N, C, H, W)'")
    if rois.ndim != 2 or rois.shape[1] != 4:
        raise Rejected("rois: 'rois is 2-D input of shape (num_rois, 4) given as [[x1, y1, x2, y2], ...].'")
    if batch.shape != (rois.shape[0],):
        raise Rejected("batch_indices: '1-D tensor of shape (num_rois,)'")
    if batch.size and (batch.min() < 0 or batch.max() >= x.shape[0]):
        raise Rejected("batch_indices: 'each element denoting the index of the corresponding image in the batch' "
                       "(outside the batch)")
    y, _, _ = align(x, rois, batch, s["out_h"], s["out_w"], s["sampling_ratio"], s["scale"], s["half_pixel"],
                        s["mode"])
    return {"Y": to_type(y, name_of_numpy(x.dtype))}


def case(v, t, x, rois, batch, output_height=None, output_width=None, sampling_ratio=None, spatial_scale=None,
         mode=None, coordinate_transformation_mode=None):
    """The case: the attributes given, the semantics' Y, the accumulation tolerance of this data (four
    neighbours per sample)."""
    if coordinate_transformation_mode == "half_pixel" and not v.has_attribute("coordinate_transformation_mode"):
        return NotApplicable(f"RoiAlign-{v.since_version} has no coordinate_transformation_mode: its coordinates are "
                             "not shifted (half_pixel comes in version 16)")
    attrs = {k: a for k, a in (("output_height", output_height), ("output_width", output_width),
                               ("sampling_ratio", sampling_ratio), ("spatial_scale", spatial_scale), ("mode", mode))
             if a is not None}
    if coordinate_transformation_mode is not None and v.has_attribute("coordinate_transformation_mode"):
        attrs["coordinate_transformation_mode"] = coordinate_transformation_mode
    s = settings(v, attrs)
    _, n, mag = align(x, rois, batch, s["out_h"], s["out_w"], s["sampling_ratio"], s["scale"], s["half_pixel"],
                          s["mode"])
    return OPERATOR.expect(v, {"X": x, "rois": rois, "batch_indices": np.asarray(batch, dtype=np.int64)}, attrs,
                           tolerance=accumulation(t.dtype, 4 * n, float(mag)))


def sixteenths(t, shape, rng):
    """Values k / 16 in [0, 4): every allowed type holds them, and sums of their products stay small."""
    return (rng.integers(0, 64, size=shape) / 16).astype(t.np())


DOC_ROIS = [[0, 0, 9, 9], [0, 5, 4, 9], [5, 5, 9, 9]]


def documented(name, **attrs):
    """onnx's test_roialign_<name>: its RoIs and attributes on a 1 x 1 x 10 x 10 feature map; onnx's X and Y
    are 4-digit decimals (Y rounded to 4 digits), so the map here holds sixteenths and Y is the exact value
    rounded once."""
    def make(v, t, rng):
        x = sixteenths(t, (1, 1, 10, 10), rng)
        return case(v, t, x, np.array(DOC_ROIS, dtype=np.float64).astype(t.np()), [0, 0, 0], **attrs)

    OPERATOR.example(make, name=name)


documented("aligned_false", spatial_scale=1.0, output_height=5, output_width=5, sampling_ratio=2,
           coordinate_transformation_mode="output_half_pixel")
documented("aligned_true", spatial_scale=1.0, output_height=5, output_width=5, sampling_ratio=2,
           coordinate_transformation_mode="half_pixel")
documented("mode_max", spatial_scale=1.0, output_height=5, output_width=5, sampling_ratio=2, mode="max",
           coordinate_transformation_mode="output_half_pixel")


@OPERATOR.example
def default_attributes(v, t, rng):
    """No attribute: 1 x 1 output, adaptive sampling, scale 1, avg, and (version 16 on) half_pixel."""
    x = sixteenths(t, (1, 2, 6, 6), rng)
    rois = np.array([[0.5, 1, 4.5, 5], [1, 0, 3, 2.5]]).astype(t.np())
    return case(v, t, x, rois, [0, 0])


@OPERATOR.example
def adaptive_sampling_batches(v, t, rng):
    """sampling_ratio 0: ceil(RoI size / output size) samples per axis; RoIs on both images; spatial_scale 0.5."""
    x = sixteenths(t, (2, 2, 6, 8), rng)
    rois = np.array([[2, 1, 13, 9], [0, 0, 6, 11], [3.5, 2, 8, 5]]).astype(t.np())
    return case(v, t, x, rois, [1, 0, 1], output_height=2, output_width=3, sampling_ratio=0, spatial_scale=0.5,
                coordinate_transformation_mode="output_half_pixel")


@OPERATOR.example
def half_pixel_adaptive(v, t, rng):
    x = sixteenths(t, (2, 1, 5, 5), rng)
    rois = np.array([[1, 1, 4, 4], [0, 0.5, 2.5, 5]]).astype(t.np())
    return case(v, t, x, rois, [0, 1], output_height=2, output_width=2, sampling_ratio=0,
                coordinate_transformation_mode="half_pixel")


@OPERATOR.example
def small_roi_output_half_pixel(v, t, rng):
    """A RoI narrower than one pixel: with output_half_pixel it is taken as 1 x 1."""
    x = sixteenths(t, (1, 1, 4, 4), rng)
    rois = np.array([[1, 1, 1.5, 1.25]]).astype(t.np())
    return case(v, t, x, rois, [0], output_height=2, output_width=2, sampling_ratio=2,
                coordinate_transformation_mode="output_half_pixel")


@OPERATOR.example
def beyond_border(v, t, rng):
    """Samples past the map: within one pixel clamped to the border, farther out 0."""
    x = sixteenths(t, (1, 1, 4, 4), rng)
    rois = np.array([[-3, -2, 6, 7]]).astype(t.np())
    return case(v, t, x, rois, [0], output_height=3, output_width=3, sampling_ratio=1,
                coordinate_transformation_mode="output_half_pixel")


@OPERATOR.example
def max_half_pixel(v, t, rng):
    x = (sixteenths(t, (1, 2, 5, 5), rng).astype(np.float64) - 2).astype(t.np())
    rois = np.array([[0, 0, 4, 4], [1, 2, 3, 4]]).astype(t.np())
    return case(v, t, x, rois, [0, 0], output_height=2, output_width=2, sampling_ratio=2, mode="max",
                coordinate_transformation_mode="half_pixel")


def rejected(v, t, x, attrs):
    """An expect-error case: the semantics' rejection of these attributes on a one-RoI input."""
    inputs = {"X": x, "rois": np.array([[0, 0, 2, 2]], dtype=t.np()), "batch_indices": np.array([0], np.int64)}
    return OPERATOR.reject(v, inputs, attrs, {"Y": Declared(t.dtype, [None] * 4)})


@OPERATOR.rejection
def unknown_mode(v, t, rng):
    """mode: 'Two modes are supported: 'avg' and 'max'.'"""
    x = sixteenths(t, (1, 1, 4, 4), rng)
    return rejected(v, t, x, {"mode": "min"})


@OPERATOR.rejection
def unknown_coordinate_transformation_mode(v, t, rng):
    if not v.has_attribute("coordinate_transformation_mode"):
        return NotApplicable(f"RoiAlign-{v.since_version} has no coordinate_transformation_mode")
    x = sixteenths(t, (1, 1, 4, 4), rng)
    return rejected(v, t, x, {"coordinate_transformation_mode": "asymmetric"})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^(aligned_false|adaptive_sampling_batches|default_attributes|beyond_border|small_roi_output_half_pixel) "
    r"(float|double|float16): ",
    "RoiAlign-10 has no coordinate_transformation_mode and shifts no coordinate; the evaluator applies version "
    "16's default half_pixel shift in version 10 too (versions 16 on agree; onnxruntime agrees in 10)",
)
OPERATOR.reference_differs(
    r"^(mode_max|max_half_pixel) ",
    "mode max: the evaluator takes the largest of the four weighted neighbours w_i * v_i of each sample, which is "
    "no interpolated value; the doc's samples are 'computed directly through bilinear interpolation' "
    "(sum of w_i * v_i) and max pools them (onnx/onnx#4764, microsoft/onnxruntime#6146)",
)
OPERATOR.reference_differs(
    r"^unknown_mode float: reference evaluator returned outputs",
    "the evaluator does not check mode ('Two modes are supported: 'avg' and 'max'.')",
)
OPERATOR.reference_differs(
    r"^unknown_coordinate_transformation_mode float: reference evaluator returned outputs",
    "the evaluator does not check coordinate_transformation_mode ('Allowed values are 'half_pixel' and "
    "'output_half_pixel'.')",
)
