"""A quantized (QDQ) network as quantization tools export it: QuantizeLinear / DequantizeLinear pairs
around a Conv with per-channel int8 weights and an int32 bias, Relu, MaxPool, Flatten and a MatMul with
int8 weights, each result quantized again.

What runtimes do with it: onnxruntime's QDQ selectors turn DQ -> Conv -> Q into QLinearConv, DQ ->
MatMul -> Q into QLinearMatMul, and drop the Q/DQ pair around MaxPool and Flatten (QDQPropagation,
QDQFinalCleanup); OpenVINO's LPT (low precision transformations) runs the Conv and MatMul in integers
with the scales folded. The scales are powers of two, so every dequantized product and sum is exact in
float and a fused integer kernel has the node-by-node value to reproduce. `uint8_activations`: uint8
activations with zero point 128, int8 weights per output channel (the u8s8 kernels); `int8_activations`:
int8 activations with zero point 3 throughout (s8s8); `uint8_per_tensor`: uint8 weights with one scale
and zero point 128 (u8u8), as older tools export. The Relu's result is quantized with a scale that
saturates its largest values, as calibrated models do. In float the quantized result itself (yq) is an
output too, compared exactly."""

import numpy as np

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.models._weights import activations, node

FAMILY = GraphFamily("QDQConvNet", "model", targets=(
    "QuantizeLinear, DequantizeLinear, Conv, Relu, MaxPool, Flatten, MatMul",
    "onnxruntime: QDQ selector/action transformers (QLinearConv, QLinearMatMul), QDQPropagation, QDQFinalCleanup",
    "OpenVINO: low precision transformations (LPT)",
), types=FLOATS)

CIN, COUT, SIZE, OUT = 2, 3, 5, 4


def _int(dtype, value):
    return np.asarray(value).astype(dtype)


def _net(t, rng, act, act_zero, per_channel=True, weight=np.int8):
    """x (1, 2, 5, 5) -> Q/DQ -> Conv 3x3 pads 1 (DQ weights, DQ int32 bias) -> Relu -> Q/DQ -> MaxPool 2x2
    -> Q/DQ -> Flatten -> MatMul (DQ weights) -> Q/DQ -> y (1, 4)."""
    info = np.iinfo(weight)
    w_zero = 0 if weight == np.int8 else 128
    sx = 2.0 ** -5
    sw = np.array([2.0 ** -7, 2.0 ** -6, 2.0 ** -7]) if per_channel else np.array(2.0 ** -7)
    wq = rng.integers(max(info.min, w_zero - 100), min(info.max, w_zero + 100) + 1, size=(COUT, CIN, 3, 3))
    bq = rng.integers(-512, 513, size=COUT)
    w = {"sx": cast_to(sx, t), "zx": _int(act, act_zero),
         "wq": _int(weight, wq), "sw": cast_to(sw, t), "zw": _int(weight, np.full(sw.shape, w_zero)),
         "bq": _int(np.int32, bq), "sb": cast_to(sx * sw, t), "zb": _int(np.int32, np.zeros(sw.shape)),
         "s1": cast_to(2.0 ** -4, t), "z1": _int(act, act_zero),
         "w2q": _int(weight, rng.integers(max(info.min, w_zero - 100), min(info.max, w_zero + 100) + 1,
                                         size=(COUT * 4, OUT))),
         "s2w": cast_to(2.0 ** -7, t), "z2w": _int(weight, w_zero), "s2": cast_to(2.0 ** -3, t),
         "z2": _int(act, act_zero)}
    axis = {"axis": 0} if per_channel else {}
    nodes = [node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]), node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
             node("DequantizeLinear", ["wq", "sw", "zw"], ["wd"], **axis),
             node("DequantizeLinear", ["bq", "sb", "zb"], ["bd"], **axis),
             node("Conv", ["xd", "wd", "bd"], ["c"], pads=[1, 1, 1, 1]), node("Relu", ["c"], ["r"]),
             node("QuantizeLinear", ["r", "s1", "z1"], ["rq"]), node("DequantizeLinear", ["rq", "s1", "z1"], ["rd"]),
             node("MaxPool", ["rd"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             node("QuantizeLinear", ["p", "s1", "z1"], ["pq"]), node("DequantizeLinear", ["pq", "s1", "z1"], ["pd"]),
             node("Flatten", ["pd"], ["f"]),
             node("DequantizeLinear", ["w2q", "s2w", "z2w"], ["w2d"]), node("MatMul", ["f", "w2d"], ["m"]),
             node("QuantizeLinear", ["m", "s2", "z2"], ["yq"]), node("DequantizeLinear", ["yq", "s2", "z2"], ["y"])]
    # yq, the quantized result, only in float: there every reading is exact; in float16 the MatMul's result
    # is rounded before QuantizeLinear, and a kernel fusing the two may land one step away (y's tolerance says how far)
    outputs = ["y", "yq"] if t == "float" else ["y"]
    return Graph(nodes, inputs={"x": activations(t, rng, (1, CIN, SIZE, SIZE))}, outputs=outputs, weights=w)


@FAMILY.example
def uint8_activations(t, rng):
    return _net(t, rng, np.uint8, 128)


@FAMILY.example
def int8_activations(t, rng):
    return _net(t, rng, np.int8, 3)


@FAMILY.example
def uint8_per_tensor(t, rng):
    return _net(t, rng, np.uint8, 128, per_channel=False, weight=np.uint8)
