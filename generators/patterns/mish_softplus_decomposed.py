"""Softplus and Mish written out, Log(Exp(x) + 1) and x * Tanh(Softplus(x)), fused by OpenVINO's
SoftPlusFusion into SoftPlus and MishFusion into Mish (and by TVM and TensorRT into their kernels).

What each example catches: `softplus_decomposed` (Log(Exp(x) + 1) over |x| <= 10, where Exp stays
finite in every type, plus NaN, +inf (Softplus(+inf) = +inf) and -inf (0)) is the fusable form;
`mish_with_softplus` (x * Tanh(Softplus(x))) and `mish_decomposed` (x * Tanh(Log(1 + Exp(x))), the
constant first) are Mish's two exported forms; `not_softplus` is Log(Exp(x) + 2): a matcher that does
not check the constant 1 fuses it into SoftPlus, off by log(3/2) = 0.41 at x = 0."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import quarters, with_specials

FAMILY = GraphFamily("Mish/Softplus(decomposed)", "pattern", targets=(
    "OpenVINO: SoftPlusFusion (Log(Exp(x) + 1) -> SoftPlus)",
    "OpenVINO: MishFusion (x * Tanh(SoftPlus(x)) -> Mish)",
    "TVM / TensorRT: softplus and mish fusion",
))


def _softplus(x, out, constant_first=False):
    return [helper.make_node("Exp", [x], [out + "_e"]),
            helper.make_node("Add", ["one", out + "_e"] if constant_first else [out + "_e", "one"], [out + "_e1"]),
            helper.make_node("Log", [out + "_e1"], [out])]


def _x(t, rng, shape, *specials):
    return with_specials(quarters(t, rng, shape, -10, 10), t, *specials)


@FAMILY.example
def softplus_decomposed(t, rng):
    """Log(Exp(x) + 1) over x in [-10, 10], NaN, +inf, -inf."""
    return Graph(_softplus("x", "y"), inputs={"x": _x(t, rng, (3, 8), float("nan"), float("inf"), float("-inf"))},
                 outputs=["y"], weights={"one": cast_to(1.0, t)})


@FAMILY.example
def mish_with_softplus(t, rng):
    """x * Tanh(Softplus(x)) over x in [-10, 10], NaN, +inf."""
    return Graph([helper.make_node("Softplus", ["x"], ["sp"]), helper.make_node("Tanh", ["sp"], ["th"]),
                  helper.make_node("Mul", ["x", "th"], ["y"])],
                 inputs={"x": _x(t, rng, (3, 8), float("nan"), float("inf"))}, outputs=["y"])


@FAMILY.example
def mish_decomposed(t, rng):
    """x * Tanh(Log(1 + Exp(x))) over x in [-10, 10]."""
    return Graph([*_softplus("x", "sp", constant_first=True), helper.make_node("Tanh", ["sp"], ["th"]),
                  helper.make_node("Mul", ["th", "x"], ["y"])],
                 inputs={"x": _x(t, rng, (3, 8))}, outputs=["y"], weights={"one": cast_to(1.0, t)})


@FAMILY.example
def not_softplus(t, rng):
    """Log(Exp(x) + 2): not Softplus."""
    return Graph(_softplus("x", "y"), inputs={"x": _x(t, rng, (3, 8))}, outputs=["y"], weights={"one": cast_to(2.0, t)})
