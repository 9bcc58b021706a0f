"""A Transpose feeding MatMul or Gemm, which optimizers fold into the product's transA/transB
(onnxruntime's MatmulTransposeFusion to FusedMatMul and GemmTransposeFusion, the ONNX optimizer's
fuse_transpose_into_gemm, OpenVINO's TransposeMatMul folding the transpose into MatMul's
transpose_a/transpose_b).

Only a transpose of the last two axes is a transA/transB. `transpose_b` (a weight, foldable) and
`transpose_a_batched` (perm (0, 2, 1) on a batched input) are the cases a rule may fold.
`batch_axes_swapped` transposes the batch axes, not the matrix ones (perm (1, 0, 2)): folding it as a
transA multiplies the wrong matrices. `gemm_trans_b` feeds Gemm a transposed weight with transB=1
already set: the two cancel, and a fold that sets transB=1 again (instead of clearing it), or that
drops alpha and the broadcast C, is off."""

from onnx import helper

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import small

FAMILY = GraphFamily("Transpose+MatMul", "pattern", targets=(
    "onnxruntime: MatmulTransposeFusion (Transpose + MatMul -> FusedMatMul transA/transB), GemmTransposeFusion",
    "ONNX optimizer: fuse_transpose_into_gemm",
    "OpenVINO: TransposeMatMul (transpose folded into MatMul's transpose_a/transpose_b)",
))


@FAMILY.example
def transpose_b(t, rng):
    """x (3, 5) @ Transpose(w (4, 5)): w's transpose is transB."""
    return Graph([helper.make_node("Transpose", ["w"], ["wt"], perm=[1, 0]),
                  helper.make_node("MatMul", ["x", "wt"], ["y"])],
                 inputs={"x": small(t, rng, (3, 5))}, outputs=["y"], weights={"w": small(t, rng, (4, 5))})


@FAMILY.example
def transpose_a_batched(t, rng):
    """Transpose(x (2, 5, 3), perm (0, 2, 1)) @ w (5, 4): a batched transA."""
    return Graph([helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 2, 1]),
                  helper.make_node("MatMul", ["xt", "w"], ["y"])],
                 inputs={"x": small(t, rng, (2, 5, 3))}, outputs=["y"], weights={"w": small(t, rng, (5, 4))})


@FAMILY.example
def batch_axes_swapped(t, rng):
    """Transpose(x (3, 3, 3), perm (1, 0, 2)) @ w (3, 3): the batch and row axes swap, not the
    matrix axes; every shape is 3 so a fold into transA runs, and gives other numbers."""
    return Graph([helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2]),
                  helper.make_node("MatMul", ["xt", "w"], ["y"])],
                 inputs={"x": small(t, rng, (3, 3, 3))}, outputs=["y"], weights={"w": small(t, rng, (3, 3))})


@FAMILY.example
def gemm_trans_b(t, rng):
    """Gemm(x (3, 5), Transpose(w (5, 4)), c (3, 1), transB=1, alpha=0.5 in the floating types):
    the transposes cancel, so the product is x @ w, halved, plus c down the rows."""
    alpha = {"alpha": 0.5} if t in FLOATS else {}  # alpha scales in float: an integer product has no half
    return Graph([helper.make_node("Transpose", ["w"], ["wt"], perm=[1, 0]),
                  helper.make_node("Gemm", ["x", "wt", "c"], ["y"], transB=1, **alpha)],
                 inputs={"x": small(t, rng, (3, 5))}, outputs=["y"],
                 weights={"w": small(t, rng, (5, 4)), "c": small(t, rng, (3, 1))})
