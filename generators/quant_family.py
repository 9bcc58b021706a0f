"""Quantization and integer linear algebra: what the semantics functions of QuantizeLinear, DequantizeLinear,
DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv share (the element rules,
the granularity of a scale and zero point, numpy.matmul's shapes, the convolution's geometry).

Every value is exact (Python int / Fraction); a result is rounded once: to an integer half to
even ("For (x / y_scale), it rounds to the nearest even") and then saturated to the integer type's
range, or rounded once to a float8/float6/float4 target by `rounding.round_to` under the
version's `saturate` attribute. Where a version names the precision of an intermediate step (the
division in `y_scale`'s type from QuantizeLinear-23, the multiplication in the output type of
DequantizeLinear-23), that step rounds to that type first, as the spec says. Where the spec gives no
value (a NaN quantized to an integer, an integer division's rounding, an int32 accumulation that
overflows) the functions raise `Undefined`; where inputs break a stated rule, `Rejected`.

Data is chosen so that the intermediate steps the spec leaves open are exact in every reading:
scales are powers of two (exact in every float type, float8e8m0 included) wherever the example is
ours, and quantized values and zero points are exact in the output type.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np

from onnx_conformance.generators import conv_family as cf
from onnx_conformance.generators import values
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.rounding import exact, round_to
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, described
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
# block_size's range


def block_range(d: int, s: int) -> tuple[int, int]:
    """block_size's accepted range `[ceil(Di/Si), ceil(Di/(Si-1))-1]`."""
    lo = -(-d // s)
    hi = (-(-d // (s - 1)) - 1) if s > 1 else 10**9
    return lo, hi


# ---------------------------------------------------------------------------------------------
# QuantizeLinear and DequantizeLinear: one element


def quantize_one(x, scale, zp, out: str, div_type: str | None, saturate: bool = True):
    """y = saturate((x / y_scale) + y_zero_point), the division rounded to div_type where the
    version names its precision; integers: half to even, then clamp; small floats: round_to.
    A quotient beyond the division's precision is +-inf there (IEEE 754), and saturates like any
    other; a NaN has no integer value, and an integer division's rounding is not stated."""
    if isinstance(scale, float) or scale == 0:
        raise Undefined("x / y_scale with a y_scale of 0, NaN or infinity has no finite value")
    if isinstance(x, float):  # NaN, inf, -0.0
        q = Fraction(0) if x == 0 else (x if math.isnan(x) else math.copysign(math.inf, x * float(scale)))
    else:
        q = Fraction(x) / Fraction(scale)
    if div_type is not None and isinstance(q, Fraction):
        if values.is_int(div_type):
            if q.denominator != 1:
                raise Undefined(f"x / y_scale in {div_type}: the spec does not say how an integer division rounds")
        else:
            q = exact(float(round_to(q, div_type).astype(np.float64)))
    if isinstance(zp, float) and zp != 0:  # a NaN or infinite zero point of a small float type
        q = float(q) + zp
    if values.is_int(out):
        if isinstance(q, float):
            if math.isnan(q):
                raise Undefined("x / y_scale is NaN: 'saturate' gives it no integer value")
            return values.int_range(out)[1 if q > 0 else 0]
        return clamp(rne(q) + int(zp), out)
    z = Fraction(zp) if not isinstance(zp, float) else Fraction(0)
    neg_zero = isinstance(x, float) and x == 0 and z == 0
    if neg_zero:
        return -0.0
    total = q if isinstance(q, float) else q + z
    return float(round_to(total, out, saturate=saturate).astype(np.float64))


def dequantize_one(x, scale, zp, out: str, in_out: bool = False):
    """y = (x - x_zero_point) * x_scale, rounded once to the output type. `in_out` (DequantizeLinear-23
    on, 'The output type also determines the precision of the multiplication operation'): the
    multiplication's operands, x - x_zero_point and x_scale, are first rounded to the output type."""
    def rounded(e):
        return float(round_to(e, out).astype(np.float64)) if in_out else e

    if isinstance(x, float) or isinstance(scale, float) or isinstance(zp, float):  # IEEE 754: NaN, inf, -0.0
        d, s = rounded(float(x) - float(zp)), rounded(float(scale))
        return float(round_to(d * s, out).astype(np.float64))
    d, s = exact(rounded(Fraction(x) - Fraction(zp))), exact(rounded(Fraction(scale)))
    if isinstance(d, float) or isinstance(s, float):  # an operand beyond the output type: +-inf there
        return float(round_to(float(d) * float(s), out).astype(np.float64))
    return float(round_to(d * s, out).astype(np.float64))


# ---------------------------------------------------------------------------------------------
# QuantizeLinear and DequantizeLinear: each element's scale and zero point


def axis_in_range(v, axis: int, rank: int) -> int:
    """axis: 'Accepted range is [-r, r-1] where r = rank(input)'; a negative one counts from the back."""
    if not -rank <= axis < rank:
        raise Rejected(f"axis: '{described(v, 'axis')}' (axis {axis}, rank {rank})")
    return axis % rank


def per_element(v, x_shape: tuple, scale: np.ndarray, zp, attrs: dict, scale_name: str, zp_name: str):
    """The scale and zero point (exact values) of every element of x, by the granularity the scale's shape
    gives: per tensor (a scalar; a 1-element 1-D tensor reads the same), per axis ('a 1-D tensor of
    length Di'), or blocked (block_size > 0: 'y_scale shape is (D0, ..., ceil(Di/B), ..., Dn)', the block
    size in '[ceil(Di/Si), ceil(Di/(Si-1))-1]'). The zero point 'must have the same shape' as the scale;
    left out, it is 0."""
    scale = np.asarray(scale)
    if zp is not None and np.shape(zp) != scale.shape:
        raise Rejected(f"{zp_name}: '{described(v, zp_name)}' ({zp_name} {np.shape(zp)}, {scale_name} {scale.shape})")
    block = attr(attrs, "block_size", 0) if v.has_attribute("block_size") else 0
    axis = attr(attrs, "axis", 1)
    rank = len(x_shape)
    s = exact_values(scale)
    z = exact_values(zp) if zp is not None else np.zeros(scale.shape, dtype=object)
    if block < 0:
        raise Rejected("block_size: 'The block size is a positive integer.'")
    if not block:
        if scale.size == 1 and scale.ndim <= 1:
            return np.full(x_shape, s.reshape(-1)[0], dtype=object), np.full(x_shape, z.reshape(-1)[0], dtype=object)
        if not v.has_attribute("axis") or scale.ndim != 1:
            raise Rejected(f"{scale_name}: '{described(v, scale_name)}' ({scale_name} {scale.shape})")
        axis = axis_in_range(v, axis, rank)
        if scale.shape[0] != x_shape[axis]:
            raise Rejected(per_axis_rule(v, scale_name))
        view = [1] * rank
        view[axis] = x_shape[axis]
        return np.broadcast_to(s.reshape(view), x_shape), np.broadcast_to(z.reshape(view), x_shape)
    axis = axis_in_range(v, axis, rank) if rank else 0
    if scale.ndim != rank or any(a != b for k, (a, b) in enumerate(zip(scale.shape, x_shape)) if k != axis):
        raise Rejected(f"{scale_name}: '{described(v, scale_name)}' ({scale_name} {scale.shape}, x {tuple(x_shape)})")
    if rank:
        lo, hi = block_range(x_shape[axis], scale.shape[axis]) if scale.shape[axis] else (0, 0)
        if not (x_shape[axis] == 0 if scale.shape[axis] == 0 else lo <= block <= hi):
            raise Rejected(BLOCK_RULE)
        s = np.take(np.repeat(s, block, axis=axis), range(x_shape[axis]), axis=axis)
        z = np.take(np.repeat(z, block, axis=axis), range(x_shape[axis]), axis=axis)
    return s, z


BLOCK_RULE = "block_size: 'the accepted range is [ceil(Di/Si), ceil(Di/(Si-1))-1]'"


def per_axis_rule(v, scale_name: str) -> str:
    """The version's sentence for a per-axis scale: a 1-D tensor of the axis' length."""
    return (v.sentence(r"Per-axis quantization") or v.sentence(r"1-D tensor for per-axis")
            or f"{scale_name} is a 1-D tensor of the axis' length")


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


def division_type(v, x_type: str, scale_type: str, precision: str | None) -> str:
    """The precision of x / y_scale: the `precision` attribute, else y_scale's type ('The type of
    `y_scale` determines the precision of the division operation', QuantizeLinear-23 on). Before 23,
    x and y_scale share T1, or y_scale is float: the division is taken in y_scale's type too (an
    int32 one, whose rounding no version states, gives a value only where the quotient is whole)."""
    return precision or scale_type


def nonzero_zp(type_name: str) -> int:
    """A zero point off the middle of the integer type's range (0 for float types)."""
    if not values.is_int(type_name):
        return 0
    return {"uint8": 100, "int8": -3, "uint16": 30000, "int16": 300, "uint4": 3, "int4": 1,
            "uint2": 1, "int2": -1, "int32": 0}[type_name]


def int_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """numpy.matmul over Python ints (object arrays): exact."""
    return np.asarray(np.matmul(a.astype(object), b.astype(object)), dtype=object)


MATMUL_INNER = "'Matrix product that behaves like numpy.matmul': the inner dimensions must agree"


def matmul_shapes(a_shape, b_shape) -> tuple:
    """numpy.matmul's output shape: 1-D operands promoted ([K] -> [1, K] for a, [K, 1] for b), the inner
    dimensions equal, the batch dimensions broadcast; refused otherwise ('behaves like numpy.matmul')."""
    if not a_shape or not b_shape:
        raise Rejected("'Matrix product that behaves like numpy.matmul': numpy.matmul takes no scalar operand")
    a2 = (1, *a_shape) if len(a_shape) == 1 else tuple(a_shape)
    b2 = (*b_shape, 1) if len(b_shape) == 1 else tuple(b_shape)
    if a2[-1] != b2[-2]:
        raise Rejected(MATMUL_INNER)
    try:
        batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        raise Rejected("'Matrix product that behaves like numpy.matmul': the batch dimensions must broadcast") from None
    return (*batch, *a2[-2:-1][: len(a_shape) - 1], *b2[-1:][: len(b_shape) - 1])


def along(p, x_shape, per_row: bool) -> np.ndarray | None:
    """A zero point or scale of a matrix product's operand, as exact values broadcast to x_shape: a scalar,
    (per row of a) 'an M element vector' standing for [..., M, 1], (per column of b) an N element vector, or an
    N-D tensor of such a shape; None where it does not broadcast to x_shape without widening it."""
    z = exact_values(p)
    if per_row and z.ndim == 1 and z.size > 1:  # 'an M element vector': one per row
        z = z.reshape(-1, 1)
    try:
        if np.broadcast_shapes(z.shape, x_shape) != tuple(x_shape):
            return None
    except ValueError:
        return None
    return np.broadcast_to(z, x_shape)


def requantize(real: np.ndarray, y_scale, y_zp, out: str, saturate: bool = True) -> np.ndarray:
    """QLinear*'s output: saturate(round(real / y_scale) + y_zero_point), element by element."""
    flat = [quantize_one(r, y_scale, y_zp, out, None, saturate) for r in real.reshape(-1)]
    return array(flat, out, real.shape)


def small_float_info(type_name: str):
    return ml_dtypes.finfo(numpy_of(type_name))


# ---------------------------------------------------------------------------------------------
# ConvInteger and QLinearConv: the integer convolution of the zero-point-shifted operands


def conv_geometry(v, attrs: dict, x_shape, w_shape) -> dict:
    """convolve()'s keyword arguments from the node's attributes (auto_pad resolved to pads), checked
    against the spec's rules: conv_family.attributes' own, 'X.shape[1] == (W.shape[1] * group) == C',
    and an output no dimension of which is empty."""
    a = cf.attributes(v, attrs, x_shape, w_shape,
                      "x: '(N x C x D1 x D2 ... x Dn)'; w: '(M x C/group x k1 x k2 x ... x kn)'")
    if a.group < 1 or x_shape[1] != w_shape[1] * a.group:
        raise Rejected("w: 'X.shape[1] == (W.shape[1] * group) == C (assuming zero based indices for the shape array)'")
    if w_shape[0] % a.group:
        raise Undefined(f"{v.op} gives no value when M ({w_shape[0]}) is not a multiple of group ({a.group}): "
                        "'number of groups input channels and output channels are divided into'")
    return cf.convolve_args(a, x_shape, w_shape, "y: 'The output dimensions are functions of the kernel size, "
                            "stride size, and pad lengths': a kernel wider than the padded input gives an empty output")


def conv_zero_points(v, w_shape, xzp, wzp) -> None:
    """x_zero_point: 'It's a scalar'; w_zero_point: 'a scalar or a 1-D tensor', of 'the number of output
    channels (M)' elements."""
    if xzp is not None and np.size(xzp) != 1:
        raise Rejected(f"x_zero_point: '{described(v, 'x_zero_point')}'")
    if wzp is not None and np.size(wzp) != 1 and (np.ndim(wzp) != 1 or np.size(wzp) != w_shape[0]):
        raise Rejected(f"w_zero_point: '{described(v, 'w_zero_point')}'")


def shifted_conv(x, w, xzp, wzp, geometry: dict) -> np.ndarray:
    """conv(x - x_zero_point, w - w_zero_point): the zero point per tensor, or (w) one per output
    channel; padding is 0 after the shift (a padded position adds nothing to the sum)."""
    ex = exact_values(x)
    if xzp is not None:
        ex = ex - exact_values(xzp).reshape(-1)[0]
    ew = exact_values(w)
    if wzp is not None:
        z = exact_values(wzp).reshape(-1)
        ew = ew - (z.reshape((-1,) + (1,) * (w.ndim - 1)) if z.size > 1 else z[0])
    return np.asarray(cf.convolve(ex, ew, **geometry), dtype=object)


def int32_accumulation(acc: np.ndarray) -> np.ndarray:
    """The exact integer sums as int32: 'The accumulation may overflow if and only if in 32 bits', and the
    spec gives no value for an overflowing one."""
    lo, hi = values.int_range("int32")
    if any(not lo <= e <= hi for e in acc.reshape(-1)):
        raise Undefined("the int32 accumulation overflows: the spec gives no value ('The accumulation may overflow "
                        "if and only if in 32 bits')")
    return np.array(acc.tolist(), dtype=np.int32).reshape(acc.shape)


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
