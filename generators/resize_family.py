"""Resize, Upsample, GridSample, AffineGrid: each output element's source coordinate in exact Fractions from
the spec's formulas, and its value as an exact weighted sum of input elements, rounded once to the type.

Resize (the spec's coordinate_transformation_mode text): per resized axis, with `scale` the scale factor
(the `scales` input, or sizes[i] / in_size[d], or the keep_aspect_ratio_policy's common scale), x_original
is computed from x_resized in Fractions; nearest picks one input index by nearest_mode (clamped to the
axis), linear and cubic weigh the taps around x_original by the triangle / Keys cubic kernel (cubic_coeff_a),
antialias stretches the kernel by max(1, 1 / scale) and normalises the weights to sum 1. Samples outside
the tensor take the nearest edge value (exclude_outside = 0) or drop out with the weights renormalised
(exclude_outside = 1); tf_crop_and_resize gives extrapolation_value where x_original leaves
[0, length_original - 1]. A runtime computes coordinates and weights in its own float type, so
interpolated cases carry `accuracy.accumulation(type, taps, magnitude)`.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.linalg_family import exact_array, to_type
from onnx_conformance.generators.semantics import Undefined
from onnx_conformance.harness.dtypes import numpy_of

HALF = Fraction(1, 2)
FLOATS = ("float16", "bfloat16", "float", "double")


def f32(x) -> Fraction:
    """A FLOAT attribute or a tensor(float) element: the float32 nearest the written value, exactly."""
    return Fraction(float(np.float32(x)))


def in_type(x, type_name: str) -> Fraction:
    """A value written in `type_name` (roi in T2), exactly."""
    return Fraction(float(np.array(x, dtype=np.float64).astype(numpy_of(type_name)).astype(np.float64)))


# ---------------------------------------------------------------------------------------------
# Resize: coordinates


def x_original(ctm: str, xr: int, in_len: int, out_len: int, scale: Fraction, out_width: Fraction,
               roi: tuple[Fraction, Fraction] | None = None) -> Fraction:
    """coordinate_transformation_mode's formula for one output index, exactly.

    The spec defines `scale = length_resized / length_original`; with a `scales` input the scale is given,
    so length_resized is length_original * scale, fractional where that is no integer (Resize-19 says so
    of output_width: 'can be a fractional number when it is calculated out of a scale factor'). Every
    length_resized below is that `out_width`; out_len (the integer length) is output_width_int."""
    length_resized = out_width
    if ctm == "half_pixel":
        return (xr + HALF) / scale - HALF
    if ctm == "half_pixel_symmetric":
        adjustment = Fraction(out_len) / out_width
        center = Fraction(in_len, 2)
        offset = center * (1 - adjustment)
        return offset + (xr + HALF) / scale - HALF
    if ctm == "pytorch_half_pixel":
        return (xr + HALF) / scale - HALF if length_resized > 1 else Fraction(0)
    if ctm == "align_corners":
        # the formula divides by length_resized - 1; at length 1 the one output sits at 0
        return xr * Fraction(in_len - 1) / (length_resized - 1) if length_resized != 1 else Fraction(0)
    if ctm == "asymmetric":
        return xr / scale
    if ctm == "tf_half_pixel_for_nn":
        return (xr + HALF) / scale
    if ctm == "tf_crop_and_resize":
        start, end = roi
        if length_resized > 1:
            return start * (in_len - 1) + xr * (end - start) * (in_len - 1) / (length_resized - 1)
        return HALF * (start + end) * (in_len - 1)
    raise ValueError(ctm)


def nearest(x: Fraction, mode: str) -> int:
    """nearest_mode: round_prefer_floor (round half down), round_prefer_ceil (round half up), floor, ceil."""
    if mode == "floor":
        return math.floor(x)
    if mode == "ceil":
        return math.ceil(x)
    f = math.floor(x)
    r = x - f
    if r == HALF:
        return f if mode == "round_prefer_floor" else f + 1
    return f if r < HALF else f + 1


def keys(s: Fraction, a: Fraction) -> Fraction:
    """The Keys cubic convolution kernel with coefficient a (cubic_coeff_a)."""
    s = abs(s)
    if s <= 1:
        return (a + 2) * s**3 - (a + 3) * s**2 + 1
    if s < 2:
        return a * s**3 - 5 * a * s**2 + 8 * a * s - 4 * a
    return Fraction(0)


def taps(x: Fraction, in_len: int, mode: str, a: Fraction, exclude_outside: bool, stretch: Fraction):
    """[(input index, weight)] for one output coordinate along one axis (weights sum to 1).

    stretch = max(1, 1 / scale) with antialias, else 1: the kernel's argument is (i - x) / stretch."""
    if mode == "linear":
        support, kernel = 1, (lambda s: max(Fraction(0), 1 - abs(s)))
    else:
        support, kernel = 2, (lambda s: keys(s, a))
    lo = math.floor(x - support * stretch)
    hi = math.ceil(x + support * stretch)
    out = []
    for i in range(lo, hi + 1):
        w = kernel((i - x) / stretch)
        if w == 0:
            continue
        if not 0 <= i < in_len:
            if exclude_outside:
                continue
            i = min(max(i, 0), in_len - 1)  # the sample outside takes the edge value
        out.append((i, w))
    total = sum(w for _, w in out)
    return [(i, w / total) for i, w in out]


