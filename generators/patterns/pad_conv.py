"""Pad before Conv, which optimizers fold into Conv's own pads (onnxruntime's PadFusion, the ONNX
optimizer's fuse_pad_into_conv, OpenVINO's PadFusionConvolution and EliminatePad).

Conv pads with zeros, so only a constant Pad of zeros on the spatial axes may be folded, by adding
its begin and end amounts to Conv's. `asymmetric` pads (top 1, left 0, bottom 2, right 3) into a
Conv that has its own asymmetric pads and strides 2: a fold that swaps begin and end, or drops
Conv's pads, shifts the windows. `nonzero_value` pads with 1.5, `reflect` and `edge` with copies of
x: none of them is Conv's zero padding, so folding any is off along the border."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._layout_data import ints, small

FAMILY = GraphFamily("Pad+Conv", "pattern", targets=(
    "onnxruntime: PadFusion (Pad -> Conv)",
    "ONNX optimizer: fuse_pad_into_conv",
    "OpenVINO: PadFusionConvolution, EliminatePad",
))


def _graph(t, rng, pads, mode="constant", value=None, conv=None):
    """x (1, 2, 5, 6) -> Pad(pads, mode, value) -> Conv with a (3, 2, 3, 3) kernel and a bias."""
    pad_inputs = ["x", "pads"] + (["value"] if value is not None else [])
    weights = {"pads": ints(pads), "w": small(t, rng, (3, 2, 3, 3), -2, 2), "b": small(t, rng, (3,))}
    if value is not None:
        weights["value"] = cast_to(value, t)
    return Graph([helper.make_node("Pad", pad_inputs, ["p"], mode=mode),
                  helper.make_node("Conv", ["p", "w", "b"], ["y"], **(conv or {}))],
                 inputs={"x": small(t, rng, (1, 2, 5, 6), 1, 4)}, outputs=["y"], weights=weights)


@FAMILY.example
def asymmetric(t, rng):
    """Zeros: top 1, left 0, bottom 2, right 3, into Conv pads (0, 1, 1, 0), strides 2."""
    return _graph(t, rng, [0, 0, 1, 0, 0, 0, 2, 3], value=0.0,
                  conv={"pads": [0, 1, 1, 0], "strides": [2, 2], "kernel_shape": [3, 3]})


@FAMILY.example
def nonzero_value(t, rng):
    """A constant pad of 1.5, one on every side: not Conv's zeros."""
    return _graph(t, rng, [0, 0, 1, 1, 0, 0, 1, 1], value=1.5)


@FAMILY.example
def reflect(t, rng):
    """Reflect two rows on top and one column on the right: x's values, not zeros."""
    return _graph(t, rng, [0, 0, 2, 0, 0, 0, 0, 1], mode="reflect")


@FAMILY.example
def edge(t, rng):
    """Edge, one on the left and two on the bottom (x is positive, so an edge is never a zero)."""
    return _graph(t, rng, [0, 0, 0, 1, 0, 0, 2, 0], mode="edge")


