"""DequantizeLinear -> MatMul (-> QuantizeLinear), the QDQ form of a quantized matrix product,
which runtimes turn into integer kernels (onnxruntime's QDQ selector/action transformers: DQ ->
MatMul -> Q to QLinearMatMul, DQ -> MatMul to MatMulIntegerToFloat, blockwise DQ -> MatMul to
MatMulNBits; OpenVINO's ConvertQuantizeDequantize and low-precision MatMul; TensorRT's explicit
quantization).

As for DQ+Conv+Q: power-of-two scales and small values keep every product exact in float, so
QuantizeLinear's rounding (half to even) and saturation are what the integer kernel must match;
x_scale * w_scale / y_scale = 1/2 puts half the results on a .5 tie, a row of the largest x under an
all-positive and an all-negative weight column saturates y at both ends, and zero points are not
zero. `per_tensor` has one scale each; `per_column` a weight scale and zero point per column
(axis 1), ratios 1/2, 1, 1/4, 1/2, 1; `float_output` has no QuantizeLinear, the float product is
the output; `blockwise` dequantizes the weight in blocks of 4 rows (block_size, opset 21), each block
of each column with its own scale and zero point: a kernel reading the scales per column only, or
per block along the wrong axis, is off."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._layout_data import QUANTIZED, qbits, quantized, zero_point

FAMILY = GraphFamily("DQ+MatMul+Q", "pattern", targets=(
    "onnxruntime: QDQ selector/action transformers (DQ -> MatMul -> Q to QLinearMatMul, "
    "DQ -> MatMul to MatMulIntegerToFloat, blockwise DQ -> MatMul to MatMulNBits)",
    "OpenVINO: ConvertQuantizeDequantize, low-precision transformations (quantized MatMul)",
    "TensorRT: explicit quantization (Q/DQ around MatMul)",
), types=QUANTIZED)

K, N = 8, 5


def _graph(t, rng, w_scale, w_zero, dq_w=None, quantize=True):
    """x (4, 8) fed, w (8, 5) a weight; w_zero: offsets from the middle of t's range, broadcast
    against w (a block's offset covers its 4 rows)."""
    s = {4: 2, 8: 7, 16: 92}[qbits(t)]  # a row of extremes saturates; the rest mostly does not
    zx, zy = zero_point(t, 1), zero_point(t, -1)
    w_zero = zero_point(t, 0) + np.asarray(w_zero)
    full = np.repeat(w_zero, K // w_zero.shape[0], axis=0) if w_zero.ndim == 2 else np.broadcast_to(w_zero, (K, N))
    x = quantized(t, rng, (4, K), zx, s)
    x[0] = zx + s
    w = full + rng.integers(-(s - 1), s, size=(K, N))
    w[:, 0], w[:, 1] = full[:, 0] + s - 1, full[:, 1] - (s - 1)
    nodes = [helper.make_node("DequantizeLinear", ["x", "x_scale", "x_zero"], ["xf"]),
             helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero"], ["wf"], **(dq_w or {})),
             helper.make_node("MatMul", ["xf", "wf"], ["yf" if quantize else "y"])]
    weights = {"x_scale": np.float32(0.5), "x_zero": cast_to(zx, t), "w": cast_to(w, t),
               "w_scale": np.asarray(w_scale, np.float32), "w_zero": cast_to(w_zero, t)}
    if quantize:
        nodes.append(helper.make_node("QuantizeLinear", ["yf", "y_scale", "y_zero"], ["y"]))
        weights |= {"y_scale": np.float32(0.25), "y_zero": cast_to(zy, t)}
    return Graph(nodes, inputs={"x": x}, outputs=["y"], weights=weights)


@FAMILY.example
def per_tensor(t, rng):
    """x_scale 0.5, w_scale 0.25, y_scale 0.25: y = acc / 2 + y_zero."""
    return _graph(t, rng, 0.25, 2)


@FAMILY.example
def per_column(t, rng):
    """Weight scales (0.25, 0.5, 0.125, 0.25, 0.5) and zero points per column (axis 1)."""
    return _graph(t, rng, [0.25, 0.5, 0.125, 0.25, 0.5], [1, -1, 2, 0, -2], dq_w={"axis": 1})


@FAMILY.example
def float_output(t, rng):
    """No QuantizeLinear: the float product of the dequantized x and w (exact in float)."""
    return _graph(t, rng, 0.25, -1, quantize=False)


@FAMILY.example
def blockwise(t, rng):
    """w's scales and zero points per block of 4 rows and per column: (2, 5) of each."""
    scales = [[0.25, 0.5, 0.125, 0.25, 0.5], [0.5, 0.125, 0.25, 0.25, 0.125]]
    return _graph(t, rng, scales, [[1, -1, 2, 0, -2], [0, 2, -1, 1, 1]], dq_w={"axis": 0, "block_size": 4})
