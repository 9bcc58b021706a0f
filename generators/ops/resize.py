"""Resize: each output element's source coordinate from coordinate_transformation_mode, in exact Fractions;
nearest moves input elements, linear and cubic are exact weighted sums rounded once (resize_family)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Declared, NotApplicable, Operator, type_of
from onnx_conformance.generators.resize_family import FLOATS, f32, in_type, plan, resize
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, rule

OPERATOR = Operator("Resize", primary="T1", defaults={"T2": "float"})

BOTH_11 = "May only be set if 'scales' is set to an empty tensor."
ONE_OF = "One of 'scales' and 'sizes' MUST be specified and it is an error if both are specified."
NO_MAPPING_10 = ("Resize-10's doc defines the output size alone ('output_dimension = floor(input_dimension * "
                 "scale)'), no coordinate mapping: only nearest upsampling by whole scales is defined")


@OPERATOR.semantics
def resize_semantics(v, attrs, inputs):
    """Each output element's source coordinate by coordinate_transformation_mode, in exact Fractions; nearest
    moves input elements (by nearest_mode), linear and cubic are exact weighted sums rounded once (antialias,
    exclude_outside, extrapolation_value); scales (float32) or sizes over `axes`, with the aspect-ratio policy.
    Resize-10: nearest upsampling by whole scales only, each element repeated."""
    x = np.asarray(inputs["X"])
    tn = type_of(x)
    mode = attr(attrs, "mode", "nearest")
    scales, sizes, roi = (_given(inputs.get(k)) for k in ("scales", "sizes", "roi"))
    if v.since_version == 10:
        if mode != "nearest" or any(float(s) != int(s) for s in scales):
            raise Undefined(NO_MAPPING_10)
        ctm, nearest_mode = "asymmetric", "floor"
    else:
        ctm = attr(attrs, "coordinate_transformation_mode", "half_pixel")
        nearest_mode = attr(attrs, "nearest_mode", "round_prefer_floor")
    if scales is not None and sizes is not None:
        raise Rejected(BOTH_11 if v.since_version == 11 else ONE_OF)
    if scales is None and sizes is None:
        raise Rejected(ONE_OF)
    if mode != "nearest" and not values.is_float(tn):
        raise Undefined(f"{mode} interpolation of {tn}: the spec does not say how a weighted average is "
                        "rounded to an integer, boolean, string or complex type")
    axes = attrs.get("axes")
    count = len(axes) if axes is not None else x.ndim
    if len(scales if scales is not None else sizes) != count:
        raise Rejected(rule(v, r"number of elements of 'scales'", "scales"))
    p = plan(x.shape, scales=None if scales is None else [Fraction(float(s)) for s in scales],
             sizes=None if sizes is None else [int(s) for s in sizes], axes=axes,
             roi=None if roi is None or ctm != "tf_crop_and_resize" else [Fraction(float(r)) for r in roi],
             policy=attr(attrs, "keep_aspect_ratio_policy", "stretch"), ctm=ctm)
    y, _ = resize(x, tn, p, mode=mode, ctm=ctm, nearest_mode=nearest_mode,
                  a=f32(attr(attrs, "cubic_coeff_a", -0.75)), exclude_outside=bool(attr(attrs, "exclude_outside", 0)),
                  antialias=bool(attr(attrs, "antialias", 0)), extrapolation=f32(attr(attrs, "extrapolation_value", 0.0)))
    return {"Y": y}


def _given(x):
    """An input's values, or None where it is absent or an empty tensor ('set to an empty tensor')."""
    if x is None:
        return None
    x = np.asarray(x).reshape(-1)
    return None if x.size == 0 else x.tolist()

X2 = [[[[1, 2], [3, 4]]]]
X24 = [[[[1, 2, 3, 4], [5, 6, 7, 8]]]]
X44 = [[[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]]]
X14 = [[[[1, 2, 3, 4]]]]

DOC_TYPES = "documented examples run in float; every type is covered by nearest_types, the float types by linear_types and cubic_types"


