"""QuantizeLinear: y = saturate((x / y_scale) + y_zero_point), per tensor, per axis or blocked."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Declared, NotApplicable
from onnx_conformance.generators.quant_family import (
    FLOAT8,
    QuantOperator,
    array,
    block_range,
    division_type,
    dtype_name,
    elem,
    exact_values,
    nonzero_zp,
    per_element,
    q_types,
    quantize_one,
    representable,
    small_float_info,
)
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import name_of

OPERATOR = QuantOperator(
    "QuantizeLinear", {10: "T2", 23: "T3"},
    defaults={"T1": "float", "T2": lambda v, b: "float" if "T3" in v.type_params else "uint8", "T3": "uint8"},
)


def output_type(v, attrs: dict, zp) -> str:
    """y's type: y_zero_point's; else output_dtype; else uint8. 'If both `output_dtype` and
    `y_zero_point` are specified, `output_dtype` must be `T2`' (T3 from 23)."""
    given = attr(attrs, "output_dtype", 0)
    allowed = v.type_params[v.schema.outputs[0].type_str]
    if zp is None:
        yt = name_of(given) if given else "uint8"
        if yt not in allowed:
            raise Rejected(f"output_dtype: '{v.schema.attributes['output_dtype'].description}' ({yt} is not one of "
                           f"{v.schema.outputs[0].type_str}'s types)")
        return yt
    zt = dtype_name(zp)
    if given and name_of(given) != zt:
        rule = next(s for s in v.schema.attributes["output_dtype"].description.split(". ") if "must be" in s)
        raise Rejected(f"output_dtype: '{rule}' (output_dtype {name_of(given)}, y_zero_point {zt})")
    return zt


@OPERATOR.semantics
def quantize_linear(v, attrs, inputs):
    """y = saturate((x / y_scale) + y_zero_point) element by element, each element with the scale and
    zero point of its granularity; x / y_scale rounded to the division's precision (y_scale's type, or
    `precision`), then half to even and clamped (integers) or rounded once under `saturate` (small
    floats: 'It only applies for float 8 quantization'; float4e2m1 has no infinity and saturates)."""
    x, scale, zp = np.asarray(inputs["x"]), np.asarray(inputs["y_scale"]), inputs.get("y_zero_point")
    yt = output_type(v, attrs, zp)
    scales, zps = per_element(v, x.shape, scale, zp, attrs, "y_scale", "y_zero_point")
    precision = attr(attrs, "precision", 0)
    div = division_type(v, dtype_name(x), dtype_name(scale), name_of(precision) if precision else None)
    saturate = bool(attr(attrs, "saturate", 1))
    xs = exact_values(x).reshape(-1)
    out = [quantize_one(a, s, z, yt, div, saturate) for a, s, z in zip(xs, scales.reshape(-1), zps.reshape(-1))]
    return {"y": array(out, yt, x.shape)}


def quantize(v, t, x, scale, zp, *, axis=None, block_size=0, saturate=None, output_dtype=None, precision=None):
    """The case: x (array of the x type), scale (array of the scale type), zp (array or None)."""
    attrs = {}
    if axis is not None:
        attrs["axis"] = axis
    if block_size:
        attrs["block_size"] = block_size
    if saturate is not None:
        attrs["saturate"] = saturate
    if output_dtype is not None:
        attrs["output_dtype"] = elem(output_dtype)
    if precision is not None:
        attrs["precision"] = elem(precision)
    return OPERATOR.expect(v, {"x": x, "y_scale": scale, "y_zero_point": zp}, attrs)


def needs_precision(v, st: str) -> str | None:
    """A scale of int32 or float8e8m0 says no float precision for the division: ours name one
    (precision = float) where the version has the attribute."""
    return "float" if st in ("int32", "float8e8m0") and v.has_attribute("precision") else None


def admissible(v, q, x, xt: str, st: str) -> bool:
    """x holds the value; where x and y_scale are both int32 and no precision can be named
    (QuantizeLinear-19/21), only whole quotients: the spec does not say how an int32 division rounds."""
    if not representable(x, xt):
        return False
    return not (st == "int32" and not v.has_attribute("precision") and Fraction(q).denominator != 1)


def unit(xt: str, st: str) -> Fraction:
    """The scale of our own examples: a power of two (exact everywhere); 2 where x is int32, so
    x / y_scale still reaches the halves."""
    return Fraction(2) if "int32" in (xt, st) else Fraction(1, 2)


