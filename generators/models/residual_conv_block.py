"""A ResNet basic block: Conv 3x3 + BatchNormalization + Relu, Conv 3x3 + BatchNormalization, the skip
added, Relu; with a strided 1x1 projection on the skip where the shape changes.

What optimizers do to it: fold each BatchNormalization into its Conv (onnxruntime ConvBNFusion, the ONNX
optimizer's fuse_bn_into_conv, OpenVINO), fuse Conv + Relu and Conv + Add + Relu (onnxruntime's
ConvActivationFusion and NCHWc ConvAddFusion, OpenVINO's eltwise fusion into the convolution), and
reorder layouts. `identity_skip` and `batch_of_two` add the block's input back; `projection_skip` has
stride 2 and a 1x1 Conv + BatchNormalization on the skip, so two folded convolutions feed the Add;
`training_mode_off` states training_mode 0 on every BatchNormalization (the inference form, opset 15's
attribute, which a runtime must not read as training); `empty_batch` has no images."""

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily
from onnx_conformance.generators.models._weights import activations, batch_norm, bias, bn_node, dense, node

FAMILY = GraphFamily("ResidualConvBlock", "model", targets=(
    "Conv, BatchNormalization, Relu, Add",
    "onnxruntime: ConvBNFusion, ConvActivationFusion, ConvAddActivationFusion (NCHWc)",
    "ONNX optimizer: fuse_bn_into_conv; OpenVINO: BatchNorm folding and Convolution + eltwise fusion",
), types=FLOATS)

C = 3


def _conv(t, rng, cin, cout, k):
    return dense(t, rng, (cout, cin, k, k), fan_in=cin * k * k)


def _block(t, rng, batch, size=5, projection=False, **bn_attrs):
    cout = C + 1 if projection else C
    stride = [2, 2] if projection else [1, 1]
    weights = {"w1": _conv(t, rng, C, cout, 3), "w2": _conv(t, rng, cout, cout, 3), "b2": bias(t, rng, (cout,)),
               **batch_norm(t, rng, cout, "bn1"), **batch_norm(t, rng, cout, "bn2")}
    nodes = [node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1], strides=stride),
             bn_node("c1", "n1", "bn1", **bn_attrs), node("Relu", ["n1"], ["r1"]),
             node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]), bn_node("c2", "n2", "bn2", **bn_attrs)]
    skip = "x"
    if projection:
        weights.update({"ws": _conv(t, rng, C, cout, 1), **batch_norm(t, rng, cout, "bns")})
        nodes += [node("Conv", ["x", "ws"], ["cs"], strides=stride), bn_node("cs", "skip", "bns", **bn_attrs)]
        skip = "skip"
    nodes += [node("Add", ["n2", skip], ["sum"]), node("Relu", ["sum"], ["y"])]
    return Graph(nodes, inputs={"x": activations(t, rng, (batch, C, size, size))}, outputs=["y"], weights=weights)


@FAMILY.example
def identity_skip(t, rng):
    """x (1, 3, 5, 5): two 3x3 convolutions, padding 1, the input added back."""
    return _block(t, rng, 1)


@FAMILY.example
def batch_of_two(t, rng):
    return _block(t, rng, 2, size=4)


@FAMILY.example
def projection_skip(t, rng):
    """x (1, 3, 5, 5) -> (1, 4, 3, 3): stride 2, the skip a 1x1 stride-2 Conv + BatchNormalization."""
    return _block(t, rng, 1, projection=True)


@FAMILY.example
def training_mode_off(t, rng):
    """training_mode = 0 stated on each BatchNormalization: the same inference block."""
    return _block(t, rng, 1, training_mode=0)


@FAMILY.example
def empty_batch(t, rng):
    """x (0, 3, 5, 5): no images, y (0, 3, 5, 5)."""
    return _block(t, rng, 0)