def t1(t) -> str:
    return t["T1"] if "T1" in t else t["T"]


def since(v, needed: int, what: str):
    if v.since_version < needed:
        return NotApplicable(f"{what} came in Resize-{needed}; Resize-{v.since_version} has none")
    return None


def resize_case(v, t, x, *, scales=None, sizes=None, roi=None, axes=None, mode="nearest", ctm=None,
                nearest_mode=None, cubic_coeff_a=None, exclude_outside=None, extrapolation_value=None,
                antialias=None, policy=None, doc=True):
    """The node, its inputs by version, and the expected Y."""
    x = np.asarray(x)
    tn = t1(t)
    if doc and tn != "float":
        return NotApplicable(DOC_TYPES)
    uses_roi = ctm == "tf_crop_and_resize"
    if "T2" in t and t["T2"] != "float" and not uses_roi:
        return NotApplicable("T2 types only roi, which takes effect with tf_crop_and_resize alone; "
                             "the T2 types are covered by the tf_crop_and_resize examples")
    checks = [
        axes is not None and since(v, 18, "the axes attribute"),
        antialias is not None and since(v, 18, "the antialias attribute"),
        policy is not None and since(v, 18, "keep_aspect_ratio_policy"),
        ctm == "half_pixel_symmetric" and since(v, 19, "coordinate_transformation_mode half_pixel_symmetric"),
    ]
    for c in checks:
        if c:
            return c
    if ctm == "tf_half_pixel_for_nn" and v.since_version != 11:
        return NotApplicable("coordinate_transformation_mode tf_half_pixel_for_nn is Resize-11's alone")
    if v.since_version == 10:
        if mode != "nearest" or ctm is not None or nearest_mode is not None or sizes is not None or roi is not None:
            return NotApplicable("Resize-10 has a scales input and the mode attribute only, and its doc defines the "
                                 "output size alone ('output_dimension = floor(input_dimension * scale)'), no "
                                 "coordinate mapping: only nearest upsampling by whole scales (each element repeated, "
                                 "as Upsample-1's documented example shows) is defined")
        if any(float(s) != int(s) for s in scales):
            return NotApplicable("Resize-10's doc defines no coordinate mapping: nearest resizing is defined here for "
                                 "whole upsampling scales only (each element repeated)")
    if mode != "nearest" and not values.is_float(tn):
        return NotApplicable(f"{mode} interpolation of {tn}: the spec does not say how a weighted average is "
                             "rounded to an integer, boolean, string or complex type")
    attrs = {"mode": mode}
    for key, val in (("coordinate_transformation_mode", ctm), ("nearest_mode", nearest_mode),
                     ("cubic_coeff_a", cubic_coeff_a), ("exclude_outside", exclude_outside),
                     ("extrapolation_value", extrapolation_value), ("antialias", antialias),
                     ("keep_aspect_ratio_policy", policy), ("axes", axes)):
        if val is not None:
            attrs[key] = val
    t2 = t["T2"] if "T2" in t else "float"
    scales_a = None if scales is None else np.array(scales, np.float32)
    sizes_a = None if sizes is None else np.array(sizes, np.int64)
    roi_a = None if roi is None else np.array(roi, np.float64).astype(np.dtype(_np(t2)))
    p = plan(x.shape, scales=None if scales is None else [f32(s) for s in scales], sizes=sizes, axes=axes,
             roi=None if roi is None else [in_type(r, t2) for r in roi], policy=policy or "stretch",
             ctm=ctm or ("asymmetric" if v.since_version == 10 else "half_pixel"))
    _, tol = resize(x, tn, p, mode=mode, ctm=ctm or ("asymmetric" if v.since_version == 10 else "half_pixel"),
                    nearest_mode=nearest_mode or ("floor" if v.since_version == 10 else "round_prefer_floor"),
                    a=f32(-0.75 if cubic_coeff_a is None else cubic_coeff_a), exclude_outside=bool(exclude_outside),
                    antialias=bool(antialias), extrapolation=f32(extrapolation_value or 0.0))
    if v.since_version == 10:
        inputs = {"X": x, "scales": scales_a}
    elif v.since_version == 11:
        # roi and scales are required: 'If 'size' is needed, the user must set 'scales' to an empty tensor.'
        inputs = {"X": x, "roi": roi_a if roi_a is not None else np.zeros(0, _np(t2)),
                  "scales": scales_a if scales_a is not None else np.zeros(0, np.float32)}
        if sizes_a is not None:
            inputs["sizes"] = sizes_a
    else:
        inputs = {"X": x, "roi": roi_a, "scales": scales_a, "sizes": sizes_a}
    return OPERATOR.expect(v, inputs, attrs, tolerance=tol)


