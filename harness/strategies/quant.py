"""Quantization: QuantizeLinear and DequantizeLinear (per tensor, per axis, blocked; every type the version binds), DynamicQuantizeLinear, QLinearMatMul, QLinearConv and ConvInteger.

QuantizeLinear's x is drawn as x = q * scale with q from quantize_linear.targets (halves, to test
'rounding to nearest ties to even'; the range's ends and past them, to test saturation; a small
float's midpoints), so the ties are exact ones; the scales are powers of two (exact in every type)
or any positive float. A blocked scale's block size and count are drawn first and the axis' length
from them, its last block as often short (B does not divide the axis) as full. saturate is drawn only
for small-float outputs ('It only applies for float 8 quantization'). The integer products draw their
operands around the zero points, so the int32 accumulation stays in range; the convolutions share
windows.py's geometry and stay small (WORK): the semantics sums with Fractions.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators import values
from onnx_conformance.generators.quant_family import dq_types, elem, per_element, q_types
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.harness.dtypes import numpy_of
from onnx_conformance.harness.strategies.common import (
    Discard,
    Family,
    Probe,
    _storage,
    dims,
    element_values,
    overlay,
    shapes,
    tensors,
)
from onnx_conformance.harness.strategies.indices import negative_spelling
from onnx_conformance.harness.strategies.windows import _geometry

ELEMENTS = 512  # x's elements at most: the semantics quantizes each one with Fractions
WORK = 4096  # multiply-adds of an integer product or convolution, at most
BIAS = st.integers(-(2**24), 2**24)
EXPONENTS = st.integers(-6, 6)  # scales 2^-6 .. 2^6: exact in every scale type, float8e8m0 included


class Quantization(Family):
    name = "quantization"
    operators = ("QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearMatMul", "QLinearConv",
                 "ConvInteger")

    def strategy(self, op, v, t):
        return {"QuantizeLinear": _quantize, "DequantizeLinear": _dequantize,
                "DynamicQuantizeLinear": _dynamic, "QLinearMatMul": _qlinear_matmul,
                "QLinearConv": _conv, "ConvInteger": _conv}[op.name](op, v, t)

    def case(self, op, v, t, probe):
        try:
            return super().case(op, v, t, probe)
        except (ValueError, OverflowError) as e:  # an edge value with no exact value (a NaN or infinite scale)
            raise Discard(f"no exact value: {e}") from None


def _cast(xs, type_name: str) -> np.ndarray:
    """Exact values (Fractions, ints, floats) as an array of the type, rounded once where they are not held."""
    flat = [float(x) for x in np.asarray(xs, dtype=object).reshape(-1)]
    with np.errstate(all="ignore"):
        if values.is_int(type_name):
            return np.array([int(x) for x in flat], dtype=np.int64).astype(numpy_of(type_name)).reshape(np.shape(xs))
        return np.array(flat, dtype=np.float64).astype(numpy_of(type_name)).reshape(np.shape(xs))


@st.composite
def _scale(draw, type_name: str, shape):
    """Positive scales of `shape`: powers of two (drawn exponents, repeating), or any positive float."""
    n = math.prod(shape)
    if type_name == "int32":  # whole scales: an int32 y_scale (QuantizeLinear-24 on)
        picks = draw(st.lists(st.integers(1, 8), min_size=1, max_size=4), label="scales")
        return np.array([picks[i % len(picks)] for i in range(n)], dtype=np.int32).reshape(shape)
    exps = draw(st.lists(EXPONENTS, min_size=1, max_size=4), label="scale exponents")
    flat = [2.0 ** exps[i % len(exps)] for i in range(n)]
    if type_name != "float8e8m0" and n and draw(st.booleans(), label="any scale"):
        for i, x in draw(st.lists(st.tuples(st.integers(0, n - 1), st.floats(0.0625, 100, width=16)), max_size=4),
                         label="drawn scales"):
            flat[i] = x
    return _cast(np.array(flat, dtype=object).reshape(shape), type_name)


@st.composite
def _granularity(draw, v, shape, label):
    """(x shape, scale shape, attrs): per tensor (a scalar or a 1-element 1-D tensor), per axis, or blocked.
    A blocked axis is drawn anew as (blocks - 1) * block_size + the last block's length, that last block
    as often short as full; the other dimensions become 1 where the whole would pass ELEMENTS."""
    rank = len(shape)
    kinds = ["tensor"] + (["axis"] if v.has_attribute("axis") and rank else []) + \
        (["block", "block"] if v.has_attribute("block_size") and rank else [])
    kind = draw(st.sampled_from(kinds), label=f"{label} granularity")
    if kind == "tensor":
        return shape, (() if draw(st.booleans(), label="scalar scale") else (1,)), {}
    axis = draw(st.integers(0, rank - 1), label="axis")
    attrs = {}
    if axis != 1 or draw(st.booleans(), label="give axis"):
        attrs["axis"] = negative_spelling(draw, axis, rank, True)
    if kind == "axis":
        return shape, (shape[axis],), attrs
    block = draw(st.one_of(st.integers(1, 8), st.sampled_from([16, 32, 64])), label="block_size")
    blocks = draw(st.integers(0, 4), label="blocks")
    last = draw(st.one_of(st.just(block), st.integers(1, block)), label="last block")
    shape = list(shape)
    shape[axis] = (blocks - 1) * block + last if blocks else 0
    if math.prod(shape) > ELEMENTS:
        shape = [d if a == axis else min(d, 1) for a, d in enumerate(shape)]
    attrs["block_size"] = block
    scale_shape = list(shape)
    scale_shape[axis] = blocks
    return tuple(shape), tuple(scale_shape), attrs


def _zero_point(draw, type_name: str, shape, label: str):
    """A zero point of the type: integers from a few around 0 up to the range's ends (the middle ones
    most); a float type's 0 (the spec's 'zero point is 0' for them), now and then any of its values."""
    if values.is_int(type_name):
        lo, hi = values.int_range(type_name)
        return draw(tensors(type_name, shape, role="sparse", elements=st.integers(lo, hi)), label=label)
    zp = np.zeros(shape, dtype=numpy_of(type_name))
    if draw(st.integers(0, 9), label=f"{label} not 0") == 0:
        return draw(tensors(type_name, shape), label=label)
    return zp


@lru_cache(maxsize=None)
def _targets(yt: str, zp: int) -> list:
    from onnx_conformance.generators.ops.quantize_linear import targets

    return targets(yt, zp)


@st.composite
def _quantize(draw, op, v, t):
    from onnx_conformance.generators.ops.quantize_linear import needs_precision

    xt, st_, yt = q_types(v, t)
    shape, scale_shape, attrs = draw(_granularity(v, draw(shapes(0, 4, ELEMENTS), label="x shape"), "y_scale"),
                                     label="granularity")
    scale = draw(_scale(st_, scale_shape), label="y_scale")
    omit = (yt == "uint8" or v.has_attribute("output_dtype")) and draw(st.booleans(), label="leave y_zero_point out")
    zp = None if omit else _zero_point(draw, yt, scale_shape, "y_zero_point")
    if v.has_attribute("output_dtype") and (omit and yt != "uint8" or draw(st.booleans(), label="give output_dtype")):
        attrs["output_dtype"] = elem(yt)
    if v.has_attribute("saturate") and values.is_small_float(yt) and draw(st.booleans(), label="give saturate"):
        attrs["saturate"] = draw(st.sampled_from([0, 1]), label="saturate")
    precision = needs_precision(v, st_)
    if precision or (v.has_attribute("precision") and draw(st.booleans(), label="give precision")):
        attrs["precision"] = elem(precision or draw(st.sampled_from(["float", "float16", "bfloat16"]), label="precision"))
    try:
        scales, zps = per_element(v, shape, scale, zp, attrs, "y_scale", "y_zero_point")
    except Rejected as e:
        raise Discard(str(e)) from None
    n = math.prod(shape)
    # x = q * scale: the quotient lands on a tie, an end of the range or past it, exactly
    picks = draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=8), label="quotients")
    flat_s, flat_z = scales.reshape(-1), zps.reshape(-1)
    exact = []
    for i in range(n):
        qs = _targets(yt, int(flat_z[i]) if values.is_int(yt) else 0)
        exact.append(qs[picks[i % len(picks)] % len(qs)] * flat_s[i])
    x = _cast(np.array(exact, dtype=object).reshape(shape), xt)
    if n:
        flat = x.reshape(-1).view(_storage(xt))
        for i, value in draw(overlay(n, element_values(xt)), label="x edges"):
            flat[i] = value
    return Probe({"x": x, "y_scale": scale, "y_zero_point": zp}, attrs)


@st.composite
def _dequantize(draw, op, v, t):
    xt, st_, yt = dq_types(v, t)
    shape, scale_shape, attrs = draw(_granularity(v, draw(shapes(0, 4, ELEMENTS), label="x shape"), "x_scale"),
                                     label="granularity")
    scale = draw(_scale(st_, scale_shape), label="x_scale")
    x = draw(tensors(xt, shape), label="x")
    if xt == "int32":  # 'In the case of dequantizing int32, there's no zero point'
        zp = np.zeros(scale_shape, np.int32) if draw(st.booleans(), label="give x_zero_point") else None
    else:
        zp = None if draw(st.booleans(), label="leave x_zero_point out") else _zero_point(draw, xt, scale_shape, "x_zero_point")
    if v.has_attribute("output_dtype") and (yt != st_ or draw(st.booleans(), label="give output_dtype")):
        attrs["output_dtype"] = elem(yt)
    return Probe({"x": x, "x_scale": scale, "x_zero_point": zp}, attrs)


@st.composite
def _dynamic(draw, op, v, t):
    shape = draw(shapes(0, 4, ELEMENTS), label="x shape")
    role = draw(st.sampled_from(["distinct", "tame"]), label="x values")
    return Probe({"x": draw(tensors(t["T1"], shape, role=role), label="x")}, outputs=["y", "y_scale", "y_zero_point"])


def _around(draw, type_name: str, shape, zp, label: str):
    """Integers (or small floats) near the zero point: the products and sums stay inside int32."""
    if not values.is_int(type_name):
        return draw(tensors(type_name, shape), label=label)
    lo, hi = values.int_range(type_name)
    z = int(np.asarray(zp).reshape(-1)[0]) if np.size(zp) else 0
    base = (z + (np.arange(math.prod(shape)) * 7) % 9 - 4).clip(lo, hi)
    x = base.astype(numpy_of(type_name)).reshape(shape)
    if x.size:
        flat = x.reshape(-1)
        for i, value in draw(st.lists(st.tuples(st.integers(0, x.size - 1), st.integers(lo, hi)), max_size=8),
                             label=f"{label} drawn"):
            flat[i] = value
    return x


def _qparams(draw, scale_type: str, zp_type: str, shape, label: str):
    scale = draw(_scale(scale_type, shape), label=f"{label}_scale")
    return scale, _zero_point(draw, zp_type, shape, f"{label}_zero_point")


@st.composite
def _qlinear_matmul(draw, op, v, t):
    from onnx_conformance.generators.ops.q_linear_mat_mul import scale_type

    ts = scale_type(v, t)
    k = draw(dims(64), label="K")
    m = draw(dims(max(1, WORK // max(k, 1) // 4)), label="M")
    n = draw(dims(max(1, WORK // max(k * max(m, 1), 1))), label="N")
    batch = draw(st.sampled_from([(), (), (2,), (1, 3)]), label="batch")
    # 'scalar (per tensor) or N-D tensor (per row for 'a' and per column for 'b')': an M (N) element vector too
    a_shape = draw(st.sampled_from([(), (m,), batch + (m, 1)]), label="a_scale shape")
    b_shape = draw(st.sampled_from([(), (n,), (1, n)]), label="b_scale shape")
    a_sc, a_zp = _qparams(draw, ts, t["T1"], a_shape, "a")
    b_sc, b_zp = _qparams(draw, ts, t["T2"], b_shape, "b")
    y_sc, y_zp = _qparams(draw, ts, t["T3"], (), "y")
    a = _around(draw, t["T1"], batch + (m, k), a_zp, "a")
    b = _around(draw, t["T2"], (k, n), b_zp, "b")
    return Probe({"a": a, "a_scale": a_sc, "a_zero_point": a_zp, "b": b, "b_scale": b_sc, "b_zero_point": b_zp,
                  "y_scale": y_sc, "y_zero_point": y_zp})


@st.composite
def _conv(draw, op, v, t):
    nd = draw(st.sampled_from([2, 1, 3]), label="spatial rank")
    group = draw(st.sampled_from([1, 1, 2, 3]), label="group")
    per_group, out_per_group = draw(st.integers(1, 3), label="C per group"), draw(st.integers(1, 3), label="M per group")
    geometry = draw(_geometry(v, nd, 32 // per_group), label="geometry")
    kernel = geometry.pop("kernel_shape")
    if draw(st.booleans(), label="give kernel_shape"):
        geometry["kernel_shape"] = kernel
    if group != 1 or draw(st.booleans(), label="give group=1"):
        geometry["group"] = group
    reach = [(k - 1) * d + 1 for k, d in zip(kernel, geometry.get("dilations", [1] * nd))]
    batch, channels, m = draw(st.integers(1, 2), label="N"), group * per_group, group * out_per_group
    room = max(1, WORK // (batch * channels * out_per_group * math.prod(kernel)))
    spatial = []
    pads = geometry.get("pads", [0] * (2 * nd))
    for axis in range(nd):
        size = max(reach[axis] - pads[axis] - pads[axis + nd], 1, draw(st.sampled_from([1, 2, 3, 4, 5, 7, 8, 9, 16, 17]).filter(
            lambda s, r=room: s <= max(r, 1)), label="spatial size"))
        spatial.append(size)
        room = max(1, room // size)
    x_shape, w_shape = (batch, channels, *spatial), (m, per_group, *kernel)
    if op.name == "ConvInteger":  # both zero points optional: x's per tensor, w's per tensor or per output channel
        xzp = _zero_point(draw, t["T1"], (), "x_zero_point") if draw(st.booleans(), label="give x_zero_point") else None
        wzp = None
        if draw(st.booleans(), label="give w_zero_point"):
            wzp = _zero_point(draw, t["T2"], draw(st.sampled_from([(), (m,)]), label="w_zero_point shape"), "w_zero_point")
        inputs = {"x": _around(draw, t["T1"], x_shape, 0 if xzp is None else xzp, "x"),
                  "w": _around(draw, t["T2"], w_shape, 0 if wzp is None else np.asarray(wzp).reshape(-1)[:1], "w")}
        if xzp is not None or wzp is not None:
            inputs["x_zero_point"] = xzp  # None: left empty before a given w_zero_point
        if wzp is not None:
            inputs["w_zero_point"] = wzp
        return Probe(inputs, geometry)
    x_sc, xzp = _qparams(draw, "float", t["T1"], (), "x")
    per_channel = draw(st.booleans(), label="w per output channel")
    w_sc, wzp = _qparams(draw, "float", t["T2"], (m,) if per_channel else (), "w")
    y_sc, yzp = _qparams(draw, "float", t["T3"], (), "y")
    inputs = {"x": _around(draw, t["T1"], x_shape, xzp, "x"), "x_scale": x_sc, "x_zero_point": xzp,
              "w": _around(draw, t["T2"], w_shape, np.asarray(wzp).reshape(-1)[:1], "w"), "w_scale": w_sc,
              "w_zero_point": wzp, "y_scale": y_sc, "y_zero_point": yzp}
    if draw(st.booleans(), label="give B"):
        # within 2^24: 'the spec does not say how wide the sum of B and the accumulation is', and an int32 one
        # (onnxruntime's) wraps past int32 where the exact sum saturates y
        inputs["B"] = draw(tensors("int32", (m,), role="tame", elements=BIAS), label="B")
    return Probe(inputs, geometry)
