"""LayerNormalization written out as the exporters emit it (ReduceMean, Sub, Pow, ReduceMean, Add
epsilon, Sqrt, Div, Mul scale, Add bias), the chain onnxruntime's LayerNormFusion and SimplifiedLayerNormFusion,
OpenVINO's MVN fusion and TensorRT's layer-norm fusion turn into one kernel.

The rewrite goes wrong where the chain is not LayerNormalization's: epsilon is large next to the
variance here (`large_epsilon`: a fusion dropping it, or taking onnx's default 1e-5, is visibly off),
and `middle_axis` normalises over an axis that is not the last (a fusion assuming the last axis
normalises the wrong numbers)."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to

FAMILY = GraphFamily("LayerNormalization(decomposed)", "pattern", targets=(
    "onnxruntime: LayerNormFusion",
    "OpenVINO: MVNFusion",
    "TensorRT: LayerNorm fusion of the exported pattern",
), types=FLOATS)


def _chain(axes: list[int], opset_axes_input: bool = True) -> list:
    """x -> (x - mean) / sqrt(mean((x - mean)^2) + eps) * scale + bias, axes as an input (opset 18+)."""
    return [
        helper.make_node("ReduceMean", ["x", "axes"], ["mean"], keepdims=1),
        helper.make_node("Sub", ["x", "mean"], ["centred"]),
        helper.make_node("Pow", ["centred", "two"], ["squared"]),
        helper.make_node("ReduceMean", ["squared", "axes"], ["variance"], keepdims=1),
        helper.make_node("Add", ["variance", "epsilon"], ["shifted"]),
        helper.make_node("Sqrt", ["shifted"], ["deviation"]),
        helper.make_node("Div", ["centred", "deviation"], ["normal"]),
        helper.make_node("Mul", ["normal", "scale"], ["scaled"]),
        helper.make_node("Add", ["scaled", "bias"], ["y"]),
    ]


def _graph(t, rng, shape, axis, epsilon):
    width = shape[axis]
    keep = [1] * len(shape)
    keep[axis] = width
    return Graph(_chain([axis]), inputs={"x": cast_to(rng.normal(0.0, 1.0, size=shape), t)}, outputs=["y"],
                 weights={"axes": np.array([axis], dtype=np.int64), "two": cast_to(2.0, t),
                          "epsilon": cast_to(epsilon, t), "scale": cast_to(rng.uniform(0.5, 2.0, size=keep), t),
                          "bias": cast_to(rng.uniform(-1.0, 1.0, size=keep), t)})


@FAMILY.example
def last_axis(t, rng):
    """Over the last axis of (2, 3, 8), epsilon 1e-5 (the default a fusion assumes)."""
    return _graph(t, rng, (2, 3, 8), 2, 1e-5)


@FAMILY.example
def large_epsilon(t, rng):
    """Epsilon 0.5 next to a unit variance: dropped or replaced by 1e-5, every output moves by ~20%."""
    return _graph(t, rng, (2, 3, 8), 2, 0.5)


@FAMILY.example
def middle_axis(t, rng):
    """Over axis 1 of (2, 6, 4): not LayerNormalization's trailing axes."""
    return _graph(t, rng, (2, 6, 4), 1, 1e-5)
