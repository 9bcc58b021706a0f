"""A bias Add followed by GELU, fused into one kernel: onnxruntime's BiasGeluFusion (Add + Gelu ->
com.microsoft BiasGelu, after GeluFusion has made the Gelu from its erf form) and FastGeluFusion with
a bias (Add + the tanh form -> FastGelu(x, bias)); OpenVINO and TensorRT fuse the bias into their
GELU kernels likewise. The fused kernels take a 1-D bias over the last axis.

What each example catches: `row_bias_decomposed` (bias (H,), GELU written out in its erf form) and
`row_bias_gelu_op` (the Gelu operator, opset 20) are the fusable forms; `column_bias` adds a bias of
shape (S, 1) with S = H, as many values as a row bias, along the middle axis: a fusion that checks
only the element count applies it along the wrong axis; `tanh_approximate` is Gelu(approximate =
"tanh") after the bias: a fusion to the erf BiasGelu differs by up to ~5e-4 (caught in float and
double; within float16's and bfloat16's own tolerance)."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import fractional, quarters

FAMILY = GraphFamily("Add+Gelu", "pattern", targets=(
    "onnxruntime: BiasGeluFusion (Add + Gelu -> com.microsoft BiasGelu)",
    "onnxruntime: FastGeluFusion with bias (Add + tanh GELU -> FastGelu)",
    "OpenVINO / TensorRT: bias + GELU fusion",
))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (crosscheck.md).
FAMILY.reference_differs(r"^row_bias_decomposed\w* double: ",
                         "the evaluator vectorizes math.erf with otypes='f', so its double Erf is rounded to float "
                         "first (as in generators/ops/erf.py)")
FAMILY.reference_differs(r"^(row_bias_gelu_op|column_bias|tanh_approximate)\w* double: ",
                         "the evaluator runs Gelu's function body, whose constants (sqrt(2), sqrt(2/pi), 0.044715) "
                         "are float32 values cast to double; the formula's constants are exact "
                         "(as in generators/ops/gelu.py)")


def _gelu_op(t, rng, bias_shape, approximate="none"):
    return Graph([helper.make_node("Add", ["x", "bias"], ["xb"]),
                  helper.make_node("Gelu", ["xb"], ["y"], approximate=approximate)],
                 inputs={"x": quarters(t, rng, (2, 4, 4), -3, 3)}, outputs=["y"],
                 weights={"bias": quarters(t, rng, bias_shape, -1, 1)})


@FAMILY.example
def row_bias_decomposed(t, rng):
    """x (2, 3, 6) + bias (6,), then 0.5 * v * (1 + Erf(v / 1.4142135))."""
    if (na := fractional(t, "GELU's constants 0.5 and 1/sqrt(2)")):
        return na
    nodes = [helper.make_node("Add", ["x", "bias"], ["v"]), helper.make_node("Div", ["v", "root2"], ["s"]),
             helper.make_node("Erf", ["s"], ["e"]), helper.make_node("Add", ["e", "one"], ["p"]),
             helper.make_node("Mul", ["v", "p"], ["vp"]), helper.make_node("Mul", ["vp", "half"], ["y"])]
    return Graph(nodes, inputs={"x": quarters(t, rng, (2, 3, 6), -3, 3)}, outputs=["y"],
                 weights={"bias": quarters(t, rng, (6,), -1, 1), "root2": cast_to(1.4142135, t),
                          "one": cast_to(1.0, t), "half": cast_to(0.5, t)})


@FAMILY.example
def row_bias_gelu_op(t, rng):
    """x (2, 4, 4) + bias (4,), then Gelu."""
    return _gelu_op(t, rng, (4,))


@FAMILY.example
def column_bias(t, rng):
    """x (2, 4, 4) + bias (4, 1): four values along the middle axis, then Gelu."""
    return _gelu_op(t, rng, (4, 1))


@FAMILY.example
def tanh_approximate(t, rng):
    """x (2, 4, 4) + bias (4,), then Gelu(approximate="tanh")."""
    return _gelu_op(t, rng, (4,), approximate="tanh")
