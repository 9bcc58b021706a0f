"""QuickGelu, x * Sigmoid(1.702 * x) (CLIP's GELU approximation), fused by onnxruntime's
QuickGeluFusion into com.microsoft QuickGelu with the Mul's constant as its alpha (and by OpenVINO's
SwishFusionWithBeta into Swish(beta)). The fusion is only right for one scalar constant, and must
take its value, not assume 1.702.

What each example catches: `standard` (alpha 1.702, over |x| <= 6) is the fusable form;
`other_alpha` has alpha -0.75: a fusion assuming 1.702 is off everywhere; `per_channel_alpha`
multiplies by a vector (one alpha per last-axis position): a fusion that takes its first element as
the scalar alpha is off in the other columns; `alpha_first_specials` writes Mul(alpha, x) with the
constant first and passes NaN, +inf and -inf (the graph gives NaN at -inf)."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import quarters, with_specials

FAMILY = GraphFamily("QuickGelu", "pattern", targets=(
    "onnxruntime: QuickGeluFusion (-> com.microsoft QuickGelu)",
    "OpenVINO: SwishFusionWithBeta (-> Swish(beta))",
))


def _graph(t, x, alpha, alpha_first=False):
    scaled = ["alpha", "x"] if alpha_first else ["x", "alpha"]
    return Graph([helper.make_node("Mul", scaled, ["ax"]), helper.make_node("Sigmoid", ["ax"], ["s"]),
                  helper.make_node("Mul", ["x", "s"], ["y"])],
                 inputs={"x": x}, outputs=["y"], weights={"alpha": cast_to(alpha, t)})


@FAMILY.example
def standard(t, rng):
    """x * Sigmoid(x * 1.702)."""
    return _graph(t, quarters(t, rng, (3, 8), -6, 6), 1.702)


@FAMILY.example
def other_alpha(t, rng):
    """x * Sigmoid(x * -0.75)."""
    return _graph(t, quarters(t, rng, (3, 8), -6, 6), -0.75)


@FAMILY.example
def per_channel_alpha(t, rng):
    """x * Sigmoid(x * alpha), alpha (4,) = (1.702, 1, -2, 0.25) along the last axis."""
    return _graph(t, quarters(t, rng, (2, 3, 4), -6, 6), [1.702, 1.0, -2.0, 0.25])


@FAMILY.example
def alpha_first_specials(t, rng):
    """x * Sigmoid(1.702 * x) with NaN, +inf, -inf among the values."""
    x = with_specials(quarters(t, rng, (2, 8), -6, 6), t, float("nan"), float("inf"), float("-inf"))
    return _graph(t, x, 1.702, alpha_first=True)
