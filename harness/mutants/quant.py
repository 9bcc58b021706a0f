"""Mutants of the quantization operators: ties rounded away from zero, wrap-around for saturation, zero
points read as signed or not read (a float 8 one dropped), per-axis and per-row parameters read as
per-tensor, the quantization range not stretched to hold 0, and 32-bit accumulators that are really 16-bit."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import (
    Mutant, as_signed, ignored, result, with_attributes, with_inputs,
)

FAMILY = "Quantization"

NEGATIVE_AXIS = "Negative value means counting dimensions from the back."


def _axis_clamped(call, a):
    if a.get("axis") is not None and a["axis"] < 0:
        a["axis"] = 0
    return a


def _nudged_away(x, *rest, **_):
    """x moved one step away from zero in its own type: x / scale at an exact tie then rounds away from zero,
    and nowhere else moves across an integer."""
    if not isinstance(x, np.ndarray) or x.dtype not in (np.float16, np.float32, np.float64):
        return (x, *rest)
    return (np.nextafter(x, np.where(x < 0, -np.inf, np.inf).astype(x.dtype)).astype(x.dtype), *rest)


WRAPPING = (np.int8, np.uint8, np.int16, np.uint16)


def _quantize_wraps(call, x, scale, *rest, **attrs):
    """Out-of-range values wrap around (a plain integer conversion) instead of saturating; per-tensor only."""
    (y,) = call.run(x, scale, *rest, **attrs)
    zp = rest[0] if rest and rest[0] is not None else None
    if y.dtype.type not in WRAPPING or np.asarray(scale).size != 1 or (zp is not None and zp.size != 1):
        return (y,)
    with np.errstate(all="ignore"):
        q = np.rint(x.astype(np.float64) / float(np.asarray(scale, np.float64).reshape(-1)[0]))
        q = q + (0 if zp is None else float(zp.reshape(-1)[0]))
    info = np.iinfo(y.dtype)
    outside = np.isfinite(q) & ((q < info.min) | (q > info.max))
    wrapped = np.where(outside, q, 0).astype(np.int64).astype(y.dtype)
    return (np.where(outside, wrapped, y).astype(y.dtype),)


def _dequantize_signed_zero_point(call, x, scale, *rest, **attrs):
    """An unsigned zero point read as the signed type of its width (per-tensor)."""
    (y,) = call.run(x, scale, *rest, **attrs)
    zp = rest[0] if rest else None
    if zp is None or zp.dtype.kind != "u" or zp.size != 1 or np.asarray(scale).size != 1:
        return (y,)
    shift = float(zp.reshape(-1)[0]) - float(as_signed(zp).reshape(-1)[0])
    return ((y.astype(np.float64) + shift * float(np.asarray(scale, np.float64).reshape(-1)[0])).astype(y.dtype),)


def _dynamic_ties_away(call, x, **attrs):
    y, scale, zp = call.run(x, **attrs)
    if x.size == 0 or not float(scale):
        return y, scale, zp
    with np.errstate(all="ignore"):
        q = (x.astype(np.float32) / scale).astype(np.float64)
    tie = (q - np.floor(q)) == 0.5
    away = np.sign(q) * np.floor(np.abs(q) + 0.5)
    y = np.clip(y.astype(np.int64) + np.where(tie, away - np.rint(q), 0), 0, 255).astype(y.dtype)
    return y, scale, zp


def _dynamic_range_without_zero(call, x, **attrs):
    """The range [min(x), max(x)] not stretched to hold 0: all-positive or all-negative data quantized over
    its own span."""
    outs = call.run(x, **attrs)
    if x.size == 0:
        return outs
    lo, hi = np.float32(np.min(x)), np.float32(np.max(x))
    if (lo <= 0 <= hi) or hi == lo:
        return outs
    with np.errstate(all="ignore"):
        scale = np.float32((hi - lo) / np.float32(255))
        zp = np.clip(np.rint(np.float32(0) - lo / scale), 0, 255)
        y = np.clip(np.rint(x.astype(np.float32) / scale) + zp, 0, 255)
    return y.astype(np.uint8), np.asarray(scale, np.float32), np.asarray(zp, np.uint8)


def _without(k: int):
    return with_inputs(lambda *xs, **_: xs[:k] + (None,) * (len(xs) > k) + xs[k + 1:])


def _accumulated_in_int16(y, *_, **__):
    """The int32 accumulator is really 16 bits: sums beyond int16 wrap."""
    return y.astype(np.int16).astype(y.dtype)


def _first_element(*ks: int):
    """Per-axis or per-row parameters (inputs ks) read as per-tensor: their first element for all."""
    def inputs(*xs, **_):
        xs = list(xs)
        for k in ks:
            if k < len(xs) and isinstance(xs[k], np.ndarray) and xs[k].size > 1:
                xs[k] = np.full_like(xs[k], xs[k].reshape(-1)[0])
        return tuple(xs)
    return with_inputs(inputs)


def _zero_point_ignored(k: int):
    def inputs(*xs, **_):
        xs = list(xs)
        if k < len(xs) and isinstance(xs[k], np.ndarray):
            xs[k] = np.zeros_like(xs[k])
        return tuple(xs)
    return with_inputs(inputs)


def _float8_zero_point_dropped(*xs, **_):
    """A float 8 y_zero_point read as 0 (onnxruntime's and onnx's evaluator's float 8 kernels: FINDINGS ORT-27)."""
    xs = list(xs)
    if len(xs) > 2 and isinstance(xs[2], np.ndarray) and xs[2].dtype.name.startswith("float8"):
        xs[2] = np.zeros_like(xs[2])
    return tuple(xs)


MUTANTS = [
    Mutant("QuantizeLinear.float8_zero_point_dropped", "QuantizeLinear", "ignored attributes",
           "`y_zero_point` is usually not used for quantization to float8 types, but the quantization formula "
           "remains the same for consistency", with_inputs(_float8_zero_point_dropped), since=(19, None)),
    Mutant("QuantizeLinear.ties_away_from_zero", "QuantizeLinear", "ties away from zero",
           "For `(x / y_scale)`, it rounds to the nearest even.", with_inputs(_nudged_away), since=(19, None)),
    Mutant("QuantizeLinear.wraps_around", "QuantizeLinear", "cast saturation/wrap",
           "The quantization formula is `y = saturate((x / y_scale) + y_zero_point)`.", _quantize_wraps,
           since=(19, None)),
    Mutant("QuantizeLinear.negative_axis_clamped", "QuantizeLinear", "negative axes", NEGATIVE_AXIS,
           with_attributes(_axis_clamped), since=(13, None)),
    Mutant("QuantizeLinear.ignores_saturate", "QuantizeLinear", "ignored attributes",
           "The parameter defines how the conversion behaves if an input value is out of range of the destination "
           "type.", ignored("saturate"), since=(19, None)),
    Mutant("DequantizeLinear.zero_point_read_as_signed", "DequantizeLinear", "signed/unsigned",
           "The dequantization formula is `y = (x - x_zero_point) * x_scale`.", _dequantize_signed_zero_point,
           since=(19, None)),
    Mutant("DequantizeLinear.negative_axis_clamped", "DequantizeLinear", "negative axes", NEGATIVE_AXIS,
           with_attributes(_axis_clamped), since=(13, None)),
    Mutant("DynamicQuantizeLinear.ties_away_from_zero", "DynamicQuantizeLinear", "ties away from zero",
           "rounding to nearest ties to even.", _dynamic_ties_away),
    Mutant("DynamicQuantizeLinear.range_not_holding_zero", "DynamicQuantizeLinear", "wrong defaults",
           "data range is adjusted to include 0.", _dynamic_range_without_zero),
    Mutant("MatMulInteger.ignores_b_zero_point", "MatMulInteger", "ignored attributes",
           "Zero point tensor for input 'B'. It's optional and default value is 0.", _without(3)),
    Mutant("MatMulInteger.int16_accumulation", "MatMulInteger", "cast saturation/wrap",
           "The accumulation may overflow if and only if in 32 bits.", result(_accumulated_in_int16)),
    Mutant("ConvInteger.ignores_x_zero_point", "ConvInteger", "ignored attributes",
           "Zero point tensor for input 'x'. It's optional and default value is 0.", _without(2)),
    Mutant("ConvInteger.int16_accumulation", "ConvInteger", "cast saturation/wrap",
           "The accumulation may overflow if and only if in 32 bits.", result(_accumulated_in_int16)),
    Mutant("QLinearConv.ignores_bias", "QLinearConv", "ignored attributes",
           "Optional 1D bias to be added to the convolution, has size of M.", _without(8)),
    Mutant("QLinearConv.per_channel_as_per_tensor", "QLinearConv", "broadcasting direction",
           "If it's a 1-D tensor, its number of elements should be equal to the number of output channels (M).",
           _first_element(4, 5)),
    Mutant("QLinearMatMul.per_row_as_per_tensor", "QLinearMatMul", "broadcasting direction",
           "Scalar refers to per tensor quantization whereas N-D refers to per row or per column quantization.",
           _first_element(1, 2, 4, 5), since=(21, None)),
    Mutant("QLinearMatMul.ignores_a_zero_point", "QLinearMatMul", "ignored attributes",
           "zero point of quantized input a", _zero_point_ignored(2)),
]
