"""Resampling: Resize (every mode, nearest_mode, coordinate_transformation_mode and aspect-ratio policy the version lists; scales or sizes, axes, roi, antialias, exclude_outside, cubic_coeff_a, extrapolation_value) and Upsample.

A drawn Resize is finished by generators/ops/resize.py's own case function, so its tolerance is the
corpus's (resize_family's weighted sum, rounded once). Scales run from 0.125 (downsampling past 0.5,
where an antialiasing filter is wider than two taps) to 4, drawn per axis, plain ones (0.5, 2) first;
sizes from 0 up. The words the version allows are read from its attribute descriptions. What the
spec leaves open is not drawn: Resize-10's coordinate mapping ('output_dimension = floor(input_dimension
* scale)' alone: nearest by whole upsampling scales only), linear or cubic interpolation of a type with
no stated rounding, a repeated axis ('Behavior is undefined if an axis is repeated'). Upsample defines
nearest upsampling by whole scales only ('It takes value greater than or equal to 1'; no coordinate
mapping): that is what it draws. Tensors are small (RESIZE_OUTPUT): the semantics interpolates exactly.
"""

from __future__ import annotations

import math
import re

from hypothesis import strategies as st

from onnx_conformance.generators import values
from onnx_conformance.harness.strategies.common import Discard, Family, Probe, dims, tensors

RESIZE_OUTPUT = 512  # output elements at most (nearest)
TAPS_WORK = 4096  # output elements x taps per output element at most (linear, cubic, antialias)
INPUT = 1024  # input elements at most
SCALES = (0.5, 2.0, 1.5, 0.75, 0.25, 0.3, 0.4, 0.6, 0.8, 3.0, 1.25, 0.2, 4.0, 2.5, 1.7)


def _words(v, attribute: str, pattern: str) -> list[str]:
    """The values an attribute's description lists (`pattern` picks them out), its default first."""
    if not v.has_attribute(attribute):
        return []
    a = v.schema.attributes[attribute]
    found = list(dict.fromkeys(re.findall(pattern, a.description)))
    default = a.default_value.s.decode() if a.default_value.name else None
    return ([default] if default in found else []) + [w for w in found if w != default]


def modes(v) -> list[str]:
    return _words(v, "mode", r"\b(nearest|linear|cubic)\b")


def transformations(v) -> list[str]:
    """'if coordinate_transformation_mode is "half_pixel"', ... (Resize-11 on)."""
    return _words(v, "coordinate_transformation_mode", r"is [`\"]+(\w+)")


def nearest_modes(v) -> list[str]:
    """'Four modes: "round_prefer_floor" (default, ...), "round_prefer_ceil", "floor", "ceil"'."""
    return _words(v, "nearest_mode", r"\"(round_prefer_floor|round_prefer_ceil|floor|ceil)\"")


def policies(v) -> list[str]:
    return _words(v, "keep_aspect_ratio_policy", r"is [`\"]+(\w+)")


class Resample(Family):
    name = "resampling"
    operators = ("Resize", "Upsample")

    def covers(self, op, v):
        why = super().covers(op, v)
        if why is None and op.name == "Upsample" and v.schema.deprecated:
            return f"Upsample-{v.since_version} is deprecated: onnx's checker refuses its nodes (Resize replaces it)"
        return why

    def strategy(self, op, v, t):
        return _resize(op, v, t) if op.name == "Resize" else _upsample(op, v, t)

    def case(self, op, v, t, probe):
        from onnx_conformance.generators.case import NotApplicable
        from onnx_conformance.generators.ops import resize, upsample

        if "costly" in probe.extra:
            raise Discard(probe.extra["costly"])
        if op.name == "Resize":
            case = resize.resize_case(v, t, probe.inputs["X"], doc=False, **probe.extra)
        else:
            case = upsample.upsample(v, t, probe.inputs["X"], probe.extra["scales"])
        if isinstance(case, NotApplicable):
            raise Discard(case.reason)
        return case


def _scale(draw, label):
    return draw(st.one_of(st.sampled_from(SCALES), st.floats(0.125, 4.0, width=32)), label=label)


