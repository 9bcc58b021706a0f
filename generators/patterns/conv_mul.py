"""Conv followed (or preceded) by Mul of a constant, folded into the weights by onnxruntime's
ConvMulFusion, OpenVINO's ConvolutionMultiplyFusion and TVM's FoldScaleAxis (backward: a per output
channel scale after the Conv; forward: a per input channel scale before it). Only right when the
constant is one value per channel of the right side, and the bias must be scaled with the weights.

What each example catches: `channel_scale_grouped` (group 2, a Conv bias, scales with a negative and
a zero) is the fold as intended, and a fold that leaves the bias unscaled or scales per group is off;
`height_scale` multiplies by (1, H, 1) with H = C, the element count of a channel scale, along the
height (a fold that checks only the count is off); `scale_before_conv` multiplies the input by
(C_in, 1, 1) before a padded Conv: the forward fold scales W along its input channels, not its
output channels; `depthwise_scalar` multiplies a depthwise Conv (group = C, strides 2) by a scalar 0.75, which
every output channel takes."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import quarters

FAMILY = GraphFamily("Conv+Mul", "pattern", targets=(
    "onnxruntime: ConvMulFusion",
    "OpenVINO: ConvolutionMultiplyFusion",
    "TVM: FoldScaleAxis (backward and forward)",
))


def _after(conv_in, **conv_attrs):
    return [helper.make_node("Conv", conv_in, ["c"], **conv_attrs), helper.make_node("Mul", ["c", "s"], ["y"])]


@FAMILY.example
def channel_scale_grouped(t, rng):
    """Conv (group 2, bias) of x (1, 4, 4, 4) then * s (4, 1, 1) = (-1.5, 0, 0.5, 2)."""
    return Graph(_after(["x", "w", "b"], group=2, pads=[0, 1, 1, 0]),
                 inputs={"x": quarters(t, rng, (1, 4, 4, 4), -2, 2)}, outputs=["y"],
                 weights={"w": quarters(t, rng, (4, 2, 2, 2), -1, 1), "b": quarters(t, rng, (4,)),
                          "s": cast_to([[[-1.5]], [[0.0]], [[0.5]], [[2.0]]], t)})


@FAMILY.example
def height_scale(t, rng):
    """Conv output (1, 3, 3, 4) * s (1, 3, 1): three values, as many as channels, along the height."""
    return Graph(_after(["x", "w", "b"]), inputs={"x": quarters(t, rng, (1, 2, 5, 6), -2, 2)}, outputs=["y"],
                 weights={"w": quarters(t, rng, (3, 2, 3, 3), -1, 1), "b": quarters(t, rng, (3,)),
                          "s": cast_to([[[-1.0]], [[0.25]], [[3.0]]], t)})


@FAMILY.example
def scale_before_conv(t, rng):
    """x (1, 3, 4, 4) * s (3, 1, 1) then Conv (pads 1, bias): a scale of the input channels."""
    return Graph([helper.make_node("Mul", ["x", "s"], ["xs"]),
                  helper.make_node("Conv", ["xs", "w", "b"], ["y"], pads=[1, 1, 1, 1])],
                 inputs={"x": quarters(t, rng, (1, 3, 4, 4), -2, 2)}, outputs=["y"],
                 weights={"w": quarters(t, rng, (2, 3, 3, 3), -1, 1), "b": quarters(t, rng, (2,)),
                          "s": cast_to([[[2.0]], [[-0.5]], [[0.0]]], t)})


@FAMILY.example
def depthwise_scalar(t, rng):
    """Depthwise Conv (group 3, strides 2) then * 0.75, a scalar."""
    return Graph(_after(["x", "w"], group=3, strides=[2, 2]), inputs={"x": quarters(t, rng, (2, 3, 5, 5), -2, 2)},
                 outputs=["y"], weights={"w": quarters(t, rng, (3, 1, 3, 3), -1, 1), "s": cast_to(0.75, t)})
