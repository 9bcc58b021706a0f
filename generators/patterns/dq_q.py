"""DequantizeLinear followed by QuantizeLinear (requantization), and a Q -> DQ pair followed by
another, which optimizers remove (onnxruntime's DoubleQDQPairsRemover and QDQFinalCleanupTransformer,
OpenVINO's ConvertQuantizeDequantize and FakeQuantize fusions, TensorRT's Q/DQ pair elimination).

Only a pair with the same scale and zero point is an identity. `same_params` is that pair: removable.
`requantize` goes from scale 0.5 to scale 1 with another zero point: every odd step lands on a .5
tie, which QuantizeLinear rounds to even; removing the pair, or rounding ties away from zero, is off.
`saturation` goes from scale 1 to 0.5: x's extremes (the type's smallest and largest values are in
x) double past the range and saturate. `double_pairs` is Q -> DQ -> Q -> DQ from float with scales
0.5 then 0.25: the result is the first pair's grid, clipped to the second's range; replacing the
four nodes by one pair at a merged scale moves the values off that grid."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._layout_data import QUANTIZED, qrange, quantized, zero_point

FAMILY = GraphFamily("DQ+Q", "pattern", targets=(
    "onnxruntime: DoubleQDQPairsRemover, QDQFinalCleanupTransformer (DQ -> Q removal)",
    "OpenVINO: ConvertQuantizeDequantize, FakeQuantize fusions",
    "TensorRT: Q/DQ pair elimination",
), types=QUANTIZED)


def _requantize(t, rng, scales, zeros):
    lo, hi = qrange(t)
    z1, z2 = zero_point(t, zeros[0]), zero_point(t, zeros[1])
    x = quantized(t, rng, (3, 6), z1, min(z1 - lo, hi - z1, 20))
    x[0, :2] = cast_to([lo, hi], t)  # both ends of the range
    return Graph([helper.make_node("DequantizeLinear", ["x", "s1", "z1"], ["f"]),
                  helper.make_node("QuantizeLinear", ["f", "s2", "z2"], ["y"])],
                 inputs={"x": x}, outputs=["y"],
                 weights={"s1": np.float32(scales[0]), "z1": cast_to(z1, t),
                          "s2": np.float32(scales[1]), "z2": cast_to(z2, t)})


@FAMILY.example
def same_params(t, rng):
    """Scale 0.5 and the same zero point both ways: the identity."""
    return _requantize(t, rng, (0.5, 0.5), (1, 1))


@FAMILY.example
def requantize(t, rng):
    """Scale 0.5 to 1, zero point +1 to -1: (x - z1) / 2 + z2, a tie at every odd x - z1."""
    return _requantize(t, rng, (0.5, 1.0), (1, -1))


@FAMILY.example
def saturation(t, rng):
    """Scale 1 to 0.5, zero point 0 to +2: 2 (x - z1) + z2, past both ends for x's extremes."""
    return _requantize(t, rng, (1.0, 0.5), (0, 2))


@FAMILY.example
def double_pairs(t, rng):
    """Float x -> Q(0.5, +1) -> DQ -> Q(0.25, -1) -> DQ: multiples of 0.125, ties, and values past
    both ranges."""
    lo, hi = qrange(t)
    z1, z2 = zero_point(t, 1), zero_point(t, -1)
    reach = (hi - lo) * 0.3  # past the narrower second range at both ends
    x = np.concatenate([rng.integers(-24, 25, size=14) / 8, [-reach, reach, 0.25, -0.75]]).reshape(3, 6)
    return Graph([helper.make_node("QuantizeLinear", ["x", "s1", "z1"], ["q1"]),
                  helper.make_node("DequantizeLinear", ["q1", "s1", "z1"], ["f1"]),
                  helper.make_node("QuantizeLinear", ["f1", "s2", "z2"], ["q2"]),
                  helper.make_node("DequantizeLinear", ["q2", "s2", "z2"], ["y"])],
                 inputs={"x": x.astype(np.float32)}, outputs=["y"],
                 weights={"s1": np.float32(0.5), "z1": cast_to(z1, t), "s2": np.float32(0.25), "z2": cast_to(z2, t)})
