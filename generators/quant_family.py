"""Quantization and integer linear algebra: exact oracles of QuantizeLinear, DequantizeLinear,
DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv.

Every value is exact (Python int / Fraction); a result is rounded once: to an integer half to
even ("For (x / y_scale), it rounds to the nearest even") and then saturated to the integer type's
range, or rounded once to a float8/float6/float4 target by `rounding.round_to` under the
version's `saturate` attribute. Where a version names the precision of an intermediate step (the
division in `y_scale`'s type from QuantizeLinear-23, the multiplication in the output type of
DequantizeLinear-23), that step rounds to that type first, as the spec says.

Data is chosen so that the intermediate steps the spec leaves open are exact in every reading:
scales are powers of two (exact in every float type, float8e8m0 included) wherever the example is
ours, and quantized values and zero points are exact in the output type.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.rounding import exact, round_to
from onnx_conformance.harness.dtypes import elem_type_of, name_of_numpy, numpy_of

FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")


# ---------------------------------------------------------------------------------------------
# scalars


def rne(q: Fraction) -> int:
    """Round to the nearest integer, ties to even (Fraction.__round__ does exactly that)."""
    return round(Fraction(q))


def clamp(n: int, type_name: str) -> int:
    lo, hi = values.int_range(type_name)
    return max(lo, min(hi, n))


def representable(q, type_name: str) -> bool:
    """q (exact) is a value of type_name (integers: in range; floats: no rounding, no overflow)."""
    q = Fraction(q)
    if values.is_int(type_name):
        lo, hi = values.int_range(type_name)
        return q.denominator == 1 and lo <= q <= hi
    r = round_to(q, type_name, saturate=True)
    return bool(np.isfinite(np.float64(r.astype(np.float64)))) and Fraction(float(r.astype(np.float64))) == q


def array(xs, type_name: str, shape=None) -> np.ndarray:
    """Exact values (each representable) as an array of type_name; floats go through float64 exactly."""
    flat = list(np.asarray(xs, dtype=object).reshape(-1))
    dt = numpy_of(type_name)
    if values.is_int(type_name):
        out = np.array([int(e) for e in flat], dtype=np.int64).astype(dt)
    else:
        out = np.array([float(e) for e in flat], dtype=np.float64).astype(dt)
    return out.reshape(np.shape(xs) if shape is None else shape)


def value_of(e):
    """One element as an exact value: int, Fraction, or a float for NaN/+-inf/-0.0."""
    if isinstance(e, (int, np.integer)):
        return int(e)
    f = float(np.asarray(e).astype(np.float64))
    if not math.isfinite(f) or (f == 0 and math.copysign(1.0, f) < 0):
        return f
    return Fraction(f)


def exact_values(x: np.ndarray) -> np.ndarray:
    """An array's elements as exact values (object array of the same shape)."""
    x = np.asarray(x)
    out = np.empty(x.shape, dtype=object)
    is_int = values.is_int(dtype_name(x))
    for idx, e in np.ndenumerate(x):
        out[idx] = int(e) if is_int else value_of(e)
    return out


def dtype_name(x: np.ndarray) -> str:
    return name_of_numpy(np.asarray(x).dtype)


def elem(type_name: str) -> int:
    return elem_type_of(type_name)


# ---------------------------------------------------------------------------------------------
# granularity: a scale / zero point expanded to the input's shape


def expand(p: np.ndarray, shape: tuple, axis: int | None, block_size: int = 0) -> np.ndarray:
    """The parameter (scale or zero point) each element of a tensor of `shape` uses: per tensor
    (a scalar, or a 1-element tensor), per axis (1-D of the axis' length), or blocked (the input's
    rank, 'ceil(Di/B)' along axis, every scale replicated B times)."""
    p = np.asarray(p, dtype=object)
    if p.ndim == 0 or (p.size == 1 and not block_size):
        return np.full(shape, p.reshape(-1)[0], dtype=object)
    axis = axis % len(shape)
    if block_size:
        rep = np.repeat(p, block_size, axis=axis)
        return np.take(rep, range(shape[axis]), axis=axis)
    view = [1] * len(shape)
    view[axis] = shape[axis]
    return np.broadcast_to(p.reshape(view), shape)