def targets(yt: str, zp: int) -> list:
    """Values of x / y_scale worth quantizing to yt: halves (ties to even), the range's ends and
    beyond them (saturation); for the small floats, midpoints between neighbours and beyond max."""
    if values.is_int(yt):
        lo, hi = values.int_range(yt)
        hq, lq = hi - zp, lo - zp
        out = [Fraction(k, 2) for k in (0, 1, 3, 5, -1, -3, -5)] + [Fraction(5, 4), Fraction(-3, 4), Fraction(3)]
        out += [hq, lq, hq + 1, lq - 1, Fraction(2 * hq + 1, 2), Fraction(2 * lq - 1, 2)]
        out += [2 ** (hq.bit_length() + 1), -(2 ** ((-lq).bit_length() + 1))]
        return [Fraction(q) for q in out]
    fi = small_float_info(yt)
    codes = np.arange(2 ** fi.bits, dtype=np.uint8).view(np.dtype(fi.dtype)).astype(np.float64)
    pos = sorted({Fraction(c) for c in codes.tolist() if math.isfinite(c) and c > 0})
    one = pos.index(Fraction(1)) if Fraction(1) in pos else len(pos) // 2
    mids = []
    for i in (0, one, one + 1, len(pos) - 2):
        if 0 <= i < len(pos) - 1:
            a, b = pos[i], pos[i + 1]
            mids += [(a + b) / 2, (3 * a + b) / 4]
    big = Fraction(float(fi.max))
    out = [Fraction(0), pos[0] / 2] + mids + [big, -big, 2 * big, -4 * big, -mids[2], -mids[3]]
    return out


def fill(v, qs, scales, xt: str, st: str, shape) -> list:
    """x values over `shape` (flat): each target times its element's scale, where x's type holds it."""
    n = int(np.prod(shape, dtype=np.int64))
    out, k = [], 0
    for i in range(n):
        s = scales[i]
        for _ in range(len(qs)):
            cand = qs[k % len(qs)] * s
            k += 1
            if admissible(v, qs[(k - 1) % len(qs)], cand, xt, st):
                out.append(cand)
                break
        else:
            out.append(Fraction(0))
    return out


# ---------------------------------------------------------------------------------------------
# every binding


@OPERATOR.example
def per_tensor(v, t, rng):
    """Every binding: halves (ties to even), the range's ends and beyond (saturation), zp off 0."""
    xt, st, yt = q_types(v, t)
    s = unit(xt, st)
    zp = nonzero_zp(yt)
    qs = targets(yt, zp)
    xs = [q * s for q in qs if admissible(v, q, q * s, xt, st)]
    if len(xs) % 2 == 0:
        xs.append(Fraction(0))  # an odd count: the 4- and 2-bit packing's padding
    x = array(xs, xt)
    return quantize(v, t, x, array(s, st), array(zp, yt), precision=needs_precision(v, st))


SUBSET = ("uint8", "int8", "int4", "float8e4m3fn")
SUBSET_REASON = ("granularity examples run with float x and y_scale in uint8, int8, int4, float8e4m3fn; "
                 "per_tensor covers the other types (and onnx's documented examples the per-axis 4- and 2-bit ones)")


