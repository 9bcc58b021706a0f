"""MatMul followed by Add of a bias: the linear layer every optimizer fuses into one kernel
(onnxruntime's MatMulAddFusion to Gemm, OpenVINO's MatMulMultiplyFusion/FullyConnected, the ONNX
optimizer's fuse_matmul_add_bias_into_gemm, TVM's dense+bias_add).

The rewrite is only right when the bias broadcasts along the last axis as Gemm's C does: `bias_row`
is the case it may fuse, `bias_column` broadcasts along the rows (a fusion that treats it as a row
bias is off by the difference of rows) and `batched` has a leading batch axis Gemm cannot take."""

from onnx import helper

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to

FAMILY = GraphFamily("MatMul+Add", "pattern", targets=(
    "onnxruntime: MatMulAddFusion (MatMul + Add -> Gemm)",
    "OpenVINO: FullyConnected fusion (MatMul + Add bias)",
    "ONNX optimizer: fuse_matmul_add_bias_into_gemm",
))


def _values(t, rng, shape):
    """Small multiples of 1/4 (exact in every type; unsigned types get no negatives)."""
    low = 0 if t.startswith("uint") else -4
    return cast_to(rng.integers(low, 5, size=shape) / (4 if t in FLOATS else 1), t)


@FAMILY.example
def bias_row(t, rng):
    """y = x @ w + b, b of shape (N,): Gemm's C exactly."""
    return Graph([helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["y"])],
                 inputs={"x": _values(t, rng, (3, 5))}, outputs=["y"],
                 weights={"w": _values(t, rng, (5, 4)), "b": _values(t, rng, (4,))})


@FAMILY.example
def bias_column(t, rng):
    """b of shape (M, 1): broadcast along the columns; a fusion reading it as a row bias is wrong."""
    return Graph([helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["y"])],
                 inputs={"x": _values(t, rng, (3, 5))}, outputs=["y"],
                 weights={"w": _values(t, rng, (5, 3)), "b": _values(t, rng, (3, 1))})


@FAMILY.example
def batched(t, rng):
    """x of shape (2, 3, 5): the MatMul is batched, the bias still broadcasts along the last axis."""
    return Graph([helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["b", "xw"], ["y"])],
                 inputs={"x": _values(t, rng, (2, 3, 5))}, outputs=["y"],
                 weights={"w": _values(t, rng, (5, 4)), "b": _values(t, rng, (4,))})
