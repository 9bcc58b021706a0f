"""Conv followed by Add of a constant, folded into the convolution's bias by onnxruntime's
ConvAddFusion, the ONNX optimizer's fuse_add_bias_into_conv and OpenVINO's ConvolutionAddFusion;
only right when the addend is one value per output channel, broadcast over the batch and every
spatial position.

What each example catches: `channel_bias` (addend (1, C, 1, 1) after a strided Conv without bias)
is the fold as intended; `bias_onto_bias` adds a (C, 1, 1) addend to a Conv that has its own bias (a
fold that replaces the bias instead of adding to it is off); `width_bias` adds (1, 1, 1, W) with
W = C, the same element count as a channel bias, broadcast along the width instead (a fold that
checks only the count puts the values on the wrong axis); `per_sample_bias` adds (N, C, 1, 1),
different per batch item (no single bias can hold it); `empty_batch` has N = 0, which every
operator here allows: the output is (0, C, H', W')."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._fusion_data import quarters

FAMILY = GraphFamily("Conv+Add", "pattern", targets=(
    "onnxruntime: ConvAddFusion",
    "ONNX optimizer: fuse_add_bias_into_conv",
    "OpenVINO: ConvolutionAddFusion",
    "TVM: FoldConstant of bias_add into conv2d (FuseOps)",
))


def _graph(t, rng, x_shape, w_shape, addend_shape, with_bias=False, **conv_attrs):
    conv_in = ["x", "w", "b"] if with_bias else ["x", "w"]
    weights = {"w": quarters(t, rng, w_shape, -1, 1), "addend": quarters(t, rng, addend_shape)}
    if with_bias:
        weights["b"] = quarters(t, rng, (w_shape[0],))
    return Graph([helper.make_node("Conv", conv_in, ["c"], **conv_attrs),
                  helper.make_node("Add", ["c", "addend"], ["y"])],
                 inputs={"x": quarters(t, rng, x_shape, -2, 2)}, outputs=["y"], weights=weights)


@FAMILY.example
def channel_bias(t, rng):
    """Conv (strides 2, pads 1) then + addend (1, 3, 1, 1): a bias in all but name."""
    return _graph(t, rng, (2, 2, 5, 5), (3, 2, 3, 3), (1, 3, 1, 1), strides=[2, 2], pads=[1, 1, 1, 1])


@FAMILY.example
def bias_onto_bias(t, rng):
    """Conv with bias B, then + addend (3, 1, 1): the fused bias is B + addend."""
    return _graph(t, rng, (1, 2, 4, 4), (3, 2, 2, 2), (3, 1, 1), with_bias=True)


@FAMILY.example
def width_bias(t, rng):
    """+ addend (1, 1, 1, 3) on an output (1, 3, 3, 3): three values, as many as channels, along the width."""
    return _graph(t, rng, (1, 2, 5, 5), (3, 2, 3, 3), (1, 1, 1, 3))


@FAMILY.example
def per_sample_bias(t, rng):
    """+ addend (2, 3, 1, 1): a different bias for each of the two batch items."""
    return _graph(t, rng, (2, 2, 4, 4), (3, 2, 3, 3), (2, 3, 1, 1), with_bias=True)


@FAMILY.example
def empty_batch(t, rng):
    """N = 0: x (0, 2, 4, 4) gives y (0, 3, 2, 2)."""
    return _graph(t, rng, (0, 2, 4, 4), (3, 2, 3, 3), (1, 3, 1, 1))
