"""Gemm followed by an activation, the pair fused into one kernel (onnxruntime's GemmActivationFusion
makes com.microsoft FusedGemm carrying the activation and its alpha/beta; OpenVINO's CPU plugin fuses
the activation into its FullyConnected; TVM's FuseOps puts dense, bias and activation in one kernel).

The fused kernel must keep everything Gemm itself says: `transposed_relu` has transA, transB,
alpha 0.5 and beta -1.5 (2 and -1 in integers), so a fusion that drops a transpose or a scale is off
by whole units; `column_bias_leaky` broadcasts C of shape (M, 1) along the rows and uses LeakyRelu
with alpha 0.3 (not the default 0.01): a kernel that adds C as a row bias or forgets the activation's
alpha is off; `hard_sigmoid_params` carries HardSigmoid's alpha 0.3 and beta 0.4 (not 0.2 and 0.5),
with inputs spread so both the 0 and 1 bounds and the slope bite; `empty_inner` has K = 0, so
alpha * A' * B' is all zeros and Y = Relu(beta * C): a kernel that leaves the product uninitialized
or skips C when K is 0 is off."""

from onnx import helper

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily
from onnx_conformance.generators.patterns._fusion_data import quarters

FAMILY = GraphFamily("Gemm+Activation", "pattern", targets=(
    "onnxruntime: GemmActivationFusion (Gemm + Relu/LeakyRelu/HardSigmoid/... -> FusedGemm)",
    "OpenVINO: FullyConnected + activation fusion (CPU plugin)",
    "TVM: FuseOps (dense + bias_add + activation)",
))


def _gemm(activation, **attrs):
    return [helper.make_node("Gemm", ["a", "b", "c"], ["g"], **attrs), activation]


@FAMILY.example
def transposed_relu(t, rng):
    """Relu(0.5 * A^T B^T - 1.5 * C), A (K, M) and B (N, K) transposed, C a row (N,)."""
    alpha, beta = (0.5, -1.5) if t in FLOATS else (2.0, -1.0)
    return Graph(_gemm(helper.make_node("Relu", ["g"], ["y"]), transA=1, transB=1, alpha=alpha, beta=beta),
                 inputs={"a": quarters(t, rng, (5, 3))}, outputs=["y"],
                 weights={"b": quarters(t, rng, (4, 5)), "c": quarters(t, rng, (4,))})


@FAMILY.example
def column_bias_leaky(t, rng):
    """LeakyRelu(alpha 0.3) of A B + C, C of shape (M, 1): a column, not Gemm's usual row."""
    return Graph(_gemm(helper.make_node("LeakyRelu", ["g"], ["y"], alpha=0.3)),
                 inputs={"a": quarters(t, rng, (3, 4))}, outputs=["y"],
                 weights={"b": quarters(t, rng, (4, 5)), "c": quarters(t, rng, (3, 1), -8, 8)})


@FAMILY.example
def hard_sigmoid_params(t, rng):
    """HardSigmoid(alpha 0.3, beta 0.4) of A B^T + C: the activation's own attributes, not its defaults."""
    return Graph(_gemm(helper.make_node("HardSigmoid", ["g"], ["y"], alpha=0.3, beta=0.4), transB=1),
                 inputs={"a": quarters(t, rng, (4, 3), -2, 2)}, outputs=["y"],
                 weights={"b": quarters(t, rng, (6, 3), -2, 2), "c": quarters(t, rng, (6,), -2, 2)})


@FAMILY.example
def empty_inner(t, rng):
    """K = 0: A (3, 0) times B (0, 4) is zeros, so Y = Relu(beta * C) with beta -1 (C of shape (3, 4))."""
    return Graph(_gemm(helper.make_node("Relu", ["g"], ["y"]), beta=-1.0),
                 inputs={"a": quarters(t, rng, (3, 0))}, outputs=["y"],
                 weights={"b": quarters(t, rng, (0, 4)), "c": quarters(t, rng, (3, 4))})