def _np(type_name):
    from onnx_conformance.harness.dtypes import numpy_of
    return numpy_of(type_name)


def doc(data, t):
    return np.array(data, np.float64).astype(_np(t1(t)))


# ---------------------------------------------------------------------------------------------
# onnx's documented examples (node tests test_resize_<name>)


@OPERATOR.example
def upsample_scales_nearest(v, t, rng):
    return resize_case(v, t, doc(X2, t), scales=[1, 1, 2, 3])


@OPERATOR.example
def downsample_scales_nearest(v, t, rng):
    return resize_case(v, t, doc(X24, t), scales=[1, 1, 0.6, 0.6])


@OPERATOR.example
def upsample_sizes_nearest(v, t, rng):
    return resize_case(v, t, doc(X2, t), sizes=[1, 1, 7, 8])


@OPERATOR.example
def downsample_sizes_nearest(v, t, rng):
    return resize_case(v, t, doc(X24, t), sizes=[1, 1, 1, 3])


@OPERATOR.example
def upsample_scales_linear(v, t, rng):
    return resize_case(v, t, doc(X2, t), scales=[1, 1, 2, 2], mode="linear")


@OPERATOR.example
def upsample_scales_linear_align_corners(v, t, rng):
    return resize_case(v, t, doc(X2, t), scales=[1, 1, 2, 2], mode="linear", ctm="align_corners")


@OPERATOR.example
def downsample_scales_linear(v, t, rng):
    return resize_case(v, t, doc(X24, t), scales=[1, 1, 0.6, 0.6], mode="linear")


@OPERATOR.example
def downsample_scales_linear_align_corners(v, t, rng):
    return resize_case(v, t, doc(X24, t), scales=[1, 1, 0.6, 0.6], mode="linear", ctm="align_corners")


@OPERATOR.example
def upsample_scales_cubic(v, t, rng):
    return resize_case(v, t, doc(X44, t), scales=[1, 1, 2, 2], mode="cubic")


@OPERATOR.example
def upsample_scales_cubic_align_corners(v, t, rng):
    return resize_case(v, t, doc(X44, t), scales=[1, 1, 2, 2], mode="cubic", ctm="align_corners")


@OPERATOR.example
def downsample_scales_cubic(v, t, rng):
    return resize_case(v, t, doc(X44, t), scales=[1, 1, 0.8, 0.8], mode="cubic")


@OPERATOR.example
def downsample_scales_cubic_align_corners(v, t, rng):
    return resize_case(v, t, doc(X44, t), scales=[1, 1, 0.8, 0.8], mode="cubic", ctm="align_corners")


@OPERATOR.example
def upsample_sizes_cubic(v, t, rng):
    return resize_case(v, t, doc(X44, t), sizes=[1, 1, 9, 10], mode="cubic")


@OPERATOR.example
def downsample_sizes_cubic(v, t, rng):
    return resize_case(v, t, doc(X44, t), sizes=[1, 1, 3, 3], mode="cubic")


@OPERATOR.example
def upsample_scales_cubic_A_n0p5_exclude_outside(v, t, rng):
    return resize_case(v, t, doc(X44, t), scales=[1, 1, 2, 2], mode="cubic", cubic_coeff_a=-0.5, exclude_outside=1)


