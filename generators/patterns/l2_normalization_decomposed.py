"""L2 normalization written out, x / sqrt(sum(x^2) + eps) or x / max(sqrt(sum(x^2)), eps), fused by
OpenVINO's NormalizeL2Fusion (NormalizeL2FusionWithAdd: eps_mode add; WithMax: eps_mode max) into
NormalizeL2, and by TVM (l2_normalize) and TensorRT (normalize plugin). The two eps modes differ
wherever the sum of squares is not far above eps.

What each example catches: `add_epsilon` (Pow, ReduceSum over the last axis, Add eps 0.5, Sqrt, Div)
has rows whose sum of squares is near 0.5: a fusion to eps_mode max, or one taking a tiny eps, is off
by ~20%; `max_epsilon` (Sqrt then Max with eps 1) has rows with norms below and above 1 and a zero
row (0 / 1 = 0): eps_mode add is off; `channel_axis` normalises over axis 1 of (2, 3, 2, 2) with eps
1e-12 (0 in float16, where the graph's zero column is 0/0 = NaN): a last-axis kernel is wrong;
`reduce_l2_form` (x / ReduceL2(x) over axes (1, 2), no eps) passes +inf (inf / inf = NaN, the rest of
its group 0) and sums two axes at once."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import fractional, quarters, with_specials

FAMILY = GraphFamily("L2Normalization(decomposed)", "pattern", targets=(
    "OpenVINO: NormalizeL2Fusion (NormalizeL2FusionWithAdd, NormalizeL2FusionWithMax)",
    "TVM: l2_normalize; TensorRT: normalize plugin",
))


def _norm(axis, combine):
    return [helper.make_node("Pow", ["x", "two"], ["sq"]),
            helper.make_node("ReduceSum", ["sq", "axes"], ["ss"], keepdims=1),
            *([helper.make_node("Add", ["ss", "eps"], ["sse"]), helper.make_node("Sqrt", ["sse"], ["n"])]
              if combine == "add" else
              [helper.make_node("Sqrt", ["ss"], ["root"]), helper.make_node("Max", ["root", "eps"], ["n"])]),
            helper.make_node("Div", ["x", "n"], ["y"])]


def _weights(t, axes, eps):
    return {"two": cast_to(2.0, t), "axes": np.array(axes, dtype=np.int64), "eps": cast_to(eps, t)}


@FAMILY.example
def add_epsilon(t, rng):
    """x / Sqrt(ReduceSum(x^2, -1) + 0.5) over (3, 4), values in [-0.5, 0.5]."""
    return Graph(_norm(-1, "add"), inputs={"x": quarters(t, rng, (3, 4), -0.5, 0.5)}, outputs=["y"],
                 weights=_weights(t, [-1], 0.5))


@FAMILY.example
def max_epsilon(t, rng):
    """x / Max(Sqrt(ReduceSum(x^2, -1)), 1) over (4, 3); one row is all zeros."""
    x = quarters(t, rng, (4, 3), -1, 1)
    x[2] = 0
    return Graph(_norm(-1, "max"), inputs={"x": x}, outputs=["y"], weights=_weights(t, [-1], 1.0))


@FAMILY.example
def channel_axis(t, rng):
    """x / Sqrt(ReduceSum(x^2, 1) + 1e-12) over (2, 3, 2, 2); one position has all channels zero."""
    x = quarters(t, rng, (2, 3, 2, 2), -2, 2)
    x[1, :, 0, 1] = 0
    return Graph(_norm(1, "add"), inputs={"x": x}, outputs=["y"], weights=_weights(t, [1], 1e-12))


@FAMILY.example
def reduce_l2_form(t, rng):
    """x / ReduceL2(x, axes (1, 2)) over (2, 3, 2); one group holds +inf."""
    if (na := fractional(t, "a normalised vector's entries")):
        return na
    x = with_specials(quarters(t, rng, (2, 3, 2), -2, 2), t, float("inf"))
    return Graph([helper.make_node("ReduceL2", ["x", "axes"], ["n"], keepdims=1),
                  helper.make_node("Div", ["x", "n"], ["y"])],
                 inputs={"x": x}, outputs=["y"], weights={"axes": np.array([1, 2], dtype=np.int64)})
