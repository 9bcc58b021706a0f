"""DequantizeLinear: y = (x - x_zero_point) * x_scale, per tensor, per axis or blocked."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Declared, NotApplicable
from onnx_conformance.generators.quant_family import (
    QuantOperator,
    array,
    block_range,
    dequantize_one,
    dq_types,
    dtype_name,
    elem,
    exact_values,
    nonzero_zp,
    per_element,
    representable,
)
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import name_of

OPERATOR = QuantOperator(
    "DequantizeLinear", {10: "T", 19: "T1"},
    defaults={"T2": "float",
              # the output type follows the scale's where it can (no output_dtype needed)
              "T3": lambda v, b: b["T2"] if b.get("T2") in v.type_params.get("T3", ()) else "float"},
)


def output_type(v, attrs: dict, scale) -> str:
    """y's type: float (10, 13); x_scale's ('x_scale' still determines the output type', 19, 21); from 23
    'determined by the attribute `output_dtype`. If `output_dtype` is not supplied then the output type is
    the same as `x_scale`'."""
    if v.since_version < 19:
        return "float"
    given = attr(attrs, "output_dtype", 0)
    yt = name_of(given) if given and v.has_attribute("output_dtype") else dtype_name(scale)
    if "T3" in v.type_params and yt not in v.type_params["T3"]:
        raise Rejected(f"output_dtype: '{v.schema.outputs[0].description}' ({yt} is not one of T3's types)")
    return yt


@OPERATOR.semantics
def dequantize_linear(v, attrs, inputs):
    """y = (x - x_zero_point) * x_scale element by element, each element with the scale and zero point of its
    granularity; rounded once to the output type, whose precision the multiplication takes from 23 on.
    'x_zero_point and x must have the same type'; 'In the case of dequantizing int32, there's no zero point
    (zero point is supposed to be 0)': a nonzero one is refused."""
    x, scale, zp = np.asarray(inputs["x"]), np.asarray(inputs["x_scale"]), inputs.get("x_zero_point")
    yt = output_type(v, attrs, scale)
    if zp is not None and dtype_name(zp) != dtype_name(x):
        raise Rejected(v.sentence(r"x_zero_point.{0,2} and .{0,2}x.{0,2} must have") + f" (x {dtype_name(x)}, "
                       f"x_zero_point {dtype_name(zp)})")
    if zp is not None and dtype_name(x) == "int32" and np.any(np.asarray(zp) != 0):
        raise Rejected(v.sentence(r"there's no zero point"))
    scales, zps = per_element(v, x.shape, scale, zp, attrs, "x_scale", "x_zero_point")
    in_out = v.since_version >= 23
    xs = exact_values(x).reshape(-1)
    out = [dequantize_one(a, s, z, yt, in_out) for a, s, z in zip(xs, scales.reshape(-1), zps.reshape(-1))]
    return {"y": array(out, yt, x.shape)}


def dequantize(v, t, x, scale, zp, *, axis=None, block_size=0):
    xt, st, yt = dq_types(v, t)
    attrs = {}
    if axis is not None:
        attrs["axis"] = axis
    if block_size:
        attrs["block_size"] = block_size
    if v.has_attribute("output_dtype") and yt != st:
        # 'If output_dtype is not supplied then the output type is the same as x_scale'
        attrs["output_dtype"] = elem(yt)
    tol = {"ulp": 0} if yt in ("float", "float16", "bfloat16") else None
    return OPERATOR.expect(v, {"x": x, "x_scale": scale, "x_zero_point": zp}, attrs, tolerance=tol)


def zero_point(xt: str) -> int | None:
    """'In the case of dequantizing int32, there's no zero point': none for int32; 0 for the floats."""
    return None if xt == "int32" else nonzero_zp(xt)


def fits(x, zp, yt: str) -> bool:
    """x, the zero point and their difference are exact in the output type, so subtracting before or
    after converting to it gives one value (the spec names the multiplication's precision only)."""
    if not zp:
        return True
    return all(representable(q, yt) for q in (x, zp, Fraction(x) - zp))


def candidates(xt: str, zp: int, rng) -> list:
    """Quantized values: the type's ends, 0, the zero point and its neighbours, and a few inside."""
    if values.is_int(xt):
        lo, hi = values.int_range(xt)
        base = [lo, hi, 0, 1, lo + 1, hi - 1, zp, zp + 1, zp - 1] + ([-1] if lo < 0 else [])
        inside = [int(k) for k in rng.integers(max(lo, -1000), min(hi, 1000) + 1, size=8)]
        return list(dict.fromkeys(k for k in base + inside if lo <= k <= hi))
    return list(values.sample(xt, (15,), rng))


def quantized(v, t, shape, rng):
    """x of the binding's type over `shape` (flat order), its zero point, and the scale unit."""
    xt, st, yt = dq_types(v, t)
    zp = zero_point(xt)
    n = int(np.prod(shape, dtype=np.int64))
    if values.is_int(xt):
        pool = [k for k in candidates(xt, zp or 0, rng) if fits(k, zp or 0, yt)]
        x = array([pool[i % len(pool)] for i in range(n)], xt, shape)
    else:
        pool = candidates(xt, 0, rng)
        x = np.array([pool[i % len(pool)] for i in range(n)], dtype=np.asarray(pool[0]).dtype).reshape(shape)
    return xt, st, yt, x, zp


@OPERATOR.example
def per_tensor(v, t, rng):
    """Every binding: the quantized type's ends and specials, a zero point off 0, a power-of-two scale."""
    xt, st, yt, x, zp = quantized(v, t, (15,), rng)
    return dequantize(v, t, x, array(Fraction(1, 2), st), None if zp is None else array(zp, xt))


SUBSET = ("uint8", "int8", "int4", "float8e4m3fn")
SUBSET_REASON = ("granularity examples run with a float scale and output in uint8, int8, int4, float8e4m3fn; "
                 "per_tensor covers the other types (and onnx's documented examples the 4- and 2-bit ones)")


def in_subset(v, t) -> bool:
    xt, st, yt = dq_types(v, t)
    return (st, yt) == ("float", "float") and xt in SUBSET


def axis_example(axis, what):
    def example(v, t, rng):
        if not v.has_attribute("axis"):
            return NotApplicable(f"DequantizeLinear-{v.since_version} has no axis: 'x_scale and x_zero_point "
                                 "are both scalars'")
        if not in_subset(v, t):
            return NotApplicable(SUBSET_REASON)
        xt, st, yt, x, zp = quantized(v, t, (2, 3, 5), rng)
        zps = None if zp is None else array([zp, 0, zp // 2] if zp else [0, 0, 0], xt)
        return dequantize(v, t, x, array([Fraction(1, 2), 1, 4], st), zps, axis=axis)

    example.__doc__ = what
    return example


OPERATOR.example(axis_example(1, "per-axis scales and zero points along axis 1"), name="per_axis")
OPERATOR.example(axis_example(-2, "per-axis along axis -2 (counting from the back)"), name="per_axis_negative")


@OPERATOR.example
def blocked(v, t, rng):
    """Blocked along axis 1, block_size 2 over a dimension of 5: 3 scales per row."""
    if not v.has_attribute("block_size"):
        return NotApplicable(f"DequantizeLinear-{v.since_version} has no block_size (blocked quantization is 21's)")
    if not in_subset(v, t):
        return NotApplicable(SUBSET_REASON)
    xt, st, yt, x, zp = quantized(v, t, (2, 5), rng)
    zps = None if zp is None else array([[zp, 0, zp // 2], [0, zp // 2, zp]] if zp else [[0] * 3] * 2, xt)
    scale = array([[Fraction(1, 2), 1, 4], [4, Fraction(1, 2), 1]], st)
    return dequantize(v, t, x, scale, zps, axis=1, block_size=2)


# ---------------------------------------------------------------------------------------------
# onnx's documented examples


def only(v, t, xt="uint8", st="float", since=10):
    if v.since_version < since:
        return NotApplicable(f"the documented example needs DequantizeLinear-{since}")
    if dq_types(v, t) != (xt, st, st):
        return NotApplicable(f"the documented example dequantizes {xt} with a {st} scale; this binding's types "
                             "are covered by per_tensor")
    return None


def f32(xs):
    return np.array(xs, dtype=np.float32)


@OPERATOR.example(name="default")
def documented(v, t, rng):
    return only(v, t) or dequantize(v, t, np.array([0, 3, 128, 255], np.uint8), f32(2), np.array(128, np.uint8))


@OPERATOR.example
def axis(v, t, rng):
    if not v.has_attribute("axis"):
        return NotApplicable(f"DequantizeLinear-{v.since_version} takes a scalar x_scale only")
    x = np.array([[[[3, 89], [34, 200], [74, 59]], [[5, 24], [24, 87], [32, 13]],
                   [[245, 99], [4, 142], [121, 102]]]], np.uint8)
    return only(v, t) or dequantize(v, t, x, f32([2, 4, 5]), np.array([84, 24, 196], np.uint8))


def doc(xt, data, zp=None, st="float", since=19, zp_shape_note=False):
    def example(v, t, rng):
        na = only(v, t, xt=xt, st=st, since=since)
        if na:
            return na
        # onnx's node tests feed a zero point of shape [1] beside a scalar scale; 'x_scale and
        # x_zero_point must have the same shape', so ours is a scalar.
        x = array([Fraction(d) for d in data], xt)
        return dequantize(v, t, x, array(2, st), None if zp is None else array(zp, xt), axis=0)

    return example


OPERATOR.example(doc("float8e4m3fn", [0, 0.5, 1, 448, -104]), name="e4m3fn")
OPERATOR.example(doc("float8e4m3fn", [0, 0.5, 1, 448, -104], st="float16"), name="e4m3fn_float16")
OPERATOR.example(doc("float8e4m3fn", [0, 0.5, 1, 448, -104], zp=0), name="e4m3fn_zero_point")
OPERATOR.example(doc("float8e5m2", [0, 0.5, 1, 49152, -96]), name="e5m2")
OPERATOR.example(doc("uint4", [0, 1, 7, 10, 15], zp=1, since=21), name="uint4")
OPERATOR.example(doc("int4", [0, 1, 7, -4, -8], zp=1, since=21), name="int4")
OPERATOR.example(doc("uint2", [0, 1, 2, 3], zp=1, since=25), name="uint2")
OPERATOR.example(doc("int2", [0, 1, -1, -2], zp=1, since=25), name="int2")
OPERATOR.example(doc("float4e2m1", [0, 1, -1, 1.5, -4], zp=0, since=23), name="float4e2m1")


@OPERATOR.example
def uint16(v, t, rng):
    return only(v, t, xt="uint16", since=21) or dequantize(
        v, t, np.array([30000, 31000, 32768, 33000], np.uint16), f32(2), np.array(32767, np.uint16))


@OPERATOR.example
def int16(v, t, rng):
    return only(v, t, xt="int16", since=21) or dequantize(
        v, t, np.array([-300, -30, -1025, 1270], np.int16), f32(2), np.array(-1024, np.int16))


@OPERATOR.example(name="blocked_documented")
def blocked_doc(v, t, rng):
    na = only(v, t, since=21)
    if na:
        return na
    x = np.array([[[[3, 89], [34, 200], [74, 59]], [[5, 24], [24, 87], [32, 13]], [[5, 12], [12, 33], [65, 42]],
                   [[245, 99], [4, 142], [121, 102]]]], np.uint8)
    scale = f32([[[[3.0, 2.0], [4.0, 1.0], [2.0, 2.0]], [[5.0, 2.0], [4.0, 3.0], [5.0, 2.0]]]])
    zp = np.array([[[[1, 0], [0, 1], [2, 20]], [[3, 2], [4, 3], [15, 2]]]], np.uint8)
    return dequantize(v, t, x, scale, zp, axis=1, block_size=2)


@OPERATOR.example
def no_zero_point(v, t, rng):
    """x_zero_point left out: 'Zero point is 0 when it's not specified'."""
    xt, st, yt = dq_types(v, t)
    if (st, yt) != ("float", "float") or xt not in SUBSET + ("int32",):
        return NotApplicable("the no-zero-point example runs with a float scale and output, in uint8, int8, int4, "
                             "float8e4m3fn, int32; per_tensor covers the other types")
    x = array([k for k in candidates(xt, 0, rng)], xt) if values.is_int(xt) else candidates(xt, 0, rng)
    return dequantize(v, t, np.asarray(x), array(Fraction(1, 4), st), None)


# ---------------------------------------------------------------------------------------------
# rejections


def output_attrs(v, t, attrs: dict) -> dict:
    """attrs with output_dtype where the binding's output type is not the scale's."""
    xt, st, yt = dq_types(v, t)
    if v.has_attribute("output_dtype") and yt != st:
        attrs["output_dtype"] = elem(yt)
    return attrs


@OPERATOR.rejection
def scale_length_mismatch(v, t, rng):
    """A 1-D x_scale whose length is not the axis' dimension."""
    if not v.has_attribute("axis"):
        return NotApplicable(f"DequantizeLinear-{v.since_version} has no per-axis quantization")
    xt, st, yt = dq_types(v, t)
    x = array([k % 7 for k in range(24)], xt, (2, 3, 4))
    zp = None if xt == "int32" else array([0] * 4, xt)
    inputs = {"x": x, "x_scale": array([1, 2, 1, 2], st), "x_zero_point": zp}
    return OPERATOR.reject(v, inputs, output_attrs(v, t, {"axis": 1}), {"y": Declared(yt, (2, 3, 4))})


@OPERATOR.rejection
def block_size_out_of_range(v, t, rng):
    """block_size 2 over 6 elements with 2 scales: the accepted range is [ceil(6/2), ceil(6/1) - 1] = [3, 5]."""
    if not v.has_attribute("block_size"):
        return NotApplicable(f"DequantizeLinear-{v.since_version} has no block_size")
    xt, st, yt = dq_types(v, t)
    lo, hi = block_range(6, 2)
    assert not lo <= 2 <= hi
    x = array([k % 7 for k in range(12)], xt, (2, 6))
    zp = None if xt == "int32" else array([[0, 0], [0, 0]], xt)
    inputs = {"x": x, "x_scale": array([[1, 2], [2, 1]], st), "x_zero_point": zp}
    return OPERATOR.reject(v, inputs, output_attrs(v, t, {"axis": 1, "block_size": 2}), {"y": Declared(yt, (2, 6))})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"No implementation for operator 'DequantizeLinear' domain '' and version 1[0-8]\b",
    "the evaluator implements DequantizeLinear from version 19 only",
)