@OPERATOR.example
def downsample_scales_cubic_A_n0p5_exclude_outside(v, t, rng):
    return resize_case(v, t, doc(X44, t), scales=[1, 1, 0.8, 0.8], mode="cubic", cubic_coeff_a=-0.5,
                       exclude_outside=1)


@OPERATOR.example
def upsample_scales_cubic_asymmetric(v, t, rng):
    return resize_case(v, t, doc(X44, t), scales=[1, 1, 2, 2], mode="cubic", ctm="asymmetric")


def crop(v, t, roi, sizes, axes=None, extrapolation_value=None):
    """tf_crop_and_resize examples run in every float T2 type (the roi's type) too."""
    if t1(t) != "float":
        return NotApplicable(DOC_TYPES)
    return resize_case(v, t, doc(X44, t), roi=roi, sizes=sizes, axes=axes, mode="linear", ctm="tf_crop_and_resize",
                       extrapolation_value=extrapolation_value, doc=False)


@OPERATOR.example
def tf_crop_and_resize(v, t, rng):
    return crop(v, t, [0, 0, 0.4, 0.6, 1, 1, 0.6, 0.8], [1, 1, 3, 3])


@OPERATOR.example
def tf_crop_and_resize_extrapolation_value(v, t, rng):
    return crop(v, t, [0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7], [1, 1, 3, 3], extrapolation_value=10.0)


@OPERATOR.example
def downsample_sizes_linear_pytorch_half_pixel(v, t, rng):
    return resize_case(v, t, doc(X44, t), sizes=[1, 1, 3, 1], mode="linear", ctm="pytorch_half_pixel")


@OPERATOR.example
def upsample_sizes_nearest_floor_align_corners(v, t, rng):
    return resize_case(v, t, doc(X44, t), sizes=[1, 1, 8, 8], ctm="align_corners", nearest_mode="floor")


@OPERATOR.example
def upsample_sizes_nearest_round_prefer_ceil_asymmetric(v, t, rng):
    return resize_case(v, t, doc(X44, t), sizes=[1, 1, 8, 8], ctm="asymmetric", nearest_mode="round_prefer_ceil")


@OPERATOR.example
def upsample_sizes_nearest_ceil_half_pixel(v, t, rng):
    return resize_case(v, t, doc(X44, t), sizes=[1, 1, 8, 8], ctm="half_pixel", nearest_mode="ceil")


@OPERATOR.example
def downsample_scales_linear_antialias(v, t, rng):
    return resize_case(v, t, doc(X44, t), scales=[1, 1, 0.6, 0.6], mode="linear", antialias=1)


@OPERATOR.example
def downsample_sizes_linear_antialias(v, t, rng):
    return resize_case(v, t, doc(X44, t), sizes=[1, 1, 3, 3], mode="linear", antialias=1)


@OPERATOR.example
def downsample_scales_cubic_antialias(v, t, rng):
    return resize_case(v, t, doc(X44, t), scales=[1, 1, 0.6, 0.6], mode="cubic", antialias=1)


@OPERATOR.example
def downsample_sizes_cubic_antialias(v, t, rng):
    return resize_case(v, t, doc(X44, t), sizes=[1, 1, 3, 3], mode="cubic", antialias=1)


@OPERATOR.example
def upsample_scales_nearest_axes_2_3(v, t, rng):
    return resize_case(v, t, doc(X2, t), scales=[2, 3], axes=[2, 3])


@OPERATOR.example
def upsample_scales_nearest_axes_3_2(v, t, rng):
    return resize_case(v, t, doc(X2, t), scales=[3, 2], axes=[3, 2])


@OPERATOR.example
def upsample_sizes_nearest_axes_2_3(v, t, rng):
    return resize_case(v, t, doc(X2, t), sizes=[7, 8], axes=[2, 3])


@OPERATOR.example
def upsample_sizes_nearest_axes_3_2(v, t, rng):
    return resize_case(v, t, doc(X2, t), sizes=[8, 7], axes=[3, 2])


