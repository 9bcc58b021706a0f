"""DequantizeLinear -> Conv -> QuantizeLinear, the QDQ form of a quantized convolution, which
runtimes turn into one integer kernel (onnxruntime's QDQ selector/action transformers, DQ -> Conv
-> Q to QLinearConv, and QDQ propagation; OpenVINO's low-precision transformations from
ConvertQuantizeDequantize's FakeQuantize; TensorRT's explicit quantization).

The integer kernel must give what the three nodes give: Conv on the dequantized values, then
QuantizeLinear rounding half to even and saturating. Scales are powers of two and values small, so
every Conv result is exact in float and the rounding is the only approximation: with
x_scale * w_scale / y_scale = 1/2, half of the results sit exactly on a .5 tie, and a kernel
rounding ties away from zero (or truncating) is off by one there. Zero points are not zero, and a
patch of the largest x under an all-positive and an all-negative output channel saturates y at
both ends (a kernel that wraps instead of clamping is off by the type's range). `per_tensor` has
one scale for each tensor; `per_channel` a weight scale and zero point per output channel (axis
0), with ratios 1/2, 1 and 1/4; `int32_bias` adds a bias quantized to int32 at x_scale * w_scale,
which moves results by 1.5, -2.5 and 3 of y's steps."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._layout_data import QUANTIZED, qbits, quantized, zero_point

FAMILY = GraphFamily("DQ+Conv+Q", "pattern", targets=(
    "onnxruntime: QDQ selector/action transformers (DQ -> Conv -> Q to QLinearConv), QDQPropagation",
    "OpenVINO: ConvertQuantizeDequantize, low-precision transformations (quantized Convolution)",
    "TensorRT: explicit quantization (Q/DQ around Conv)",
), types=QUANTIZED)


def _spread(t: str) -> int:
    """How far from its zero point x may go: far enough that a full window of extremes saturates y."""
    return {4: 2, 8: 6, 16: 64}[qbits(t)]


def _graph(t, rng, w_scale, w_zero, axis=None, bias=None):
    s = _spread(t)
    zx, zy = zero_point(t, 1), zero_point(t, -1)
    w_zero = zero_point(t, 0) + np.asarray(w_zero) * np.ones(3, int)
    x = quantized(t, rng, (1, 2, 5, 5), zx, s)
    x[0, :, 1:4, 1:4] = zx + s  # a 3x3 patch of the largest x
    w = np.stack([quantized(t, rng, (2, 3, 3), int(z), s - 1) for z in w_zero])
    w[0], w[1] = w_zero[0] + s - 1, w_zero[1] - (s - 1)  # channel 0 saturates high on the patch, 1 low
    dq_w = {"axis": axis} if axis is not None else {}
    nodes = [helper.make_node("DequantizeLinear", ["x", "x_scale", "x_zero"], ["xf"]),
             helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero"], ["wf"], **dq_w)]
    weights = {"x_scale": np.float32(0.5), "x_zero": cast_to(zx, t), "w": cast_to(w, t),
               "w_scale": np.asarray(w_scale, np.float32),
               "w_zero": cast_to(w_zero if axis is not None else w_zero[0], t),
               "y_scale": np.float32(0.25), "y_zero": cast_to(zy, t)}
    conv_inputs = ["xf", "wf"]
    if bias is not None:
        nodes.append(helper.make_node("DequantizeLinear", ["b", "b_scale", "b_zero"], ["bf"]))
        weights |= {"b": np.asarray(bias, np.int32), "b_scale": np.float32(0.5 * w_scale), "b_zero": np.int32(0)}
        conv_inputs.append("bf")
    nodes += [helper.make_node("Conv", conv_inputs, ["yf"], pads=[1, 1, 1, 1]),
              helper.make_node("QuantizeLinear", ["yf", "y_scale", "y_zero"], ["y"])]
    return Graph(nodes, inputs={"x": x}, outputs=["y"], weights=weights)


@FAMILY.example
def per_tensor(t, rng):
    """x_scale 0.5, w_scale 0.25, y_scale 0.25: y = acc / 2 + y_zero, ties on every odd acc."""
    return _graph(t, rng, 0.25, 2)


@FAMILY.example
def per_channel(t, rng):
    """Weight scales (0.25, 0.5, 0.125) and zero points (+1, -1, +2 from the middle) along axis 0."""
    return _graph(t, rng, [0.25, 0.5, 0.125], [1, -1, 2], axis=0)


@FAMILY.example
def int32_bias(t, rng):
    """Per tensor, with a bias (3, -5, 6) in int32 at scale 0.125: +1.5, -2.5 and +3 in y's units."""
    return _graph(t, rng, 0.25, -1, bias=[3, -5, 6])
