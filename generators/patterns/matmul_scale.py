"""MatMul with a scalar Mul or Div before or after it, folded into com.microsoft FusedMatMul's alpha by
onnxruntime's MatMulScaleFusion (and the transpose into transA/transB by MatmulTransposeFusion), into
the weights by OpenVINO's MatMulMultiplyFusion and by TVM's FoldScaleAxis. The fold is right only for
one scalar, and only where moving it across the product is exact (not for an integer Div).

What each example catches: `scale_after` ((x @ w) * 0.125; * 3 in integers) is the fold as intended;
`divide_before` (Div(x, 2) @ w) folds to alpha 0.5 in floating types, but in integers Div truncates
each odd element of x first, so (x / 2) @ w is not (x @ w) / 2: a fold there is off; `column_scale`
multiplies by a vector (N,) of different values per column, which no scalar alpha holds (a fold that
takes its first element is off in the other columns); `transposed_both_sides` is Mul(0.5, x) @
Transpose(w) * 3 with a batched x (2, 3, 4): the two scales multiply and the transpose becomes transB."""

from onnx import helper

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import quarters

FAMILY = GraphFamily("MatMul+Mul(scale)", "pattern", targets=(
    "onnxruntime: MatMulScaleFusion (-> com.microsoft FusedMatMul alpha)",
    "onnxruntime: MatmulTransposeFusion (Transpose + MatMul -> FusedMatMul transB)",
    "OpenVINO: MatMulMultiplyFusion",
    "TVM: FoldScaleAxis",
))


@FAMILY.example
def scale_after(t, rng):
    """(x @ w) * 0.125 (floating) or * 3 (integers); x (3, 4), w (4, 5)."""
    return Graph([helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Mul", ["xw", "s"], ["y"])],
                 inputs={"x": quarters(t, rng, (3, 4))}, outputs=["y"],
                 weights={"w": quarters(t, rng, (4, 5)), "s": cast_to(0.125 if t in FLOATS else 3, t)})


@FAMILY.example
def divide_before(t, rng):
    """Div(x, 2) @ w; x holds odd values (integers truncate their halves)."""
    x = quarters(t, rng, (3, 4), -7, 7)
    if t not in FLOATS:
        x = x | cast_to(1, t)  # odd: every element's half is truncated
    return Graph([helper.make_node("Div", ["x", "d"], ["xd"]), helper.make_node("MatMul", ["xd", "w"], ["y"])],
                 inputs={"x": x}, outputs=["y"], weights={"w": quarters(t, rng, (4, 5)), "d": cast_to(2, t)})


@FAMILY.example
def column_scale(t, rng):
    """(x @ w) * s, s (5,) = (2, 0.5, 1, 3, 0) (floating) or (2, 1, 1, 3, 0) (integers)."""
    s = [2, 0.5, 1, 3, 0] if t in FLOATS else [2, 1, 1, 3, 0]
    return Graph([helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Mul", ["xw", "s"], ["y"])],
                 inputs={"x": quarters(t, rng, (3, 4))}, outputs=["y"],
                 weights={"w": quarters(t, rng, (4, 5)), "s": cast_to(s, t)})


@FAMILY.example
def transposed_both_sides(t, rng):
    """(a * x) @ Transpose(w) * 3, a 0.5 (floating) or 2 (integers); x (2, 3, 4), w (5, 4)."""
    return Graph([helper.make_node("Mul", ["a", "x"], ["ax"]), helper.make_node("Transpose", ["w"], ["wt"]),
                  helper.make_node("MatMul", ["ax", "wt"], ["p"]), helper.make_node("Mul", ["p", "three"], ["y"])],
                 inputs={"x": quarters(t, rng, (2, 3, 4))}, outputs=["y"],
                 weights={"w": quarters(t, rng, (5, 4)), "a": cast_to(0.5 if t in FLOATS else 2, t),
                          "three": cast_to(3, t)})