@OPERATOR.example
def tf_crop_and_resize_axes_2_3(v, t, rng):
    return crop(v, t, [0.4, 0.6, 0.6, 0.8], [3, 3], axes=[2, 3])


@OPERATOR.example
def tf_crop_and_resize_axes_3_2(v, t, rng):
    return crop(v, t, [0.6, 0.4, 0.8, 0.6], [3, 3], axes=[3, 2])


@OPERATOR.example
def upsample_sizes_nearest_not_larger(v, t, rng):
    return resize_case(v, t, doc(X2, t), sizes=[7, 8], axes=[2, 3], policy="not_larger")


@OPERATOR.example
def upsample_sizes_nearest_not_smaller(v, t, rng):
    return resize_case(v, t, doc(X2, t), sizes=[7, 8], axes=[2, 3], policy="not_smaller")


@OPERATOR.example
def downsample_sizes_nearest_not_larger(v, t, rng):
    return resize_case(v, t, doc(X24, t), sizes=[1, 3], axes=[2, 3], policy="not_larger")


@OPERATOR.example
def downsample_sizes_nearest_not_smaller(v, t, rng):
    return resize_case(v, t, doc(X24, t), sizes=[1, 3], axes=[2, 3], policy="not_smaller")


@OPERATOR.example
def downsample_scales_linear_half_pixel_symmetric(v, t, rng):
    return resize_case(v, t, doc(X14, t), scales=[1, 1, 1, 0.6], mode="linear", ctm="half_pixel_symmetric")


@OPERATOR.example
def upsample_scales_linear_half_pixel_symmetric(v, t, rng):
    return resize_case(v, t, doc(X2, t), scales=[1, 1, 2.3, 2.94], mode="linear", ctm="half_pixel_symmetric")


# ---------------------------------------------------------------------------------------------
# every type, and the spec's other corners


@OPERATOR.example
def nearest_types(v, t, rng):
    """Every element type: nearest moves the input's own elements (NaN, -0.0, strings, complex included);
    15 elements (odd), rows doubled, columns at 0.6 (Resize-10: whole upsampling scales only)."""
    x = values.sample(t1(t), (1, 1, 3, 5), rng)
    scales = [1, 1, 2, 3] if v.since_version == 10 else [1, 1, 2, 0.6]
    return resize_case(v, t, x, scales=scales, doc=False)


def float_data(t, shape, rng):
    return values.sample(t1(t), shape, rng, specials=False) / 4


@OPERATOR.example
def linear_types(v, t, rng):
    """Bilinear, half_pixel, by sizes: up on one axis, down on the other, in every float type."""
    if t1(t) not in FLOATS:
        return resize_case(v, t, np.zeros((1, 1, 1, 1), _np(t1(t))), sizes=[1, 1, 1, 1], mode="linear", doc=False)
    return resize_case(v, t, float_data(t, (1, 2, 3, 4), rng).astype(_np(t1(t))), sizes=[1, 2, 5, 3],
                       mode="linear", doc=False)


@OPERATOR.example
def cubic_types(v, t, rng):
    """Bicubic, half_pixel, by scales 1.5 and 0.75, in every float type."""
    if t1(t) not in FLOATS:
        return resize_case(v, t, np.zeros((1, 1, 1, 1), _np(t1(t))), sizes=[1, 1, 1, 1], mode="cubic", doc=False)
    return resize_case(v, t, float_data(t, (1, 1, 4, 4), rng).astype(_np(t1(t))), scales=[1, 1, 1.5, 0.75],
                       mode="cubic", doc=False)


@OPERATOR.example
def trilinear_sizes(v, t, rng):
    """A 5-D input, three resized axes (N-linear interpolation), align_corners."""
    return resize_case(v, t, doc(np.arange(12).reshape(1, 1, 2, 3, 2), t), sizes=[1, 1, 3, 4, 3], mode="linear",
                       ctm="align_corners")


@OPERATOR.example
def upsample_scales_nearest_round_prefer_floor_asymmetric(v, t, rng):
    """x_original = x / 2 lands on .5 at every odd x: round_prefer_floor takes the lower index."""
    return resize_case(v, t, doc([[[[1, 2, 3]]]], t), scales=[1, 1, 1, 2], ctm="asymmetric",
                       nearest_mode="round_prefer_floor")


