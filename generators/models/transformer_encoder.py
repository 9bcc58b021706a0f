"""A transformer encoder layer as exporters write it: LayerNormalization, Q/K/V projections (MatMul + Add),
heads split by Reshape + Transpose, scaled scores (MatMul, Mul), an additive mask, Softmax, the context
merged back (MatMul, Transpose, Reshape), the output projection and a residual Add; then LayerNormalization,
a Gelu MLP and a second residual.

What optimizers do to it: onnxruntime's AttentionFusion / MultiHeadAttention fusion, LayerNormFusion and
SkipLayerNormFusion (Add + LayerNormalization), BiasGeluFusion (Add + Gelu) and MatMul + Add fusions;
OpenVINO's SDPA fusion, MVN and GELU fusions; TensorRT's MHA plugins. `pre_norm` is the GPT-style layer
(normalize, then attend); `post_norm` is BERT's (attend, add, then normalize) with the tanh Gelu;
`padding_mask` has a batch of two whose second sequence is padded: the mask adds -inf to the padded
keys, so a fused kernel that drops or misbroadcasts the mask attends to them; `single_token` has a
sequence of one, where Softmax over one key is exactly 1."""

import numpy as np

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.models._weights import activations, bias, dense, ints, node

FAMILY = GraphFamily("TransformerEncoder", "model", targets=(
    "LayerNormalization, MatMul, Add, Reshape, Transpose, Mul, Softmax, Gelu",
    "onnxruntime: AttentionFusion, LayerNormFusion, SkipLayerNormFusion, BiasGeluFusion, MatMulAddFusion",
    "OpenVINO: SDPA fusion, MVN fusion, GELU fusion; TensorRT: MHA fusion",
), types=FLOATS)

D, HEADS, FF = 8, 2, 16
HEAD = D // HEADS


def _weights(t, rng):
    w = {}
    for name in ("q", "k", "v", "o"):
        w[f"w{name}"], w[f"b{name}"] = dense(t, rng, (D, D)), bias(t, rng, (D,))
    w.update({"ln1_scale": cast_to(rng.uniform(0.5, 1.5, size=D), t), "ln1_bias": bias(t, rng, (D,)),
              "ln2_scale": cast_to(rng.uniform(0.5, 1.5, size=D), t), "ln2_bias": bias(t, rng, (D,)),
              "w1": dense(t, rng, (D, FF)), "b1": bias(t, rng, (FF,)), "w2": dense(t, rng, (FF, D)),
              "b2": bias(t, rng, (D,)), "heads_shape": ints([0, 0, HEADS, HEAD]), "merged_shape": ints([0, 0, D]),
              "scale": cast_to(1 / np.sqrt(HEAD), t)})
    return w


def _linear(x, name, out):
    return [node("MatMul", [x, f"w{name}"], [f"{out}_m"]), node("Add", [f"{out}_m", f"b{name}"], [out])]


def _attention(x, out):
    """Multi-head self-attention of x (B, S, D) with the additive mask (B, 1, 1, S)."""
    nodes = _linear(x, "q", "q") + _linear(x, "k", "k") + _linear(x, "v", "v")
    for name, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        nodes += [node("Reshape", [name, "heads_shape"], [f"{name}_split"]),
                  node("Transpose", [f"{name}_split"], [f"{name}_heads"], perm=perm)]
    nodes += [node("MatMul", ["q_heads", "k_heads"], ["scores"]), node("Mul", ["scores", "scale"], ["scaled"]),
              node("Add", ["scaled", "mask"], ["masked"]), node("Softmax", ["masked"], ["weights"], axis=-1),
              node("MatMul", ["weights", "v_heads"], ["context"]),
              node("Transpose", ["context"], ["context_t"], perm=[0, 2, 1, 3]),
              node("Reshape", ["context_t", "merged_shape"], ["merged"])]
    return nodes + _linear("merged", "o", out)


def _mlp(x, out, approximate):
    return _linear(x, "1", "up") + [node("Gelu", ["up"], ["act"], approximate=approximate)] + _linear("act", "2", out)


def _layer_norm(x, which, out):
    return node("LayerNormalization", [x, f"ln{which}_scale", f"ln{which}_bias"], [out], axis=-1, epsilon=1e-5)


def _encoder(t, rng, batch, seq, pre_norm=True, approximate="none", lengths=None):
    w = _weights(t, rng)
    lengths = lengths or [seq] * batch
    mask = np.zeros((batch, 1, 1, seq))
    for b, n in enumerate(lengths):
        mask[b, ..., n:] = -np.inf
    inputs = {"x": activations(t, rng, (batch, seq, D)), "mask": cast_to(mask, t)}
    if pre_norm:
        nodes = [_layer_norm("x", 1, "n1"), *_attention("n1", "attended"), node("Add", ["x", "attended"], ["h"]),
                 _layer_norm("h", 2, "n2"), *_mlp("n2", "ff", approximate), node("Add", ["h", "ff"], ["y"])]
    else:
        nodes = [*_attention("x", "attended"), node("Add", ["x", "attended"], ["h0"]), _layer_norm("h0", 1, "h"),
                 *_mlp("h", "ff", approximate), node("Add", ["h", "ff"], ["y0"]), _layer_norm("y0", 2, "y")]
    return Graph(nodes, inputs=inputs, outputs=["y"], weights=w)


@FAMILY.example
def pre_norm(t, rng):
    """x (1, 4, 8), two heads of 4, erf Gelu, no masked key."""
    return _encoder(t, rng, 1, 4)


@FAMILY.example
def post_norm(t, rng):
    """BERT's order (LayerNormalization after each residual), tanh Gelu."""
    return _encoder(t, rng, 1, 4, pre_norm=False, approximate="tanh")


@FAMILY.example
def padding_mask(t, rng):
    """x (2, 3, 8); the second sequence has one real token, its other two keys masked with -inf."""
    return _encoder(t, rng, 2, 3, lengths=[3, 1])


@FAMILY.example
def single_token(t, rng):
    """x (2, 1, 8): one key per query."""
    return _encoder(t, rng, 2, 1)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
FAMILY.reference_differs(r"^\w+ double: ",
                         "the evaluator runs Gelu's function body, whose constants (sqrt(2), sqrt(2/pi), 0.044715) are "
                         "float32 values cast to double; the formula's constants are exact")
