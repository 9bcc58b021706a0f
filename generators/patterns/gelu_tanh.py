"""GELU's tanh approximation written out, 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))),
the chain onnxruntime's FastGeluFusion turns into com.microsoft FastGelu, OpenVINO's GeluFusionWithTanh
into Gelu(tanh) and TensorRT into its GELU kernel.

What each example catches: `pow_form` (Pow 3) and `cube_by_mul` (x * x * x, constants in the other
order) are the forms the fusions match; `not_gelu` has 0.5 where 0.044715 belongs (a matcher that
does not check the cubic coefficient fuses it: off by up to ~0.25 around |x| = 1); `large_and_special`
goes to |x| = 60, where x^3 overflows float16 inside the chain while the graph's result stays x (or
-0), and passes NaN, +inf and -inf (the graph gives NaN for -inf: -inf * 0)."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import fractional, quarters, with_specials

FAMILY = GraphFamily("Gelu(tanh)", "pattern", targets=(
    "onnxruntime: FastGeluFusion (-> com.microsoft FastGelu)",
    "OpenVINO: GeluFusionWithTanh (-> Gelu approximation_mode=tanh)",
    "TensorRT: GELU (tanh) fusion of the exported pattern",
))

WHAT = "the tanh approximation's constants 0.5, 0.044715 and sqrt(2/pi)"
SQRT_2_OVER_PI = 0.7978845608028654


def _pow_form(t, x, cubic):
    nodes = [helper.make_node("Pow", ["x", "three"], ["cube"]), helper.make_node("Mul", ["cube", "k"], ["kc"]),
             helper.make_node("Add", ["x", "kc"], ["inner"]), helper.make_node("Mul", ["inner", "c"], ["arg"]),
             helper.make_node("Tanh", ["arg"], ["th"]), helper.make_node("Add", ["th", "one"], ["p"]),
             helper.make_node("Mul", ["x", "half"], ["hx"]), helper.make_node("Mul", ["hx", "p"], ["y"])]
    return Graph(nodes, inputs={"x": x}, outputs=["y"],
                 weights={"three": cast_to(3.0, t), "k": cast_to(cubic, t), "c": cast_to(SQRT_2_OVER_PI, t),
                          "one": cast_to(1.0, t), "half": cast_to(0.5, t)})


@FAMILY.example
def pow_form(t, rng):
    """Pow(x, 3) * 0.044715 + x, * sqrt(2/pi), Tanh, + 1, times 0.5 * x; x in [-4, 4]."""
    return fractional(t, WHAT) or _pow_form(t, quarters(t, rng, (3, 8)), 0.044715)


@FAMILY.example
def cube_by_mul(t, rng):
    """x * x * x, the constants multiplied on the left, 0.5 applied last."""
    if (na := fractional(t, WHAT)):
        return na
    nodes = [helper.make_node("Mul", ["x", "x"], ["sq"]), helper.make_node("Mul", ["sq", "x"], ["cube"]),
             helper.make_node("Mul", ["k", "cube"], ["kc"]), helper.make_node("Add", ["kc", "x"], ["inner"]),
             helper.make_node("Mul", ["c", "inner"], ["arg"]), helper.make_node("Tanh", ["arg"], ["th"]),
             helper.make_node("Add", ["one", "th"], ["p"]), helper.make_node("Mul", ["p", "x"], ["px"]),
             helper.make_node("Mul", ["px", "half"], ["y"])]
    return Graph(nodes, inputs={"x": quarters(t, rng, (2, 3, 4))}, outputs=["y"],
                 weights={"k": cast_to(0.044715, t), "c": cast_to(SQRT_2_OVER_PI, t), "one": cast_to(1.0, t),
                          "half": cast_to(0.5, t)})


@FAMILY.example
def not_gelu(t, rng):
    """The cubic coefficient 0.5 instead of 0.044715: not GELU."""
    return fractional(t, WHAT) or _pow_form(t, quarters(t, rng, (3, 8), -3, 3), 0.5)


@FAMILY.example
def large_and_special(t, rng):
    """x up to +-60 (x^3 overflows float16 mid-chain; the result is still finite) and NaN, +inf, -inf."""
    x = with_specials(cast_to(rng.choice([-60.0, -45.0, -30.0, -12.0, 12.0, 30.0, 45.0, 60.0], size=(2, 8)), t), t,
                      float("nan"), float("inf"), float("-inf"))
    return fractional(t, WHAT) or _pow_form(t, x, 0.044715)
