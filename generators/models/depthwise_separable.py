"""A MobileNetV2 inverted residual: pointwise expansion Conv 1x1 + BatchNormalization + Clip(0, 6) (ReLU6),
depthwise Conv 3x3 with group = channels + BatchNormalization + ReLU6, pointwise projection Conv 1x1 +
BatchNormalization (linear), and the skip where the shape allows.

What optimizers do to it: fold BatchNormalization into each Conv, fuse Clip into the convolution
(onnxruntime's ConvActivationFusion takes Clip only with constant bounds, and its NCHWc transformer
picks a depthwise kernel for group = channels), OpenVINO's GroupConvolution with a fused Clamp. The
inputs are scaled so ReLU6's upper bound bites. `stride_one` keeps the shape and adds the skip;
`stride_two` has stride 2, asymmetric padding (0, 0, 1, 1) and no skip; `batch_of_two` has two images;
`bounds_as_inputs` gives Clip its bounds 0 and 6 as a graph input instead of constants, in both forms."""

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.models._weights import activations, batch_norm, bn_node, dense, node

FAMILY = GraphFamily("DepthwiseSeparableBlock", "model", targets=(
    "Conv (group = channels), Conv 1x1, BatchNormalization, Clip as ReLU6, Add",
    "onnxruntime: ConvBNFusion, ConvActivationFusion (Clip), NCHWc depthwise convolution",
    "OpenVINO: GroupConvolution + BatchNorm folding + Clamp fusion",
), types=FLOATS)

C, EXPANDED = 3, 6


def _block(t, rng, batch=1, size=5, stride=1, skip=True, fed_bounds=False):
    w = {"we": dense(t, rng, (EXPANDED, C, 1, 1), fan_in=C) * cast_to(2.0, t), **batch_norm(t, rng, EXPANDED, "bne"),
         "wd": dense(t, rng, (EXPANDED, 1, 3, 3), fan_in=9), **batch_norm(t, rng, EXPANDED, "bnd"),
         "wp": dense(t, rng, (C, EXPANDED, 1, 1), fan_in=EXPANDED), **batch_norm(t, rng, C, "bnp")}
    bounds = {"low": cast_to(0.0, t), "high": cast_to(6.0, t)}
    pads = [1, 1, 1, 1] if stride == 1 else [0, 0, 1, 1]
    nodes = [node("Conv", ["x", "we"], ["e"]), bn_node("e", "en", "bne"), node("Clip", ["en", "low", "high"], ["ea"]),
             node("Conv", ["ea", "wd"], ["d"], group=EXPANDED, pads=pads, strides=[stride, stride]),
             bn_node("d", "dn", "bnd"), node("Clip", ["dn", "low", "high"], ["da"]),
             node("Conv", ["da", "wp"], ["p"]), bn_node("p", "y" if not skip else "pn", "bnp")]
    if skip:
        nodes.append(node("Add", ["pn", "x"], ["y"]))
    inputs = {"x": activations(t, rng, (batch, C, size, size), scale=2.0)}
    if fed_bounds:
        inputs.update(bounds)
    else:
        w.update(bounds)
    return Graph(nodes, inputs=inputs, outputs=["y"], weights=w)


@FAMILY.example
def stride_one(t, rng):
    """x (1, 3, 5, 5): expansion to 6 channels, depthwise 3x3 padding 1, projection to 3, skip added."""
    return _block(t, rng)


@FAMILY.example
def stride_two(t, rng):
    """x (1, 3, 6, 6) -> (1, 3, 3, 3): depthwise stride 2, pads (0, 0, 1, 1), no skip."""
    return _block(t, rng, size=6, stride=2, skip=False)


@FAMILY.example
def batch_of_two(t, rng):
    return _block(t, rng, batch=2, size=4)


@FAMILY.example
def bounds_as_inputs(t, rng):
    """Clip's bounds 0 and 6 are graph inputs, never constants: a fusion needing constant bounds stays off."""
    return _block(t, rng, fed_bounds=True)
