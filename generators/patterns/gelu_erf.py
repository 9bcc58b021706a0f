"""GELU in its erf form written out, 0.5 * x * (1 + erf(x / sqrt(2))), as exporters emit it: the
chain onnxruntime's GeluFusion turns into com.microsoft Gelu (then BiasGeluFusion may take a
preceding Add), OpenVINO's GeluFusion (GeluFusionWithErfOne..Four) into Gelu, TensorRT into its GELU
kernel.

What each example catches: `div_sqrt2` (Div by 1.4142135, Erf, Add 1, Mul x, Mul 0.5) and
`mul_half_first` (x * 0.5 first, Mul by 0.70710677) are the forms the fusions match, over |x| <= 4
where every part of the curve shows; `not_gelu` divides by 2 instead of sqrt(2), which a matcher that
does not check the constant fuses into GELU (off by up to 0.1 around x = 1.5); `specials` passes
NaN, +inf (GELU(+inf) = +inf) and -inf: the graph computes -inf * 0.5 * (1 + erf(-inf)) = -inf * 0 =
NaN, where a fused GELU kernel may return 0 (the graph's value is NaN)."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import fractional, quarters, with_specials

FAMILY = GraphFamily("Gelu(erf)", "pattern", targets=(
    "onnxruntime: GeluFusion (-> com.microsoft Gelu)",
    "OpenVINO: GeluFusion (GeluFusionWithErfOne/Two/Three/Four)",
    "TensorRT: GELU fusion of the exported pattern",
))

WHAT = "GELU's constants 0.5 and 1/sqrt(2)"

# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (crosscheck.md).
FAMILY.reference_differs(r"^\w+ double: ", "the evaluator vectorizes math.erf with otypes='f', so its double Erf "
                                           "is rounded to float first (as in generators/ops/erf.py)")


def _div_form(divisor, t, x):
    nodes = [helper.make_node("Div", ["x", "root2"], ["scaled"]), helper.make_node("Erf", ["scaled"], ["e"]),
             helper.make_node("Add", ["e", "one"], ["p"]), helper.make_node("Mul", ["x", "p"], ["xp"]),
             helper.make_node("Mul", ["xp", "half"], ["y"])]
    return Graph(nodes, inputs={"x": x}, outputs=["y"],
                 weights={"root2": cast_to(divisor, t), "one": cast_to(1.0, t), "half": cast_to(0.5, t)})


@FAMILY.example
def div_sqrt2(t, rng):
    """x / 1.4142135, Erf, + 1, * x, * 0.5 over x in [-4, 4] (3, 8)."""
    return fractional(t, WHAT) or _div_form(1.4142135, t, quarters(t, rng, (3, 8)))


@FAMILY.example
def mul_half_first(t, rng):
    """(x * 0.5) * (1 + Erf(x * 0.70710677)), the other order."""
    if (na := fractional(t, WHAT)):
        return na
    nodes = [helper.make_node("Mul", ["x", "half"], ["hx"]), helper.make_node("Mul", ["x", "rsqrt2"], ["scaled"]),
             helper.make_node("Erf", ["scaled"], ["e"]), helper.make_node("Add", ["one", "e"], ["p"]),
             helper.make_node("Mul", ["hx", "p"], ["y"])]
    return Graph(nodes, inputs={"x": quarters(t, rng, (2, 3, 4))}, outputs=["y"],
                 weights={"half": cast_to(0.5, t), "rsqrt2": cast_to(0.70710677, t), "one": cast_to(1.0, t)})


@FAMILY.example
def not_gelu(t, rng):
    """x / 2 instead of x / sqrt(2): 0.5 * x * (1 + erf(x / 2)) is no GELU."""
    return fractional(t, WHAT) or _div_form(2.0, t, quarters(t, rng, (3, 8)))


@FAMILY.example
def specials(t, rng):
    """NaN, +inf, -inf (the graph's GELU(-inf) is NaN) among values in [-6, 6]."""
    return fractional(t, WHAT) or _div_form(
        1.4142135, t, with_specials(quarters(t, rng, (2, 6), -6, 6), t, float("nan"), float("inf"), float("-inf")))
