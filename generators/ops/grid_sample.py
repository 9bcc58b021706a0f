"""GridSample: Y at each grid location, from X by mode (nearest, linear, cubic) and padding_mode (zeros, border,
reflection), exactly in Fractions (resize_family.grid_sample)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import NotApplicable, Operator, type_of
from onnx_conformance.generators.resize_family import FLOATS, grid_sample
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = Operator("GridSample", primary="T1", defaults={"T2": "float"})
NEW_MODES = {"bilinear": "linear", "bicubic": "cubic", "nearest": "nearest", "linear": "linear", "cubic": "cubic"}


@OPERATOR.semantics
def grid_sample_semantics(v, attrs, inputs):
    """Y at each grid location (innermost coordinate first, -1 and 1 the image's corners), from X by mode
    (GridSample-16: bilinear, bicubic, nearest; 20 on: linear, cubic, nearest) and padding_mode, exactly;
    4-D inputs only before GridSample-20."""
    x, grid = np.asarray(inputs["X"]), np.asarray(inputs["grid"])
    if x.ndim != 4 and v.since_version < 20:
        raise Rejected("Currently, only spatial (4-D) inputs are supported.")
    if grid.ndim != x.ndim or grid.shape[0] != x.shape[0] or grid.shape[-1] != x.ndim - 2:
        raise Rejected(v.sentence(r"grid") or "grid: (N, D1_out, ..., Dr_out, r), r the number of spatial dimensions")
    mode = NEW_MODES[attr(attrs, "mode", "bilinear" if v.since_version < 20 else "linear")]
    if mode != "nearest" and not values.is_float(type_of(x)):
        raise Undefined(f"{mode} interpolation of {type_of(x)}: the spec does not say how an interpolated value is "
                        "rounded to an integer, boolean, string or complex type")
    g_exact = np.vectorize(lambda e: Fraction(float(e)), otypes=[object])(grid.astype(np.float64))
    y, _ = grid_sample(x, g_exact, type_of(x), mode, attr(attrs, "padding_mode", "zeros"),
                       bool(attr(attrs, "align_corners", 0)))
    return {"Y": y}

X32 = np.arange(6, dtype=np.float64).reshape(1, 1, 3, 2)
X44 = np.arange(16, dtype=np.float64).reshape(1, 1, 4, 4)
X322 = np.arange(1, 13, dtype=np.float64).reshape(1, 1, 3, 2, 2)
G_BASIC = [[[[-1, -1], [-0.5, -0.5], [-0.2, -0.2], [0, 0]], [[0, 0], [-0.2, -0.2], [0.5, 0.5], [1, 1]]]]
G_FAR = [[[[-10, -10], [-5, -5], [-0.2, -0.2], [10, 10]], [[10, 10], [-0.2, -0.2], [5, 5], [10, 10]]]]
G_ADDITIONAL = [[[[-1, -0.8], [-0.6, -0.5], [-0.1, -0.2], [0.7, 0]],
                 [[0, 0.4], [0.2, -0.2], [-0.3, 0.5], [-1, 1]]]]
STEPS = [-1, -0.6, -0.2, 0.2, 0.6, 1]
G_6X6 = [[[[gx, gy] for gx in STEPS] for gy in STEPS]]
G_VOLUME = [[[[[-1, -1, -1], [-1, -0.5, 0.3]], [[-0.5, -0.5, -0.5], [1, -0.6, -1]],
              [[-0.2, -0.2, -0.2], [0.4, 0.2, 0.6]], [[0, 0, 0], [-1, 0, 0]]],
             [[[0, 0, 0], [-1, 1, 0]], [[-0.2, -0.2, -0.2], [1, 0.4, -0.2]],
              [[0.5, 0.5, 0.5], [-1, -0.8, 0.8]], [[1, 1, 1], [0.4, 0.6, -0.3]]]]]

DOC_TYPES = ("documented examples run in X float and grid float; the X types are covered by nearest_types, "
             "linear_types and cubic_types, the grid types by grid_types")
OLD_MODES = {"linear": "bilinear", "cubic": "bicubic", "nearest": "nearest"}


def sample(v, t, x, grid, mode=None, padding_mode=None, align_corners=None, doc=True, grid_ok=False):
    if doc and (t["T1"] != "float" or (t["T2"] != "float" and not grid_ok)):
        return NotApplicable(DOC_TYPES)
    if not doc and t["T2"] != "float" and not grid_ok:
        return NotApplicable("grid types (T2) are covered by grid_types")
    x = np.asarray(x)
    if x.ndim != 4 and v.since_version < 20:
        return NotApplicable(f"GridSample-{v.since_version}: 'Currently, only spatial (4-D) inputs are supported.'")
    eff = mode or "linear"
    if eff != "nearest" and not values.is_float(t["T1"]):
        return NotApplicable(f"{eff} interpolation of {t['T1']}: the spec does not say how an interpolated value is "
                             "rounded to an integer, boolean, string or complex type")
    g = np.array(grid, np.float64).astype(numpy_of(t["T2"]))
    g_exact = np.vectorize(lambda e: Fraction(float(e)), otypes=[object])(g.astype(np.float64))
    _, tol = grid_sample(x, g_exact, t["T1"], eff, padding_mode or "zeros", bool(align_corners))
    attrs = {}
    if align_corners is not None:
        attrs["align_corners"] = align_corners
    if mode is not None:
        attrs["mode"] = OLD_MODES[mode] if v.since_version < 20 else mode
    if padding_mode is not None:
        attrs["padding_mode"] = padding_mode
    return OPERATOR.expect(v, {"X": x, "grid": g}, attrs, tolerance=tol)


def doc(x, t):
    return np.asarray(x, np.float64).astype(numpy_of(t["T1"]))


# onnx's documented examples (node tests test_gridsample_<name>; test_gridsample itself is `default_6x6`)


@OPERATOR.example
def default_6x6(v, t, rng):
    """test_gridsample: a 4x4 input sampled on a 6x6 grid from -1 to 1, attributes written out."""
    return sample(v, t, doc(X44, t), G_6X6, mode="linear", padding_mode="zeros", align_corners=0)


@OPERATOR.example
def zeros_padding(v, t, rng):
    return sample(v, t, doc(X32, t), G_FAR, padding_mode="zeros")


@OPERATOR.example
def border_padding(v, t, rng):
    return sample(v, t, doc(X32, t), G_FAR, padding_mode="border")


@OPERATOR.example
def reflection_padding(v, t, rng):
    return sample(v, t, doc(X32, t), G_FAR, padding_mode="reflection")


@OPERATOR.example
def bilinear(v, t, rng):
    return sample(v, t, doc(X32, t), G_BASIC, mode="linear")


@OPERATOR.example
def aligncorners_true(v, t, rng):
    return sample(v, t, doc(X32, t), G_BASIC, mode="linear", align_corners=1)


@OPERATOR.example
def nearest(v, t, rng):
    return sample(v, t, doc(X32, t), G_BASIC, mode="nearest")


@OPERATOR.example
def bicubic(v, t, rng):
    return sample(v, t, doc(X32, t), G_BASIC, mode="cubic")


def additional(mode, ac):
    def example(v, t, rng):
        return sample(v, t, doc(X32, t), G_ADDITIONAL, mode=mode, align_corners=ac)
    return example


for _mode, _name in (("nearest", "nearest"), ("linear", "bilinear"), ("cubic", "bicubic")):
    for _ac in (0, 1):
        OPERATOR.example(additional(_mode, _ac), name=f"{_name}_align_corners_{_ac}_additional_1")


def volumetric(mode, ac):
    def example(v, t, rng):
        return sample(v, t, doc(X322, t), G_VOLUME, mode=mode, align_corners=ac)
    return example


for _mode, _name in (("nearest", "nearest"), ("linear", "bilinear")):
    for _ac in (0, 1):
        OPERATOR.example(volumetric(_mode, _ac), name=f"volumetric_{_name}_align_corners_{_ac}")


# every type, and the corners the documented examples leave


def in_bound_grid(rng, shape):
    """Grid points inside [-0.9, 0.9] on a 1/8 lattice (exact in every grid type)."""
    return rng.integers(-7, 8, size=shape) / 8


@OPERATOR.example
def nearest_types(v, t, rng):
    """Every X type: nearest moves X's own elements (NaN, -0.0, strings, complex); 15 elements (odd)."""
    x = values.sample(t["T1"], (1, 1, 3, 5), rng)
    return sample(v, t, x, in_bound_grid(rng, (1, 2, 3, 2)), mode="nearest", doc=False)


@OPERATOR.example
def linear_types(v, t, rng):
    """Bilinear with reflection padding in every float type (grid partly outside [-1, 1])."""
    if t["T1"] not in FLOATS:
        return sample(v, t, np.zeros((1, 1, 1, 1), numpy_of(t["T1"])), [[[[0, 0]]]], mode="linear", doc=False)
    x = values.sample(t["T1"], (1, 2, 3, 4), rng, specials=False) / 4
    grid = rng.integers(-12, 13, size=(1, 3, 2, 2)) / 8
    return sample(v, t, x.astype(numpy_of(t["T1"])), grid, mode="linear", padding_mode="reflection", doc=False)


@OPERATOR.example
def cubic_types(v, t, rng):
    """Bicubic with border padding, align_corners, in every float type."""
    if t["T1"] not in FLOATS:
        return sample(v, t, np.zeros((1, 1, 1, 1), numpy_of(t["T1"])), [[[[0, 0]]]], mode="cubic", doc=False)
    x = values.sample(t["T1"], (1, 1, 4, 3), rng, specials=False) / 4
    grid = rng.integers(-12, 13, size=(1, 2, 3, 2)) / 8
    return sample(v, t, x.astype(numpy_of(t["T1"])), grid, mode="cubic", padding_mode="border", align_corners=1,
                  doc=False)


@OPERATOR.example
def grid_types(v, t, rng):
    """Every grid type (T2): the documented additional grid, bilinear, in X float."""
    if t["T1"] != "float":
        return NotApplicable("grid_types runs in X float; the X types are covered by the *_types examples")
    return sample(v, t, doc(X32, t), G_ADDITIONAL, mode="linear", align_corners=0, doc=False, grid_ok=True)


@OPERATOR.example
def bicubic_reflection_far(v, t, rng):
    """Bicubic taps padded one by one under reflection, grid far outside (the doc's x = -3.5 example
    reflects to 0.5)."""
    return sample(v, t, doc(X44, t), [[[[-3.5, 2.25], [1.75, -1.3]]]], mode="cubic", padding_mode="reflection")


@OPERATOR.example
def nearest_halfway_even(v, t, rng):
    """Sampling points halfway between two indices round to the even index."""
    return sample(v, t, doc(np.arange(5.0).reshape(1, 1, 1, 5), t), [[[[-0.4, 0], [0, 0], [0.4, 0], [0.8, 0]]]],
                  mode="nearest", align_corners=0)


@OPERATOR.example
def volumetric_bicubic_reflection(v, t, rng):
    """Tricubic (5-D), reflection padding, align_corners."""
    return sample(v, t, doc(X322, t), [[[[[0.25, -0.5, 1.5], [-1.25, 0.75, 0.125]]]]], mode="cubic",
                  padding_mode="reflection", align_corners=1)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"GridSample interpolation only supports nearest, linear, and cubic modes",
    "the evaluator knows only GridSample-20's mode names; GridSample-16 names them bilinear and bicubic")
OPERATOR.reference_differs(
    r"^grid_types float: .*values differ",
    "with a float16 or bfloat16 grid the evaluator interpolates in the grid's type (its results, 3.703125 and "
    "3.6875, are float16 and bfloat16 values); Y is float (T1) and ours is the float rounding of the exact "
    "interpolation at the grid's exact coordinates")
OPERATOR.reference_differs(
    r"^cubic_types bfloat16: .*max ulp [1-4]$",
    "the evaluator sums the bicubic taps in bfloat16 (each product and partial sum rounded); ours is the exact "
    "sum rounded once, which a float accumulation reaches within 1 step")