def plan(in_shape, *, scales=None, sizes=None, axes=None, roi=None, policy="stretch", ctm="half_pixel"):
    """Per axis: (in_len, out_len, scale, out_width, roi pair or None); scales/sizes/roi as exact lists over `axes`.
    An empty axis resized by `sizes` has scale None (the spec's sizes[i] / in_size has no value)."""
    rank = len(in_shape)
    axes = list(range(rank)) if axes is None else [a % rank for a in axes]
    per = {d: (in_shape[d], in_shape[d], Fraction(1), Fraction(in_shape[d]), None) for d in range(rank)}
    if scales is not None:
        for i, d in enumerate(axes):
            n = in_shape[d]
            s = scales[i]
            r = (roi[i], roi[i + len(axes)]) if roi is not None else None
            span = (r[1] - r[0]) if (r is not None and ctm == "tf_crop_and_resize") else 1
            width = n * span * s
            per[d] = (n, math.floor(width), s, n * s, r)
    else:
        if policy == "stretch":
            common = None
        else:
            if any(in_shape[d] == 0 for d in axes):
                which = "Min" if policy == "not_larger" else "Max"
                raise Undefined(f"keep_aspect_ratio_policy {policy}: 'scale = {which}(sizes[i] / in_size[r[i]])' "
                                "divides by an empty axis's length 0")
            ratios = [Fraction(sizes[i], in_shape[d]) for i, d in enumerate(axes)]
            common = min(ratios) if policy == "not_larger" else max(ratios)
        for i, d in enumerate(axes):
            n = in_shape[d]
            r = (roi[i], roi[i + len(axes)]) if roi is not None else None
            if common is None:
                # an empty axis has no scale (sizes[i] / 0): resize() gives an empty output or Undefined
                out, s = sizes[i], (Fraction(sizes[i], n) if n else None)
            else:
                s = common
                out = math.floor(s * n + HALF)  # round_int: the nearest integer, halfway cases up
            per[d] = (n, out, s, Fraction(out) if common is None else s * n, r)
    return [per[d] for d in range(rank)]


def resize(x: np.ndarray, type_name: str, axis_plan, *, mode="nearest", ctm="half_pixel",
           nearest_mode="round_prefer_floor", a=Fraction(-3, 4), exclude_outside=False, antialias=False,
           extrapolation=Fraction(0)):
    """(Y, tolerance): Y in `type_name`. nearest moves the input's own elements; linear and cubic are exact
    weighted sums rounded once. An output with no elements is the empty tensor whatever the mapping; one
    with elements drawn from an empty axis has no value (Undefined)."""
    out_shape = tuple(max(0, out) for (_, out, _, _, _) in axis_plan)  # as many as range(out) below
    if 0 in out_shape:
        return np.zeros(out_shape, dtype=x.dtype), ({"ulp": 0} if values.is_float(type_name) else None)
    if any(n == 0 for (n, _, _, _, _) in axis_plan):
        raise Undefined("an output element of an empty input axis: 'scale = length_resized / length_original' "
                        "divides by 0 and no input element lies on that axis to take its value from")
    per_axis = []  # per axis: list over output index of [(i, w)] or None (extrapolated)
    for (n, out, s, width, r) in axis_plan:
        rows = []
        for xr in range(out):
            if ctm == "tf_crop_and_resize" and r is None:  # an axis outside `axes`: not resized
                rows.append([(xr, Fraction(1))])
                continue
            xo = x_original(ctm, xr, n, out, s, width, r)
            if ctm == "tf_crop_and_resize" and not 0 <= xo <= n - 1:
                rows.append(None)
            elif mode == "nearest" or n == out and xo == xr:
                i = xo if mode != "nearest" else nearest(xo, nearest_mode)
                rows.append([(min(max(int(i), 0), n - 1), Fraction(1))])
            else:
                stretch = max(Fraction(1), 1 / s) if antialias else Fraction(1)
                rows.append(taps(xo, n, mode, a, exclude_outside, stretch))
        per_axis.append(rows)
    if mode == "nearest":
        # an extrapolated output (row None) takes index 0 here, then extrapolation_value in the type
        y, extra = x, np.zeros(x.shape, dtype=bool)
        for d, rows in enumerate(per_axis):
            y = np.take(y, [0 if row is None else row[0][0] for row in rows], axis=d)
            extra = _along(extra, rows, d)
        if extra.any():
            y = np.where(extra, extrapolated(extrapolation, type_name), y)
        return y.reshape(out_shape), ({"ulp": 0} if values.is_float(type_name) else None)
    ex = exact_array(x)
    mag = np.vectorize(abs, otypes=[object])(ex)
    extra = np.zeros(x.shape, dtype=bool)
    for d, rows in enumerate(per_axis):
        ex, mag, extra = _along(ex, rows, d), _along(mag, rows, d, absolute=True), _along(extra, rows, d)
    y = np.where(extra, extrapolation, ex)
    taps_n = int(np.prod([max((len(r) for r in rows if r is not None), default=1) for rows in per_axis]))
    m = max((float(e) for e in mag.reshape(-1)), default=0.0)
    return to_type(y, type_name), accumulation(type_name, taps_n, m)


