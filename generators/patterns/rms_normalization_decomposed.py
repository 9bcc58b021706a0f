"""RMSNormalization written out as exporters emit it (T5, LLaMA): x * 1/sqrt(mean(x^2) + eps) * scale,
the chain onnxruntime's SimplifiedLayerNormFusion turns into SimplifiedLayerNormalization, OpenVINO's
RMSFusion into its RMS operation and TensorRT into its RMSNorm kernel.

What each example catches: `last_axis_div` (Pow, ReduceMean, Add, Sqrt, Div, Mul) is the fusable
form; `large_epsilon` (the same form) has epsilon 1.0 next to a mean square of about 1 and a row of
zeros (0 / sqrt(eps) = 0): a fusion dropping epsilon or taking 1e-5 or 1e-6 is off by ~30% and turns
the zero row into NaN; `reciprocal_middle_axis` (Sqrt, Reciprocal, Mul) normalises over axis 1 of
(2, 6, 4), not the last; `through_float` is the LLaMA export: Cast to float, the chain, Cast back to
the input's type (the cast pair onnxruntime's fusion absorbs for float16 input, where the fused
kernel computes in float anyway). Its rows make every node exact (mean square + epsilon 0.75 is 1,
4 or 16), so the output's tolerance holds in double too, where the pair is not an identity: one row
holds 1e39, beyond float's range, which the Cast makes inf, so that row is NaN and 0 in the graph; a
fusion that drops the casts and computes in double returns finite values there."""

import numpy as np
from onnx import TensorProto, helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import fractional, normal
from onnx_conformance.harness.dtypes import elem_type_of

FAMILY = GraphFamily("RMSNormalization(decomposed)", "pattern", targets=(
    "onnxruntime: SimplifiedLayerNormFusion (-> SimplifiedLayerNormalization)",
    "OpenVINO: RMSFusion",
    "TensorRT: RMSNorm fusion of the exported pattern",
))


def _chain(x, y, reciprocal=False):
    tail = ([helper.make_node("Reciprocal", ["root"], ["inverse"]), helper.make_node("Mul", [x, "inverse"], ["normal"])]
            if reciprocal else [helper.make_node("Div", [x, "root"], ["normal"])])
    return [helper.make_node("Pow", [x, "two"], ["squared"]),
            helper.make_node("ReduceMean", ["squared", "axes"], ["meansq"], keepdims=1),
            helper.make_node("Add", ["meansq", "epsilon"], ["shifted"]),
            helper.make_node("Sqrt", ["shifted"], ["root"]),
            *tail,
            helper.make_node("Mul", ["normal", "scale"], [y])]


def _weights(t, rng, axis, shape, epsilon):
    keep = [1] * len(shape)
    keep[axis] = shape[axis]
    return {"two": cast_to(2.0, t), "axes": np.array([axis], dtype=np.int64), "epsilon": cast_to(epsilon, t),
            "scale": cast_to(rng.uniform(0.5, 2.0, size=keep[axis:] if axis == len(shape) - 1 else keep), t)}


@FAMILY.example
def last_axis_div(t, rng):
    """Over the last axis of (2, 3, 8), epsilon 1e-6, scale (8,)."""
    return fractional(t, "RMSNormalization's mean and square root") or Graph(
        _chain("x", "y"), inputs={"x": normal(t, rng, (2, 3, 8))}, outputs=["y"],
        weights=_weights(t, rng, 2, (2, 3, 8), 1e-6))


@FAMILY.example
def large_epsilon(t, rng):
    """Epsilon 1.0, the Div form, one row all zeros."""
    x = normal(t, rng, (3, 8))
    x[1] = 0
    return fractional(t, "RMSNormalization's mean and square root") or Graph(
        _chain("x", "y"), inputs={"x": x}, outputs=["y"], weights=_weights(t, rng, 1, (3, 8), 1.0))


@FAMILY.example
def reciprocal_middle_axis(t, rng):
    """Over axis 1 of (2, 6, 4), scale (1, 6, 1), the Reciprocal form."""
    return fractional(t, "RMSNormalization's mean and square root") or Graph(
        _chain("x", "y", reciprocal=True), inputs={"x": normal(t, rng, (2, 6, 4))}, outputs=["y"],
        weights=_weights(t, rng, 1, (2, 6, 4), 1e-5))


@FAMILY.example
def through_float(t, rng):
    """Cast to float, the chain in float (epsilon 0.75, weights in float), Cast back to t; rows whose mean
    square plus epsilon is 1, 4 or 16, so every node is exact; in double one element is 1e39."""
    if (na := fractional(t, "RMSNormalization's mean and square root")):
        return na
    nodes = [helper.make_node("Cast", ["x"], ["xf"], to=TensorProto.FLOAT), *_chain("xf", "yf"),
             helper.make_node("Cast", ["yf"], ["y"], to=elem_type_of(t))]
    rows = [[0.5] * 8, [3, 4, 1, 0, 0, 0, 0, 0], [11, 1, 0, 0, 0, 0, 0, 0], [5, 1, 0, 0, 0, 0, 0, 0],
            [2, 2, 2, 2, 2, 2, 1, 1], [1, 1, 0, 0, 0, 0, 0, 0]]  # sums of squares 2, 26, 122, 26, 26, 2
    x = np.array([rng.permutation(r) * rng.choice([-1, 1], size=8) for r in rows], dtype=np.float64).reshape(2, 3, 8)
    if t == "double":
        x[1, 2, 3] = 1e39  # inf once cast to float
    weights = _weights("float", rng, 2, (2, 3, 8), 0.75)
    weights["scale"] = cast_to(rng.integers(2, 9, size=8) / 4, "float")
    return Graph(nodes, inputs={"x": cast_to(x, t)}, outputs=["y"], weights=weights)
