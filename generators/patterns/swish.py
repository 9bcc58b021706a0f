"""Swish (SiLU), x * Sigmoid(x) and its written-out forms, fused by OpenVINO's SwishFusion
(SwishFusionWithSigmoid, WithSigmoidWithBeta, WithBeta, WithoutBeta: x / (1 + exp(-x))), by
onnxruntime's QuickGeluFusion (which takes x * Sigmoid(alpha * x), alpha 1 included), by TVM and
TensorRT into a SiLU kernel.

What each example catches: `sigmoid_times_x` (Sigmoid(x) * x, operands in the other order) is the
fusable form, over values to +-100 and NaN, +inf, -inf (the graph gives NaN at -inf: -inf * 0);
`negative_beta` is x * Sigmoid(-1 * x), Swish with beta -1, which a fusion assuming beta 1 gets
wrong by |x|; `exp_form` is x / (1 + Exp(-x)), where Exp overflows to inf for large negative x (the
graph's -0) and -inf gives NaN; `other_input` is x * Sigmoid(z), z another input: a matcher that does
not check both Mul operands are the same tensor fuses it into Swish(x)."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import fractional, quarters, with_specials

FAMILY = GraphFamily("Swish(decomposed)", "pattern", targets=(
    "OpenVINO: SwishFusion (WithSigmoid, WithSigmoidWithBeta, WithBeta, WithoutBeta)",
    "onnxruntime: QuickGeluFusion (x * Sigmoid(alpha * x), alpha 1)",
    "TVM / TensorRT: SiLU fusion",
))

SPECIALS = (float("nan"), float("inf"), float("-inf"), -100.0, 100.0)


@FAMILY.example
def sigmoid_times_x(t, rng):
    """Sigmoid(x) * x over x in [-6, 6], +-100, NaN, +-inf."""
    return Graph([helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Mul", ["s", "x"], ["y"])],
                 inputs={"x": with_specials(quarters(t, rng, (3, 8), -6, 6), t, *SPECIALS)}, outputs=["y"])


@FAMILY.example
def negative_beta(t, rng):
    """x * Sigmoid(-1 * x): beta is -1."""
    return Graph([helper.make_node("Mul", ["x", "beta"], ["bx"]), helper.make_node("Sigmoid", ["bx"], ["s"]),
                  helper.make_node("Mul", ["x", "s"], ["y"])],
                 inputs={"x": quarters(t, rng, (3, 8), -6, 6)}, outputs=["y"], weights={"beta": cast_to(-1.0, t)})


@FAMILY.example
def exp_form(t, rng):
    """x / (1 + Exp(-x)) over x in [-6, 6], +-100, NaN, +-inf."""
    if (na := fractional(t, "Exp's values")):
        return na
    return Graph([helper.make_node("Neg", ["x"], ["nx"]), helper.make_node("Exp", ["nx"], ["e"]),
                  helper.make_node("Add", ["one", "e"], ["d"]), helper.make_node("Div", ["x", "d"], ["y"])],
                 inputs={"x": with_specials(quarters(t, rng, (3, 8), -6, 6), t, *SPECIALS)}, outputs=["y"],
                 weights={"one": cast_to(1.0, t)})


@FAMILY.example
def other_input(t, rng):
    """x * Sigmoid(z): z is not x."""
    return Graph([helper.make_node("Sigmoid", ["z"], ["s"]), helper.make_node("Mul", ["x", "s"], ["y"])],
                 inputs={"x": quarters(t, rng, (3, 8), -6, 6), "z": quarters(t, rng, (3, 8), -6, 6)}, outputs=["y"])