def extrapolated(value: Fraction, type_name: str) -> np.ndarray:
    """extrapolation_value (a float attribute) as an element of type_name: 'this value is used as the
    corresponding output value'. A float type takes it rounded once; a complex type as the real number it
    is (imaginary part 0); an integer type or bool (false 0, true 1) where it is one of the type's values.
    Elsewhere (2.5 in an integer type, any value in a string tensor) the spec does not say how a float
    becomes an element of the type: Undefined."""
    dtype = numpy_of(type_name)
    if values.is_float(type_name):
        return to_type(np.array(value, dtype=object), type_name)
    if type_name.startswith("complex"):
        return np.array(complex(float(value)), dtype=dtype)
    lo, hi = (0, 1) if type_name == "bool" else values.int_range(type_name) if values.is_int(type_name) else (1, 0)
    if value.denominator != 1 or not lo <= value <= hi:
        raise Undefined(f"extrapolation_value {float(value)!r} is no {type_name} value: the spec says it 'is used "
                        "as the corresponding output value' and not how a float attribute becomes an element of "
                        f"{type_name}")
    return np.array(int(value), dtype=dtype)


def _along(t: np.ndarray, rows, d: int, absolute: bool = False) -> np.ndarray:
    """Apply one axis's taps: bool arrays (extrapolated flags) take any(); values the weighted sum."""
    moved = np.moveaxis(t, d, 0)
    out = np.empty((len(rows),) + moved.shape[1:], dtype=t.dtype)
    for k, row in enumerate(rows):
        if t.dtype == bool:
            out[k] = True if row is None else np.logical_or.reduce([moved[i] for i, _ in row])
        elif row is None:
            out[k] = 0
        else:
            acc = 0
            for i, w in row:
                acc = acc + moved[i] * (abs(w) if absolute else w)
            out[k] = acc
    return np.moveaxis(out, 0, d)


# ---------------------------------------------------------------------------------------------
# GridSample: each output point's source location from the normalised grid, exactly


def unnormalize(g: Fraction, n: int, align_corners: bool) -> Fraction:
    """align_corners=1: -1 and 1 are the centres of the corner pixels; 0: their outer edges."""
    return (g + 1) / 2 * (n - 1) if align_corners else ((g + 1) * n - 1) / 2


def bounds(n: int, align_corners: bool) -> tuple[Fraction, Fraction]:
    """The image's extent in pixel coordinates: corner centres with align_corners, else corner edges."""
    return (Fraction(0), Fraction(n - 1)) if align_corners else (Fraction(-1, 2), Fraction(n) - HALF)


def reflect(x: Fraction, lo: Fraction, hi: Fraction) -> Fraction:
    """padding_mode reflection: 'reflected by the border ... until becoming in bound' ('If pixel location
    x = -3.5 reflects by border -1 and becomes x' = 1.5, then reflects by border 1 and becomes x'' = 0.5')."""
    span = hi - lo
    if span == 0:
        return lo
    if x < lo:
        d = lo - x
        k = math.floor(d / span)
        r = d - k * span
        return lo + r if k % 2 == 0 else hi - r
    if x > hi:
        d = x - hi
        k = math.floor(d / span)
        r = d - k * span
        return hi - r if k % 2 == 0 else lo + r
    return x


def half_even(x: Fraction) -> int:
    """'The "nearest" mode rounds to the nearest even index when the sampling point falls halfway.'"""
    return round(x)  # Fraction.__round__ ties to even