@st.composite
def _resize(draw, op, v, t):
    # the spec's constraints by version: Resize-10 has scales alone and no coordinate mapping
    old = v.since_version == 10
    float_type = values.is_float(t.dtype)
    # drawn alike in every binding, then fitted to it: a find shrinks toward the plain binding with the
    # rest of its draws kept
    mode = draw(st.sampled_from(modes(v) or ["nearest"]), label="mode")
    if old or not float_type:
        mode = "nearest"
    ctms = transformations(v)
    ctm = draw(st.sampled_from(ctms), label="coordinate_transformation_mode") if ctms else None
    if "T2" in t and t["T2"] != "float":  # roi's type: takes effect with tf_crop_and_resize alone
        ctm = "tf_crop_and_resize"
    rank = min(draw(st.integers(1, 4), label="rank"), 4 if mode == "nearest" else 3)
    axes = list(range(rank))
    spelled = None
    if v.has_attribute("axes") and draw(st.booleans(), label="give axes"):
        axes = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True), label="axes")
        spelled = [a - rank if draw(st.booleans(), label="negative axis") else a for a in axes]
    by_sizes = not old and draw(st.booleans(), label="by sizes")
    extra = {"mode": mode} if mode != "nearest" or draw(st.booleans(), label="give mode") else {}
    if old:
        scales = [float(draw(st.integers(1, 3), label="whole scale")) for _ in axes]
    elif not by_sizes:
        scales = [_scale(draw, "scale") if draw(st.booleans(), label="resize this axis") else 1.0 for _ in axes]
    else:
        scales = [1.0] * len(axes)
    # the input's room: the output's bound over the growth the scales make
    per = {a: max(1.0, s) for a, s in zip(axes, scales)}
    room = max(1, int(min(INPUT, RESIZE_OUTPUT / math.prod(per.values()))))
    scale_of = dict(zip(axes, scales))
    shape = []
    for a in range(rank):
        d = draw(dims(room), label="dim")
        s_ = scale_of.get(a, 1.0)
        if 0 < d and d * s_ < 1 and not draw(st.booleans(), label="let a downscaled axis vanish"):
            d = math.ceil(1 / s_)  # long enough that floor(d * scale) keeps an element
        shape.append(d)
        room = max(1, room // max(d, 1))
    out = list(shape)
    if by_sizes:
        # not on an empty axis: 'scale = length_resized / length_original' has no value there
        for a in axes:
            shape[a] = max(shape[a], 1)
        sizes = [draw(st.one_of(st.sampled_from([shape[a], 1, 2 * shape[a]]), st.integers(0, 64)), label="size")
                 for a in axes]
        for a, s in zip(axes, sizes):
            out[a] = s
        extra["sizes"] = sizes
        policy = draw(st.sampled_from(policies(v)), label="keep_aspect_ratio_policy") if policies(v) else None
        if policy and (policy != "stretch" or draw(st.booleans())):
            extra["policy"] = policy
            if policy != "stretch":  # the common scale may grow an axis past its size: bound by the largest
                ratio = max((s / shape[a] for a, s in zip(axes, sizes) if shape[a]), default=1.0)
                out = [math.ceil(d * ratio) if a in axes else d for a, d in enumerate(shape)]
    else:
        for a, s in zip(axes, scales):
            out[a] = math.floor(shape[a] * s)
        extra["scales"] = scales
    if spelled is not None:
        extra["axes"] = spelled
    # the exact semantics' work: each output element's taps (2 or 4 per axis, more when an antialiasing
    # filter is stretched over a downscale)
    taps = 1
    if mode != "nearest":
        per_axis = 2 if mode == "linear" else 4
        for a in axes:
            stretch = max(1, math.ceil(shape[a] / max(out[a], 1))) if v.has_attribute("antialias") else 1
            taps *= per_axis * stretch
    n_out = math.prod(max(d, 1) for d in out)
    too_costly = n_out > RESIZE_OUTPUT or n_out * taps > TAPS_WORK
    if ctm is not None and (ctm != "half_pixel" or draw(st.booleans(), label="give ctm")):
        extra["ctm"] = ctm
    if mode == "nearest" and nearest_modes(v) and draw(st.booleans(), label="give nearest_mode"):
        extra["nearest_mode"] = draw(st.sampled_from(nearest_modes(v)), label="nearest_mode")
    if mode == "cubic" and draw(st.booleans(), label="give cubic_coeff_a"):
        extra["cubic_coeff_a"] = draw(st.one_of(st.sampled_from([-0.5, -0.75, -1.0, 0.0]), st.floats(-2, 0, width=32)),
                                      label="cubic_coeff_a")
    if not old and v.has_attribute("exclude_outside") and draw(st.booleans(), label="give exclude_outside"):
        extra["exclude_outside"] = draw(st.sampled_from([1, 0]), label="exclude_outside")
    if mode != "nearest" and v.has_attribute("antialias") and draw(st.booleans(), label="give antialias"):
        extra["antialias"] = draw(st.sampled_from([1, 0]), label="antialias")
    if extra.get("ctm") == "tf_crop_and_resize":
        # '[start1, ..., startN, end1, ..., endN] ... normalized in the coordinate system of the input
        # image': inside [0, 1] and past it (extrapolation_value then fills)
        ends = st.one_of(st.sampled_from([0.0, 1.0, 0.25, 0.5, 0.75]), st.floats(-0.5, 1.5, width=32))
        if t.dtype in ("bool", "string", "complex64", "complex128"):
            # not past the image: resize_family's extrapolation drops a complex value's imaginary part and
            # fails on bool (reported, generators/ are not this module's to change)
            ends = st.one_of(st.sampled_from([0.0, 1.0, 0.25, 0.5, 0.75]), st.floats(0, 1, width=32))
        starts = [draw(ends, label="roi start") for _ in axes]
        extra["roi"] = starts + [draw(ends, label="roi end") for _ in axes]
        if draw(st.booleans(), label="give extrapolation_value"):
            extra["extrapolation_value"] = draw(st.sampled_from([10.0, -1.0, 0.5, 0.0]), label="extrapolation_value")
    if too_costly:  # discarded by `case`: a strategy draws, it does not refuse
        return Probe({"X": None}, extra={"costly": f"an output of {n_out} elements x {taps} taps is past what "
                                                   "the exact semantics answers quickly"})
    x = draw(tensors(t.dtype, tuple(shape)), label="X")
    return Probe({"X": x}, extra=extra)


@st.composite
def _upsample(draw, op, v, t):
    rank = 4 if v.since_version == 1 else draw(st.integers(1, 4), label="rank")
    shape, scales, room = [], [], RESIZE_OUTPUT
    for axis in range(rank):
        s = 1 if v.since_version == 1 and axis < 2 else draw(st.integers(1, 4), label="whole scale")
        d = draw(dims(max(1, room // s)), label="dim")
        shape.append(d)
        scales.append(float(s))
        room = max(1, room // max(d * s, 1))
    x = draw(tensors(t.dtype, tuple(shape)), label="X")
    return Probe({"X": x}, extra={"scales": scales})