def axis_example(axis, what):
    def example(v, t, rng):
        if not v.has_attribute("axis"):
            return NotApplicable(f"QuantizeLinear-{v.since_version} has no axis: 'y_scale ... is a scalar, "
                                 "which means a per-tensor/layer quantization'")
        xt, st, yt = q_types(v, t)
        if (xt, st) != ("float", "float") or yt not in SUBSET:
            return NotApplicable(SUBSET_REASON)
        s = unit(xt, st)
        scales = [s, 2 * s, 4 * s]
        zps = [nonzero_zp(yt), 0, nonzero_zp(yt) // 2] if values.is_int(yt) else [0, 0, 0]
        shape = (2, 3, 5)
        qs = targets(yt, nonzero_zp(yt))
        per = [scales[(i // 5) % 3] for i in range(30)]
        xs = fill(v, qs, per, xt, st, shape)
        return quantize(v, t, array(xs, xt, shape), array(scales, st), array(zps, yt), axis=axis,
                        precision=needs_precision(v, st))

    example.__doc__ = what
    return example


OPERATOR.example(axis_example(1, "per-axis scales and zero points along axis 1"), name="per_axis")
OPERATOR.example(axis_example(-2, "per-axis along axis -2 (counting from the back)"), name="per_axis_negative")


@OPERATOR.example
def blocked(v, t, rng):
    """Blocked along axis 1, block_size 2 over a dimension of 5: 'ceil(Di/B)' = 3 scales per row."""
    if not v.has_attribute("block_size"):
        return NotApplicable(f"QuantizeLinear-{v.since_version} has no block_size (blocked quantization is 21's)")
    xt, st, yt = q_types(v, t)
    if (xt, st) != ("float", "float") or yt not in SUBSET:
        return NotApplicable(SUBSET_REASON)
    s = unit(xt, st)
    scale = [[s, 2 * s, 4 * s], [4 * s, s, 2 * s]]
    zp0 = nonzero_zp(yt)
    zps = [[zp0, 0, zp0 // 2], [0, zp0 // 2, zp0]] if values.is_int(yt) else [[0] * 3] * 2
    qs = targets(yt, zp0)
    per = [scale[i // 5][(i % 5) // 2] for i in range(10)]
    xs = fill(v, qs, per, xt, st, (2, 5))
    return quantize(v, t, array(xs, xt, (2, 5)), array(scale, st), array(zps, yt), axis=1, block_size=2,
                    precision=needs_precision(v, st))


# ---------------------------------------------------------------------------------------------
# onnx's documented examples


def only(v, t, xt="float", st="float", yt="uint8", since=10):
    have = q_types(v, t)
    if v.since_version < since:
        return NotApplicable(f"the documented example needs QuantizeLinear-{since}")
    if have != (xt, st, yt):
        return NotApplicable(f"the documented example quantizes {xt} (scale {st}) to {yt}; this binding's types "
                             "are covered by per_tensor")
    return None


def f32(xs):
    return np.array(xs, dtype=np.float32)


@OPERATOR.example(name="default")
def documented(v, t, rng):
    return only(v, t) or quantize(v, t, f32([0, 2, 3, 1000, -254, -1000]), f32(2), np.array(128, np.uint8))


@OPERATOR.example
def axis(v, t, rng):
    if not v.has_attribute("axis"):
        return NotApplicable(f"QuantizeLinear-{v.since_version} takes a scalar y_scale only")
    x = f32([[[[-162, 10], [-100, 232], [-20, -50]], [[-76, 0], [0, 252], [32, -44]],
              [[245, -485], [-960, -270], [-375, -470]]]])
    return only(v, t) or quantize(v, t, x, f32([2, 4, 5]), np.array([84, 24, 196], np.uint8))


def float8_doc(yt):
    def example(v, t, rng):
        na = only(v, t, yt=yt, since=19)
        if na:
            return na
        # onnx's node test feeds a zero point of shape [1] beside a scalar scale; 'y_zero_point must
        # have the same shape as y_scale', so ours is a scalar.
        return quantize(v, t, f32([0.0, 1.0, 2.0, 100000.0, 200.0]), f32(2), array(0, yt))

    return example


OPERATOR.example(float8_doc("float8e4m3fn"), name="e4m3fn")
OPERATOR.example(float8_doc("float8e5m2"), name="e5m2")


@OPERATOR.example
def float8_zero_point(v, t, rng):
    """A float 8 y with a zero point off 0: "y_zero_point is usually not used for quantization to float8 types,
    but the quantization formula remains the same for consistency", y = saturate((x / y_scale) + y_zero_point).
    x / 2 - 12 lands on float 8 values, on ties between them (to even) and past the type's range (saturated);
    a kernel that drops the zero point answers x / 2 (onnxruntime's, onnx's evaluator's: FINDINGS ORT-27)."""
    xt, st, yt = q_types(v, t)
    if yt not in FLOAT8 or (xt, st) != ("float", "float"):
        return NotApplicable("float 8 outputs from float x and y_scale; per_tensor covers every binding at zero point 0")
    return quantize(v, t, f32([0.0, 1.0, 2.0, 3.0, -20.0, 1e6]), f32(2), array(-12, yt))


@OPERATOR.example
def uint16(v, t, rng):
    x = f32([0.0, -128.0, 3.0, -3.0, 2.9, -2.9, 3.1, -3.1, 65536.0, -65534.0, 70000.0, -70000.0])
    return only(v, t, yt="uint16", since=21) or quantize(v, t, x, f32(2), np.array(32767, np.uint16))


@OPERATOR.example
def int16(v, t, rng):
    x = f32([0.0, -514.0, 3.0, -3.0, 2.9, -2.9, 3.1, -3.1, 65022.0, -66046.0, 65023.0, -66047.0, 65024.0,
             -66048.0, 70000.0, -70000.0])
    return only(v, t, yt="int16", since=21) or quantize(v, t, x, f32(2), np.array(256, np.int16))


def small_doc(yt, rows, zp, since):
    def example(v, t, rng):
        na = only(v, t, yt=yt, since=since)
        if na:
            return na
        scale = f32([2.0, 3.0, 4.0])
        return quantize(v, t, f32(rows), scale, array([zp] * 3, yt), axis=0)

    return example


ROWS_4 = [[0.0, 2.5, 4.8, 8.6], [-30, -20, 6, 9], [12, 15, 16, 40]]
OPERATOR.example(small_doc("uint4", ROWS_4, 1, 21), name="uint4")
OPERATOR.example(small_doc("int4", ROWS_4, 1, 21), name="int4")
OPERATOR.example(small_doc("uint2", [[0.0, 2.5, 4.8, 8.6], [-2.0, -1.0, 1.0, 3.0], [4.0, 5.0, 6.0, 7.0]], 0, 25),
                 name="uint2")
OPERATOR.example(small_doc("int2", [[0.0, 2.5, 4.8, 8.6], [-4.0, -3.0, 1.0, 2.0], [-0.0, -2.5, -4.8, -8.6]], 0, 25),
                 name="int2")
OPERATOR.example(small_doc("float4e2m1", [[0.0, 2.5, 4.8, 8.6], [-30, -20, 6, 9], [-0.0, -2.5, -4.8, -8.6]], 0, 23),
                 name="float4e2m1")

BLOCK_X = [[6.0, 12.0, 50.0, 5.0], [1.0, 8.0, 4.0, 5.0], [0.0, 20.0, 10.0, 4.0]]
BLOCK_SCALE = [[1.5, 2.5], [3.0, 4.9], [5.1, 6.9]]


@OPERATOR.example
def blocked_asymmetric(v, t, rng):
    return only(v, t, since=21) or quantize(v, t, f32(BLOCK_X), f32(BLOCK_SCALE),
                                           np.array([[0, 1], [1, 0], [2, 3]], np.uint8), axis=1, block_size=2)


@OPERATOR.example
def blocked_symmetric(v, t, rng):
    na = only(v, t, yt="int16", since=21)
    if na:
        return na
    x = f32([[6.0, -8, -10, 5.0], [1.0, 8.0, 4.0, 5.0], [0.0, 20.0, 10.0, 4.0]])
    return quantize(v, t, x, f32(BLOCK_SCALE), None, axis=1, block_size=2, output_dtype="int16")


# ---------------------------------------------------------------------------------------------
# attributes and defaults


@OPERATOR.example
def no_zero_point(v, t, rng):
    """y_zero_point left out: 'Default is uint8 with zero point of 0 if it's not specified'."""
    xt, st, yt = q_types(v, t)
    if yt != "uint8":
        return NotApplicable("without y_zero_point (and output_dtype) the output is uint8")
    s = unit(xt, st)
    xs = [q * s for q in targets("uint8", 0) if admissible(v, q, q * s, xt, st)]
    return quantize(v, t, array(xs, xt), array(s, st), None, precision=needs_precision(v, st))


@OPERATOR.example
def output_dtype(v, t, rng):
    """output_dtype names the output type; no y_zero_point (a zero point of 0)."""
    if not v.has_attribute("output_dtype"):
        return NotApplicable(f"QuantizeLinear-{v.since_version} has no output_dtype (21's)")
    xt, st, yt = q_types(v, t)
    if (xt, st) != ("float", "float") or yt not in SUBSET + ("int16",):
        return NotApplicable("output_dtype examples run with float x and y_scale, in uint8, int8, int4, "
                             "float8e4m3fn, int16 (and blocked_symmetric); per_tensor covers the other types")
    s = unit(xt, st)
    xs = [q * s for q in targets(yt, 0) if representable(q * s, xt)]
    return quantize(v, t, array(xs, xt), array(s, st), None, output_dtype=yt)


@OPERATOR.example
def saturate_false(v, t, rng):
    """saturate=0: beyond the float 8 type's range is NaN (+-inf in float8e5m2), per Cast's tables; from 28 it
    'has no effect for float4e2m1, float6e2m3, or float6e3m2' (they saturate)."""
    if not v.has_attribute("saturate"):
        return NotApplicable(f"QuantizeLinear-{v.since_version} has no saturate (19's)")
    xt, st, yt = q_types(v, t)
    no_effect = yt in ("float4e2m1", "float6e2m3", "float6e3m2") and \
        "no effect" in v.schema.attributes["saturate"].description
    if yt not in FLOAT8 and not no_effect:
        return NotApplicable("saturate 'only applies for float 8 quantization'")
    if (xt, st) != ("float", "float"):
        return NotApplicable("saturate examples run with float x and y_scale; per_tensor covers the other types")
    fi = small_float_info(yt)
    big = Fraction(float(fi.max))
    xs = [Fraction(0), Fraction(1), big, -big, 2 * big, -2 * big, big * 2 ** 20, Fraction(3, 2)]
    xs = [q * Fraction(1, 2) for q in xs] + [Fraction(7)]
    return quantize(v, t, array(xs, xt), array(Fraction(1, 2), st), array(0, yt), saturate=0)


PRECISION_X = [304, 300, 301, 307, -304, -3, 3, 7.5, 4.5, 100.5, 101.5, 762, -762]


@OPERATOR.example
def scale_precision(v, t, rng):
    """'The type of y_scale determines the precision of the division': 304 / 3 in bfloat16 is 101.5,
    which rounds to 102 (in float, 101.33 rounds to 101)."""
    if v.since_version < 23:
        return NotApplicable(f"QuantizeLinear-{v.since_version} names no precision for the division (23's)")
    if q_types(v, t) != ("float", "bfloat16", "int8"):
        return NotApplicable("the division-precision example quantizes float by a bfloat16 scale to int8")
    return quantize(v, t, f32(PRECISION_X), array(3, "bfloat16"), array(0, "int8"))


@OPERATOR.example
def precision(v, t, rng):
    """The precision attribute (float) overrides the bfloat16 scale's: 304 / 3 = 101.33 -> 101."""
    if not v.has_attribute("precision"):
        return NotApplicable(f"QuantizeLinear-{v.since_version} has no precision attribute (23's)")
    if q_types(v, t) != ("float", "bfloat16", "int8"):
        return NotApplicable("the precision example quantizes float by a bfloat16 scale to int8")
    return quantize(v, t, f32(PRECISION_X), array(3, "bfloat16"), array(0, "int8"), precision="float")


# ---------------------------------------------------------------------------------------------
# rejections


@OPERATOR.rejection
def scale_length_mismatch(v, t, rng):
    """A 1-D y_scale whose length is not the axis' dimension."""
    if not v.has_attribute("axis"):
        return NotApplicable(f"QuantizeLinear-{v.since_version} has no per-axis quantization")
    xt, st, yt = q_types(v, t)
    x = array([Fraction(k, 2) for k in range(24)], xt, (2, 3, 4))
    inputs = {"x": x, "y_scale": array([1, 2, 1, 2], st), "y_zero_point": array([0] * 4, yt)}
    return OPERATOR.reject(v, inputs, {"axis": 1}, {"y": Declared(yt, (2, 3, 4))})


@OPERATOR.rejection
def block_size_out_of_range(v, t, rng):
    """block_size 2 over 6 elements with 2 scales: the accepted range is [ceil(6/2), ceil(6/1) - 1] = [3, 5]."""
    if not v.has_attribute("block_size"):
        return NotApplicable(f"QuantizeLinear-{v.since_version} has no block_size")
    xt, st, yt = q_types(v, t)
    lo, hi = block_range(6, 2)
    assert not lo <= 2 <= hi
    x = array([Fraction(k, 2) for k in range(12)], xt, (2, 6))
    inputs = {"x": x, "y_scale": array([[1, 2], [2, 1]], st), "y_zero_point": array([[0, 0], [0, 0]], yt)}
    return OPERATOR.reject(v, inputs, {"axis": 1, "block_size": 2}, {"y": Declared(yt, (2, 6))})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^scale_precision \w+: .*got 101 expected 102",
    "the evaluator divides in float whatever y_scale's type; 'The type of y_scale determines the precision of "
    "the division operation between x and y_scale' (23 on): 304 / 3 in bfloat16 is 101.5, which rounds to 102",
)
OPERATOR.reference_differs(
    r"^float8_zero_point \w+: ",
    "the evaluator's float 8 branch drops y_zero_point (it adds it for float4e2m1); 'y_zero_point is usually not "
    "used for quantization to float8 types, but the quantization formula remains the same for consistency'",
)
