"""A one-level U-Net: an encoder Conv + Relu, MaxPool down, a bottleneck Conv + Relu, Resize up by 2, the
skip concatenated along channels, a decoder Conv and Sigmoid.

What optimizers do to it: fuse Conv + Relu, fold the constant Resize scales, turn nearest Resize by 2
into an upsampling kernel, and place Concat's inputs directly in its output buffer (onnxruntime's
memory planning, OpenVINO's in-place Concat), which goes wrong when a Concat input is also read
elsewhere, as the skip is here (it is a graph output too in `skip_shared`). `nearest_upsample` is
the classic U-Net; `linear_upsample` resizes with linear interpolation and half_pixel coordinates;
`sizes_upsample` gives Resize the output sizes instead of scales, with asymmetric coordinates;
`batch_of_two` has two images."""

import numpy as np

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily
from onnx_conformance.generators.models._weights import activations, bias, dense, ints, node

FAMILY = GraphFamily("UNet", "model", targets=(
    "Conv, Relu, MaxPool, Resize, Concat, Sigmoid",
    "onnxruntime: ConvActivationFusion, Resize upsampling kernels, Concat in place",
    "OpenVINO: Interpolate, in-place Concat; TVM: FuseOps around concatenate",
), types=FLOATS)


def _unet(t, rng, batch=1, size=4, outputs=("y",), sizes=False, **resize):
    w = {"we": dense(t, rng, (3, 2, 3, 3), fan_in=18), "be": bias(t, rng, (3,)),
         "wb": dense(t, rng, (4, 3, 3, 3), fan_in=27), "bb": bias(t, rng, (4,)),
         "wd": dense(t, rng, (2, 7, 3, 3), fan_in=63), "bd": bias(t, rng, (2,))}
    if sizes:
        w["sizes"] = ints([batch, 4, size, size])
        up = node("Resize", ["b", "", "", "sizes"], ["u"], **resize)
    else:
        w["scales"] = np.array([1, 1, 2, 2], dtype=np.float32)
        up = node("Resize", ["b", "", "scales"], ["u"], **resize)
    nodes = [node("Conv", ["x", "we", "be"], ["e"], pads=[1, 1, 1, 1]), node("Relu", ["e"], ["skip"]),
             node("MaxPool", ["skip"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             node("Conv", ["p", "wb", "bb"], ["c"], pads=[1, 1, 1, 1]), node("Relu", ["c"], ["b"]), up,
             node("Concat", ["u", "skip"], ["cat"], axis=1),
             node("Conv", ["cat", "wd", "bd"], ["d"], pads=[1, 1, 1, 1]), node("Sigmoid", ["d"], ["y"])]
    return Graph(nodes, inputs={"x": activations(t, rng, (batch, 2, size, size))}, outputs=list(outputs), weights=w)


@FAMILY.example
def nearest_upsample(t, rng):
    """x (1, 2, 4, 4): skip (1, 3, 4, 4), bottleneck (1, 4, 2, 2) resized by nearest to 4x4, y (1, 2, 4, 4)."""
    return _unet(t, rng, mode="nearest")


@FAMILY.example
def linear_upsample(t, rng):
    return _unet(t, rng, mode="linear", coordinate_transformation_mode="half_pixel")


@FAMILY.example
def sizes_upsample(t, rng):
    """Resize by sizes (1, 4, 4, 4), linear, asymmetric coordinates."""
    return _unet(t, rng, sizes=True, mode="linear", coordinate_transformation_mode="asymmetric")


@FAMILY.example
def skip_shared(t, rng):
    """The skip (Concat's second input) is a graph output as well as concatenated."""
    return _unet(t, rng, outputs=("y", "skip"), mode="nearest")


@FAMILY.example
def batch_of_two(t, rng):
    return _unet(t, rng, batch=2, mode="nearest")