def block_range(d: int, s: int) -> tuple[int, int]:
    """block_size's accepted range `[ceil(Di/Si), ceil(Di/(Si-1))-1]`."""
    lo = -(-d // s)
    hi = (-(-d // (s - 1)) - 1) if s > 1 else 10**9
    return lo, hi


# ---------------------------------------------------------------------------------------------
# QuantizeLinear and DequantizeLinear: one element


def quantize_one(x, scale, zp, out: str, div_type: str | None, saturate: bool = True):
    """y = saturate((x / y_scale) + y_zero_point), the division rounded to div_type where the
    version names its precision; integers: half to even, then clamp; small floats: round_to."""
    if isinstance(x, float):  # NaN, inf, -0.0
        if x == 0:
            q = Fraction(0)
        else:
            raise ValueError("quantize oracle: x must be finite")
    else:
        q = Fraction(x) / Fraction(scale)
    if div_type is not None and not values.is_int(div_type):
        r = round_to(q, div_type)
        q = exact(float(r.astype(np.float64)))
        if not isinstance(q, Fraction):
            raise ValueError("quantize oracle: the division overflows its precision")
    if values.is_int(out):
        return clamp(rne(q) + int(zp), out)
    z = Fraction(zp) if not isinstance(zp, float) else Fraction(0)
    neg_zero = isinstance(x, float) and x == 0 and z == 0
    if neg_zero:
        return -0.0
    return float(round_to(q + z, out, saturate=saturate).astype(np.float64))


def dequantize_one(x, scale, zp, out: str):
    """y = (x - x_zero_point) * x_scale, rounded once to the output type (data keeps every
    step exact in it, so the output type's own arithmetic gives the same)."""
    if isinstance(x, float) or isinstance(scale, float):
        f = (float(x) - float(zp)) * float(scale)
        return float(round_to(f, out).astype(np.float64))
    d = Fraction(x) - Fraction(zp)
    return float(round_to(d * Fraction(scale), out).astype(np.float64))


# ---------------------------------------------------------------------------------------------
# type parameters by version


class QuantOperator(Operator):
    """The primary type parameter is the quantized one (QuantizeLinear's output, DequantizeLinear's
    input): it allows the most types in every version."""

    def __init__(self, name: str, quantized: dict[int, str], defaults: dict):
        super().__init__(name, defaults=defaults)
        self._quantized = quantized

    def primary_param(self, v) -> str:
        for since in sorted(self._quantized, reverse=True):
            if v.since_version >= since:
                return self._quantized[since]
        return super().primary_param(v)


def q_types(v, t) -> tuple[str, str, str]:
    """QuantizeLinear's (x type, scale type, y type) in a binding."""
    p = v.type_params
    if "T3" in p:
        return t["T1"], t["T2"], t["T3"]
    if v.schema.inputs[1].type_str == "tensor(float)":
        return t["T1"], "float", t["T2"]
    return t["T1"], t["T1"], t["T2"]


def dq_types(v, t) -> tuple[str, str, str]:
    """DequantizeLinear's (x type, scale type, y type) in a binding."""
    p = v.type_params
    if "T3" in p:
        return t["T1"], t["T2"], t["T3"]
    if "T" in p:
        return t["T"], "float", "float"
    return t["T1"], t["T2"], t["T2"]


def division_type(v, x_type: str, scale_type: str, precision: str | None) -> str | None:
    """Where the version names the division's precision: the `precision` attribute, else
    `y_scale`'s type (QuantizeLinear-23 on). Before 23, x and y_scale share a float type (or x is
    int32 and y_scale float), and the division is taken in that float type."""
    if precision:
        return precision
    if v.since_version >= 23:
        return scale_type
    return scale_type if scale_type != "int32" else None


def nonzero_zp(type_name: str) -> int:
    """A zero point off the middle of the integer type's range (0 for float types)."""
    if not values.is_int(type_name):
        return 0
    return {"uint8": 100, "int8": -3, "uint16": 30000, "int16": 300, "uint4": 3, "int4": 1,
            "uint2": 1, "int2": -1, "int32": 0}[type_name]


def int_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """numpy.matmul over Python ints (object arrays): exact."""
    return np.asarray(np.matmul(a.astype(object), b.astype(object)), dtype=object)


def requantize(real: np.ndarray, y_scale, y_zp, out: str, saturate: bool = True) -> np.ndarray:
    """QLinear*'s output: saturate(round(real / y_scale) + y_zero_point), element by element."""
    flat = [quantize_one(r, y_scale, y_zp, out, None, saturate) for r in real.reshape(-1)]
    return array(flat, out, real.shape)


def small_float_info(type_name: str):
    return ml_dtypes.finfo(numpy_of(type_name))


# ---------------------------------------------------------------------------------------------
# ConvInteger and QLinearConv: the integer convolution of the zero-point-shifted operands


def conv_attrs(x_shape, w_shape, attrs: dict) -> dict:
    """convolve()'s keyword arguments from the node's attributes (auto_pad resolved to pads)."""
    from onnx_conformance.generators.conv_family import auto_pads

    spatial = len(x_shape) - 2
    strides = attrs.get("strides", [1] * spatial)
    dilations = attrs.get("dilations", [1] * spatial)
    pads = auto_pads(x_shape[2:], w_shape[2:], strides, dilations, attrs.get("auto_pad", "NOTSET"))
    if pads is None:
        pads = attrs.get("pads", [0] * (2 * spatial))
    return {"strides": strides, "pads": pads, "dilations": dilations, "group": attrs.get("group", 1)}


def shifted_conv(x, w, xzp, wzp, attrs: dict) -> np.ndarray:
    """conv(x - x_zero_point, w - w_zero_point): the zero point per tensor, or (w) one per output
    channel; padding is 0 after the shift (a padded position adds nothing to the sum)."""
    from onnx_conformance.generators.conv_family import convolve

    ex = exact_values(x)
    if xzp is not None:
        ex = ex - exact_values(xzp).reshape(-1)[0]
    ew = exact_values(w)
    if wzp is not None:
        z = exact_values(wzp).reshape(-1)
        ew = ew - (z.reshape((-1,) + (1,) * (w.ndim - 1)) if z.size > 1 else z[0])
    return np.asarray(convolve(ex, ew, **conv_attrs(x.shape, w.shape, attrs)), dtype=object)


def near(type_name: str, shape, rng, zp: int, spread: int = 3) -> np.ndarray:
    """Integers within `spread` of the zero point, kept in the type's range."""
    lo, hi = values.int_range(type_name)
    n = int(np.prod(shape, dtype=np.int64))
    return array([min(hi, max(lo, zp + int(k))) for k in rng.integers(-spread, spread + 1, size=n)], type_name, shape)


def full_range(type_name: str, shape, rng) -> np.ndarray:
    """The type's whole range, its two ends first."""
    lo, hi = values.int_range(type_name)
    flat = [int(k) for k in rng.integers(lo, hi + 1, size=int(np.prod(shape, dtype=np.int64)))]
    flat[:2] = [lo, hi][: len(flat)]
    return array(flat, type_name, shape)


# Layouts shared by ConvInteger's and QLinearConv's own examples: (x shape, w shape, attributes).
CONV_LAYOUTS = {
    "strides_dilations_pads": ((1, 1, 5, 6), (2, 1, 2, 2), {"strides": [2, 1], "dilations": [1, 2], "pads": [1, 0, 0, 1]}),
    "group": ((1, 4, 3, 3), (4, 2, 2, 2), {"group": 2}),
    "conv1d": ((2, 2, 7), (2, 2, 3), {"strides": [2]}),
    "conv3d": ((1, 1, 3, 3, 3), (1, 1, 2, 2, 2), {}),
    "auto_pad_same_upper": ((1, 1, 5, 5), (1, 1, 2, 3), {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    "auto_pad_same_lower": ((1, 1, 5, 5), (1, 1, 2, 3), {"auto_pad": "SAME_LOWER", "strides": [2, 2]}),
    "auto_pad_valid": ((1, 1, 5, 5), (1, 1, 2, 3), {"auto_pad": "VALID"}),
    "kernel_shape": ((1, 2, 4, 4), (2, 2, 3, 3), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
}
