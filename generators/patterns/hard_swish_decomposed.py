"""HardSwish and HardSigmoid written out as exporters emit them (MobileNetV3: x * ReLU6(x + 3) / 6),
fused by OpenVINO's HSwishFusion (WithReluDiv, WithReluMul, WithHSigmoid, WithClamp) into HSwish and
HSigmoidFusion into HSigmoid, and by the onnxscript rewriter's fuse_hardswish rules (the clamp form
to HardSigmoid, HardSigmoid * x to HardSwish). HardSwish is HardSigmoid(alpha 1/6, beta 0.5) * x
exactly; with any other alpha and beta it is not.

What each example catches: `relu_min_div` (x * Min(Relu(x + 3), 6) / 6) is valid in signed integers
too, where Div truncates: a fusion to a floating HSwish rounds differently there; `clip_mul_sixth`
(x * Clip(x + 3, 0, 6) * 1/6, the constant 1/6 inexact) is the clamp form; `hard_sigmoid_times_x`
is HardSigmoid(alpha 1/6, beta 0.5) * x, HardSwish exactly; `default_hard_sigmoid_times_x` is
HardSigmoid() * x with the operator's defaults alpha 0.2, beta 0.5, not HardSwish: a fusion that
matches any HardSigmoid * x is off by 0.033 * x^2; `hsigmoid_with_nan` is Min(Relu(x + 3), 6) / 6
alone with NaN and +-inf (NaN passes Relu and Min; a clamp kernel may return a bound)."""

from onnx import helper

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import fractional, quarters, with_specials

FAMILY = GraphFamily("HardSwish/HardSigmoid(decomposed)", "pattern", targets=(
    "OpenVINO: HSwishFusion (WithReluDiv, WithReluMul, WithHSigmoid, WithClamp)",
    "OpenVINO: HSigmoidFusion (WithReluDiv, WithReluMul, WithoutRelu, WithClamp)",
    "onnxscript rewriter: fuse_hardswish (Div(Clip(Add(x))) -> HardSigmoid, Mul(HardSigmoid(x), x) -> HardSwish)",
))


def _relu6(x, out):
    return [helper.make_node("Add", [x, "three"], [out + "_shifted"]),
            helper.make_node("Relu", [out + "_shifted"], [out + "_pos"]),
            helper.make_node("Min", [out + "_pos", "six"], [out])]


@FAMILY.example
def relu_min_div(t, rng):
    """x * Min(Relu(x + 3), 6) / 6 over x in [-5, 5] (integers in integer types)."""
    nodes = [*_relu6("x", "r6"), helper.make_node("Mul", ["x", "r6"], ["xr"]),
             helper.make_node("Div", ["xr", "six"], ["y"])]
    return Graph(nodes, inputs={"x": quarters(t, rng, (3, 8), -5, 5)}, outputs=["y"],
                 weights={"three": cast_to(3, t), "six": cast_to(6, t)})


@FAMILY.example
def clip_mul_sixth(t, rng):
    """x * Clip(x + 3, 0, 6) * (1/6)."""
    if (na := fractional(t, "the constant 1/6")):
        return na
    nodes = [helper.make_node("Add", ["x", "three"], ["shifted"]),
             helper.make_node("Clip", ["shifted", "zero", "six"], ["r6"]),
             helper.make_node("Mul", ["x", "r6"], ["xr"]), helper.make_node("Mul", ["xr", "sixth"], ["y"])]
    return Graph(nodes, inputs={"x": quarters(t, rng, (3, 8), -5, 5)}, outputs=["y"],
                 weights={"three": cast_to(3.0, t), "zero": cast_to(0.0, t), "six": cast_to(6.0, t),
                          "sixth": cast_to(1 / 6, t)})


def _hard_sigmoid_times_x(t, rng, **attrs):
    return Graph([helper.make_node("HardSigmoid", ["x"], ["h"], **attrs), helper.make_node("Mul", ["x", "h"], ["y"])],
                 inputs={"x": quarters(t, rng, (3, 8), -5, 5)}, outputs=["y"])


@FAMILY.example
def hard_sigmoid_times_x(t, rng):
    """HardSigmoid(alpha 1/6, beta 0.5)(x) * x: HardSwish."""
    return _hard_sigmoid_times_x(t, rng, alpha=1 / 6, beta=0.5)


@FAMILY.example
def default_hard_sigmoid_times_x(t, rng):
    """HardSigmoid()(x) * x: alpha 0.2 by default, not HardSwish's 1/6."""
    return _hard_sigmoid_times_x(t, rng)


@FAMILY.example
def hsigmoid_with_nan(t, rng):
    """Min(Relu(x + 3), 6) / 6 with NaN, +inf, -inf among x in [-5, 5]."""
    if t not in FLOATS:
        return NotApplicable("NaN and infinities exist in floating types only")
    x = with_specials(quarters(t, rng, (2, 8), -5, 5), t, float("nan"), float("inf"), float("-inf"))
    return Graph([*_relu6("x", "r6"), helper.make_node("Div", ["r6", "six"], ["y"])],
                 inputs={"x": x}, outputs=["y"], weights={"three": cast_to(3.0, t), "six": cast_to(6.0, t)})