def grid_taps(g: Fraction, n: int, mode: str, padding: str, align_corners: bool):
    """[(index or None for a zero, weight)] along one spatial axis.

    A grid location outside the image ([-0.5, n - 0.5], or [0, n - 1] with align_corners) is first moved
    by padding_mode ('border values for out-of-bound grid locations', 'values at locations reflected by
    the border'); then every sample the mode needs (the nearest index, 2 linear or 4 cubic taps) that
    still lies outside the tensor is 0 (zeros), the border value, or the reflected index's value."""
    lo, hi = bounds(n, align_corners)
    x = unnormalize(g, n, align_corners)
    if mode == "nearest":
        x = Fraction(half_even(x))
    if x < lo or x > hi:
        if padding == "border":
            x = min(max(x, Fraction(0)), Fraction(n - 1))
        elif padding == "reflection":
            x = reflect(x, lo, hi)

    def at(i: int):
        if 0 <= i < n:
            return i
        if padding == "zeros":
            return None
        if padding == "border":
            return min(max(i, 0), n - 1)
        return int(reflect(Fraction(i), lo, hi))

    if mode == "nearest":
        return [(at(int(x)), Fraction(1))]
    f = math.floor(x)
    if mode == "linear":
        out = [(f, 1 - (x - f)), (f + 1, x - f)]
    else:
        out = [(i, keys(i - x, Fraction(-3, 4))) for i in range(f - 1, f + 3)]
    return [(at(i), w) for i, w in out if w != 0]


def grid_sample(x: np.ndarray, grid_exact: np.ndarray, type_name: str, mode: str, padding: str,
                align_corners: bool):
    """(Y, tolerance). grid_exact holds Fractions; its last axis lists the coordinates innermost first."""
    n_batch, channels = x.shape[:2]
    spatial = x.shape[2:]
    r = len(spatial)
    out_spatial = grid_exact.shape[1:-1]
    is_float = values.is_float(type_name)
    if mode == "nearest":
        y = np.empty((n_batch, channels) + out_spatial, dtype=x.dtype)
    else:
        y = np.empty((n_batch, channels) + out_spatial, dtype=object)
        ex = exact_array(x)
    mag = 0.0
    ntaps = 1
    for b in range(n_batch):
        for pos in np.ndindex(*out_spatial):
            coords = grid_exact[(b,) + pos]
            per_dim = [grid_taps(coords[r - 1 - d], spatial[d], mode, padding, align_corners) for d in range(r)]
            ntaps = max(ntaps, int(np.prod([len(p) for p in per_dim])))
            for c in range(channels):
                if mode == "nearest":
                    idx = tuple(p[0][0] for p in per_dim)
                    y[(b, c) + pos] = np.zeros((), x.dtype) if None in idx else x[(b, c) + idx]
                    continue
                acc, m = Fraction(0), Fraction(0)
                for combo in itertools.product(*per_dim):
                    w = Fraction(1)
                    for _, wi in combo:
                        w *= wi
                    idx = tuple(i for i, _ in combo)
                    if None in idx:
                        continue
                    acc += w * ex[(b, c) + idx]
                    m += abs(w * ex[(b, c) + idx])
                y[(b, c) + pos] = acc
                mag = max(mag, float(m))
    if mode == "nearest":
        return y, ({"ulp": 0} if is_float else None)
    return to_type(y, type_name), accumulation(type_name, ntaps, mag)


# ---------------------------------------------------------------------------------------------
# AffineGrid: theta applied to an evenly spaced grid over [-1, 1], exactly


def base_coords(n: int, align_corners: bool) -> list[Fraction]:
    """n positions from -1 to 1: the corner pixels' centres at -1 and 1 (align_corners=1), or the pixel centres
    of n equal pixels spanning [-1, 1] (align_corners=0)."""
    if align_corners:
        return [Fraction(-1) + Fraction(2 * i, n - 1) for i in range(n)] if n > 1 else [Fraction(0)]
    return [Fraction(-1) + Fraction(2 * i + 1, n) for i in range(n)]


def affine_grid(theta: np.ndarray, size, type_name: str, align_corners: bool):
    """(grid, tolerance): grid[n, ..., :] = theta[n] @ (x, y[, z], 1), x along the innermost axis."""
    spatial = [int(s) for s in size[2:]]
    r = len(spatial)
    th = exact_array(theta)
    axes = [base_coords(n, align_corners) for n in spatial]
    out = np.empty((theta.shape[0], *spatial, r), dtype=object)
    mag = 0.0
    for b in range(theta.shape[0]):
        for pos in np.ndindex(*spatial):
            # the location vector lists the coordinates innermost first: (x, y[, z], 1)
            vec = [axes[d][pos[d]] for d in reversed(range(r))] + [Fraction(1)]
            for k in range(r):
                terms = [th[b, k, j] * vec[j] for j in range(r + 1)]
                out[(b, *pos, k)] = sum(terms)
                mag = max(mag, float(sum(abs(t) for t in terms)))
    return to_type(out, type_name), accumulation(type_name, r + 1, mag)
