"""Upsample: output_dimension = floor(input_dimension * scale); nearest repeats each element `scale` times
along each axis (Upsample-1's documented example), for whole scales (resize_family)."""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Declared, NotApplicable, Operator, type_of
from onnx_conformance.generators.resize_family import f32, plan, resize
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = Operator("Upsample")

NO_MAPPING = ("the doc defines the output size only ('output_dimension = floor(input_dimension * scale)') and no "
              "coordinate mapping: only nearest upsampling by whole scales (each element repeated, as Upsample-1's "
              "documented example shows) has a defined result")
AT_LEAST_ONE_1 = "height_scale: The scale along height dimension. It takes value greater than or equal to 1."
AT_LEAST_ONE = "scales: ... It takes value greater than or equal to 1."
# each version's mode attribute names its two modes; any other is no mode of the operator
MODES_1 = ("mode: Two interpolation modes: nearest(default), bilinear", ("nearest", "bilinear"))
MODES = ("mode: Two interpolation modes: nearest (default), and linear (including bilinear, trilinear, etc)",
         ("nearest", "linear"))


@OPERATOR.semantics
def upsample_semantics(v, attrs, inputs):
    """Nearest upsampling by whole scales: each element repeated `scale` times along each axis (Upsample-1:
    height_scale and width_scale of a 4-D input; Upsample-7: the scales attribute; Upsample-9: the input).
    Scales below 1 and a mode the version does not name are refused; other scales and linear have no defined
    result."""
    x = np.asarray(inputs["X"])
    if v.since_version == 1:
        scales = [1.0, 1.0, attrs.get("height_scale"), attrs.get("width_scale")]
    elif v.since_version == 7:
        scales = list(attrs.get("scales") or [])
    else:
        scales = np.asarray(inputs["scales"]).reshape(-1).tolist()
    if any(s is not None and s < 1 for s in scales):
        raise Rejected(AT_LEAST_ONE_1 if v.since_version == 1 else AT_LEAST_ONE)
    mode = attr(attrs, "mode", "nearest")
    sentence, modes = MODES_1 if v.since_version == 1 else MODES
    if mode not in modes:
        raise Rejected(sentence)
    if mode != "nearest" or any(s is None or float(s) != int(s) for s in scales) or len(scales) != x.ndim:
        raise Undefined(NO_MAPPING)
    p = plan(x.shape, scales=[f32(s) for s in scales], ctm="asymmetric")
    y, _ = resize(x, type_of(x), p, mode="nearest", ctm="asymmetric", nearest_mode="floor")
    return {"Y": y}


def upsample(v, t, x, scales, mode="nearest"):
    if mode != "nearest" or any(float(s) != int(s) for s in scales):
        return NotApplicable(NO_MAPPING)
    x = np.asarray(x)
    tol = {"ulp": 0} if values.is_float(t.dtype) else None
    attrs = {"mode": mode}
    inputs = {"X": x}
    if v.since_version == 1:
        if x.ndim != 4 or scales[0] != 1 or scales[1] != 1:
            return NotApplicable("Upsample-1 scales the last two axes of a 4-D [N,C,H,W] input only")
        attrs.update(height_scale=float(scales[2]), width_scale=float(scales[3]))
    elif v.since_version == 7:
        attrs["scales"] = [float(s) for s in scales]
    else:
        inputs["scales"] = np.array(scales, np.float32)
    return OPERATOR.expect(v, inputs, attrs, tolerance=tol)


@OPERATOR.example
def nearest(v, t, rng):
    """onnx's test_upsample_nearest: [[1, 2], [3, 4]] by (1, 1, 2, 3), in every type."""
    x = np.array([[[[1, 2], [3, 4]]]], np.float64)
    if t.dtype == "string":
        x = x.astype(np.int64).astype(str).astype(object)
    else:
        x = x.astype(numpy_of(t.dtype))
    return upsample(v, t, x, [1, 1, 2, 3])


@OPERATOR.example
def nearest_types(v, t, rng):
    """Each type's own values (NaN, -0.0, extremes, strings) moved, 15 elements (odd)."""
    return upsample(v, t, values.sample(t.dtype, (1, 1, 3, 5), rng), [1, 1, 3, 2])


@OPERATOR.example
def nearest_rank3_all_axes(v, t, rng):
    """Every axis scaled, the first by 1 (N-D from Upsample-7)."""
    if t.dtype != "float":
        return NotApplicable("runs in float; the types are covered by nearest and nearest_types")
    if v.since_version == 1:
        return NotApplicable("Upsample-1 scales the last two axes of a 4-D [N,C,H,W] input only")
    return upsample(v, t, values.sample("float", (2, 3, 1), rng), [1, 2, 4])


@OPERATOR.example
def bilinear(v, t, rng):
    return upsample(v, t, np.zeros((1, 1, 2, 2), numpy_of(t.dtype)), [1, 1, 2, 2],
                    mode="bilinear" if v.since_version == 1 else "linear")


def _refused(v, mode: str, scales: tuple, out_shape: tuple):
    """X (1, 1, 2, 2) with `mode` and `scales`, spelled as each version takes them; Y declared as a valid
    one would be."""
    attrs = {"mode": mode}
    inputs = {"X": np.array([[[[1, 2], [3, 4]]]], np.float32)}
    if v.since_version == 1:
        attrs.update(height_scale=scales[2], width_scale=scales[3])
    elif v.since_version == 7:
        attrs["scales"] = list(scales)
    else:
        inputs["scales"] = np.array(scales, np.float32)
    return OPERATOR.reject(v, inputs, attrs, {"Y": Declared("float", out_shape)})


@OPERATOR.rejection
def scale_below_one(v, t, rng):
    """A scale of 0.5: 'It takes value greater than or equal to 1.'"""
    return _refused(v, "nearest", (1.0, 1.0, 0.5, 1.0), (1, 1, 1, 2))


@OPERATOR.rejection
def unknown_mode(v, t, rng):
    """mode 'cubic', which no version names ('Two interpolation modes: ...'): a kernel that never reads
    mode runs it as nearest."""
    return _refused(v, "cubic", (1.0, 1.0, 2.0, 2.0), (1, 1, 4, 4))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"Issues with types .*attributes \['(height_scale', 'mode', 'width_scale|mode', 'scales)'\]",
    "the evaluator implements Upsample with the scales input (version 9 on) only, not Upsample-1's "
    "height_scale/width_scale nor Upsample-7's scales attribute")
