"""Conv followed by BatchNormalization (inference), folded into the convolution's weights and bias by
onnxruntime's ConvBNFusion, the ONNX optimizer's fuse_bn_into_conv, OpenVINO's BatchNorm decomposition
plus ConvolutionMultiplyFusion/ConvolutionAddFusion, TVM's SimplifyInference + FoldScaleAxis and
TensorRT's Conv+BN folding: W' = W * scale / sqrt(var + eps) per output channel, B' = (B - mean) *
scale / sqrt(var + eps) + bias.

What each example catches: `grouped_strided` has group 2, strides (2, 1), asymmetric pads and a
Conv bias, so a fold that scales the weights along the wrong axis (input channels, or per group), or
forgets the existing bias, is off; `large_epsilon` has epsilon 0.5 next to variances of 0.25 to 1
and no Conv bias (the fold must create one): a fold using the default 1e-5 or dropping epsilon is off
by 20% or more; `dilated_1d` is a 1-D convolution with dilation 2 and one channel of zero variance
(only epsilon keeps it finite) and a negative scale: a fold written for 4-D weights or that takes
|scale| is off; `conv_output_shared` also returns the Conv's own output, so a fold that rewrites
the Conv in place changes that output (a fusion must leave a Conv with two consumers alone)."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import quarters

FAMILY = GraphFamily("Conv+BatchNormalization", "pattern", targets=(
    "onnxruntime: ConvBNFusion",
    "ONNX optimizer: fuse_bn_into_conv",
    "OpenVINO: BatchNormDecomposition + ConvolutionMultiplyFusion/ConvolutionAddFusion",
    "TVM: SimplifyInference + FoldScaleAxis; TensorRT: Conv+BN folding",
))


def _bn_weights(t, rng, channels, variance=None):
    return {"scale": quarters(t, rng, (channels,), -2, 2), "shift": quarters(t, rng, (channels,)),
            "mean": quarters(t, rng, (channels,), -2, 2),
            "var": cast_to(variance if variance is not None else rng.integers(1, 9, size=channels) / 4, t)}


def _nodes(conv_inputs, epsilon=1e-5, **conv_attrs):
    return [helper.make_node("Conv", conv_inputs, ["c"], **conv_attrs),
            helper.make_node("BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["y"], epsilon=epsilon)]


@FAMILY.example
def grouped_strided(t, rng):
    """x (1, 4, 5, 5), W (4, 2, 3, 3), group 2, strides (2, 1), pads (1, 0, 0, 2), with a Conv bias."""
    return Graph(_nodes(["x", "w", "b"], group=2, strides=[2, 1], pads=[1, 0, 0, 2]),
                 inputs={"x": quarters(t, rng, (1, 4, 5, 5), -2, 2)}, outputs=["y"],
                 weights={"w": quarters(t, rng, (4, 2, 3, 3), -1, 1), "b": quarters(t, rng, (4,)),
                          **_bn_weights(t, rng, 4)})


@FAMILY.example
def large_epsilon(t, rng):
    """Epsilon 0.5, variances 0.25 to 1, no Conv bias: x (2, 3, 4, 4), W (2, 3, 2, 2)."""
    return Graph(_nodes(["x", "w"], epsilon=0.5), inputs={"x": quarters(t, rng, (2, 3, 4, 4), -2, 2)},
                 outputs=["y"], weights={"w": quarters(t, rng, (2, 3, 2, 2), -1, 1),
                                         **_bn_weights(t, rng, 2, variance=[0.25, 1.0])})


@FAMILY.example
def dilated_1d(t, rng):
    """1-D: x (2, 2, 9), W (3, 2, 3), dilation 2, pads (2, 1); channel 0 has variance 0 (epsilon 1e-2
    alone keeps it finite) and a negative scale."""
    weights = _bn_weights(t, rng, 3, variance=[0.0, 0.5, 2.0])
    weights["scale"] = cast_to([-1.5, 0.75, 2.0], t)
    return Graph(_nodes(["x", "w", "b"], epsilon=1e-2, dilations=[2], pads=[2, 1]),
                 inputs={"x": quarters(t, rng, (2, 2, 9), -2, 2)}, outputs=["y"],
                 weights={"w": quarters(t, rng, (3, 2, 3), -1, 1), "b": quarters(t, rng, (3,)), **weights})


@FAMILY.example
def conv_output_shared(t, rng):
    """The Conv's output is a graph output too: folding BatchNormalization into it would change it."""
    return Graph(_nodes(["x", "w", "b"], pads=[1, 1, 1, 1]), inputs={"x": quarters(t, rng, (1, 2, 3, 4), -2, 2)},
                 outputs=["c", "y"], weights={"w": quarters(t, rng, (3, 2, 3, 3), -1, 1),
                                              "b": quarters(t, rng, (3,)), **_bn_weights(t, rng, 3)})