@OPERATOR.example
def upsample_sizes_nearest_tf_half_pixel_for_nn(v, t, rng):
    return resize_case(v, t, doc(X44, t), sizes=[1, 1, 6, 7], ctm="tf_half_pixel_for_nn")


@OPERATOR.example
def linear_exclude_outside_negative_axes(v, t, rng):
    """axes counted from the back; exclude_outside with linear (the samples outside drop out)."""
    return resize_case(v, t, doc(X44, t), scales=[0.75, 1.5], axes=[-2, -1], mode="linear", exclude_outside=1)


@OPERATOR.example
def downsample_sizes_cubic_antialias_exclude_outside(v, t, rng):
    return resize_case(v, t, doc(X44, t), sizes=[1, 1, 3, 2], mode="cubic", antialias=1, exclude_outside=1)


@OPERATOR.rejection
def scales_and_sizes(v, t, rng):
    """Both scales and sizes given."""
    if v.since_version == 10:
        return NotApplicable("Resize-10 has no sizes input")
    x = np.array(X2, np.float32)
    inputs = {"X": x, "roi": np.zeros(0, np.float32), "scales": np.array([1, 1, 2, 2], np.float32),
              "sizes": np.array([1, 1, 4, 4], np.int64)}
    if v.since_version != 11:
        inputs["roi"] = None
    return OPERATOR.reject(v, inputs, {"mode": "nearest"}, {"Y": Declared("float", (1, 1, 4, 4))})


@OPERATOR.rejection
def neither_scales_nor_sizes(v, t, rng):
    if v.since_version < 13:
        return NotApplicable(f"Resize-{v.since_version}'s scales input is required")
    x = np.array(X2, np.float32)
    return OPERATOR.reject(v, {"X": x}, {"mode": "nearest"}, {"Y": Declared("float", (1, 1, 2, 2))})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^nearest_types (bool|string): .*(not inexact|could not convert string)",
    "the evaluator interpolates nearest mode as a weighted sum in floating point, which bool and string "
    "elements cannot enter; nearest moves the input's own elements")
OPERATOR.reference_differs(
    r"^nearest_types \w+: reference evaluator: output 0",
    "the evaluator computes nearest mode as a weighted sum (coefficients 0 and 1): 0 * inf and 0 * NaN give NaN, "
    "complex values lose their imaginary part and 64-bit integers pass through float64; nearest moves the "
    "input's own elements")
OPERATOR.reference_differs(
    r"output_size is None and scale_factors is None",
    "the evaluator's Resize does not read Resize-10's scales (its second input, where later versions have roi)")
OPERATOR.reference_differs(
    r"Invalid coordinate_transformation_mode: 'tf_half_pixel_for_nn'",
    "the evaluator does not implement Resize-11's tf_half_pixel_for_nn (x_original = (x_resized + 0.5) / scale)")
OPERATOR.reference_differs(
    r"^linear_exclude_outside_negative_axes .*axes don't match array",
    "the evaluator does not normalise negative axes ('Negative value means counting dimensions from the back')")
OPERATOR.reference_differs(
    r"^scales_and_sizes .*returned outputs for an expect-error case",
    "the evaluator does not check that only one of scales and sizes is given")
OPERATOR.reference_differs(
    r"^tf_crop_and_resize\w* float: .*got 7\.5976562 expected 7\.599121",
    "with a float16 roi the evaluator computes the coordinates and the output in float16 (7.5976562 is a "
    "float16 value); Y is float32 (T1) and ours is the float32 rounding of the exact interpolation at the "
    "float16 roi")
OPERATOR.reference_differs(
    r"^cubic_types double: .*max abs err [0-9.]+e-0[5-7]",
    "the evaluator loses precision in double cubic weights (errors near 1e-6 relative, float32-sized); "
    "ours is the exact weighted sum rounded once")
