"""A multilayer perceptron: Gemm + Relu, MatMul + Add + Relu, a Gemm head with transB, Softmax.

The layers are the ones onnxruntime fuses (GemmActivationFusion, MatMulAddFusion), OpenVINO turns into
FullyConnected with a fused bias and activation, and the ONNX optimizer's fuse_matmul_add_bias_into_gemm
rewrites. `single_row` and `batch_of_five` are the serving shapes; `empty_batch` has no rows at all (every
layer must give a (0, n) result, Softmax over nothing included); `sequence_input` feeds a 3-D batch, so
the middle layers are MatMul + Add over a leading broadcast dimension, which Gemm cannot express and a
fusion into Gemm must not attempt."""

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily
from onnx_conformance.generators.models._weights import activations, bias, dense, node

FAMILY = GraphFamily("MLP", "model", targets=(
    "Gemm, MatMul, Add, Relu, Softmax",
    "onnxruntime: GemmActivationFusion, MatMulAddFusion; OpenVINO: FullyConnected + bias + activation",
    "ONNX optimizer: fuse_matmul_add_bias_into_gemm",
), types=FLOATS)

IN, HIDDEN, CLASSES = 6, 8, 4


def _weights(t, rng):
    return {"w1": dense(t, rng, (IN, HIDDEN)), "b1": bias(t, rng, (HIDDEN,)),
            "w2": dense(t, rng, (HIDDEN, HIDDEN)), "b2": bias(t, rng, (HIDDEN,)),
            "w3": dense(t, rng, (CLASSES, HIDDEN), fan_in=HIDDEN), "b3": bias(t, rng, (CLASSES,))}


def _mlp(t, rng, rows):
    """x (rows, 6) -> Gemm -> Relu -> MatMul -> Add -> Relu -> Gemm(transB) -> Softmax; logits and probabilities."""
    nodes = [node("Gemm", ["x", "w1", "b1"], ["h1"]), node("Relu", ["h1"], ["a1"]),
             node("MatMul", ["a1", "w2"], ["m2"]), node("Add", ["m2", "b2"], ["h2"]), node("Relu", ["h2"], ["a2"]),
             node("Gemm", ["a2", "w3", "b3"], ["logits"], transB=1), node("Softmax", ["logits"], ["probabilities"])]
    return Graph(nodes, inputs={"x": activations(t, rng, (rows, IN))}, outputs=["logits", "probabilities"],
                 weights=_weights(t, rng))


@FAMILY.example
def single_row(t, rng):
    return _mlp(t, rng, 1)


@FAMILY.example
def batch_of_five(t, rng):
    return _mlp(t, rng, 5)


@FAMILY.example
def empty_batch(t, rng):
    """No rows: (0, 6) in, (0, 4) out."""
    return _mlp(t, rng, 0)


@FAMILY.example
def sequence_input(t, rng):
    """x (2, 3, 6): every layer MatMul + Add over the leading dimension, Softmax over the last axis."""
    w = _weights(t, rng)
    w["w3t"] = w.pop("w3").T.copy()
    nodes = [node("MatMul", ["x", "w1"], ["m1"]), node("Add", ["m1", "b1"], ["h1"]), node("Relu", ["h1"], ["a1"]),
             node("MatMul", ["a1", "w2"], ["m2"]), node("Add", ["m2", "b2"], ["h2"]), node("Relu", ["h2"], ["a2"]),
             node("MatMul", ["a2", "w3t"], ["m3"]), node("Add", ["m3", "b3"], ["logits"]),
             node("Softmax", ["logits"], ["probabilities"], axis=-1)]
    return Graph(nodes, inputs={"x": activations(t, rng, (2, 3, IN))}, outputs=["logits", "probabilities"], weights=w)
