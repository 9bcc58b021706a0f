"""A transformer encoder layer written with opset 23's Attention operator: LayerNormalization, Q/K/V
projections (MatMul + Add) fed to Attention as 3-D tensors with q_num_heads and kv_num_heads, the output
projection and residual, then LayerNormalization, a Gelu MLP and a second residual.

What runtimes do with it: map Attention to their fused attention kernels (onnxruntime's CPU Attention,
OpenVINO's ScaledDotProductAttention), which must split the heads from the 3-D layout, apply the mask
and the causal rule, and share key/value heads. `plain` has two heads and no mask; `causal` sets
is_causal (query i sees keys 0..i); `bool_padding_mask` gives a boolean mask (B, 1, 1, S) hiding the
second sequence's last two keys; `grouped_query` has four query heads sharing two key/value heads
(K and V projected to half the width), as GQA models do."""

import numpy as np

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.models._weights import activations, bias, dense, node

FAMILY = GraphFamily("TransformerEncoder(Attention)", "model", targets=(
    "LayerNormalization, MatMul, Add, Attention (opset 23), Gelu",
    "onnxruntime: Attention CPU kernel, LayerNormFusion, SkipLayerNormFusion, BiasGeluFusion",
    "OpenVINO: ScaledDotProductAttention, MVN and GELU fusions",
), types=FLOATS, opset=23)

D, FF = 8, 16


def _encoder(t, rng, batch, seq, q_heads=2, kv_heads=2, mask=None, **attention):
    kv_width = D * kv_heads // q_heads
    w = {"wq": dense(t, rng, (D, D)), "bq": bias(t, rng, (D,)), "wk": dense(t, rng, (D, kv_width)),
         "bk": bias(t, rng, (kv_width,)), "wv": dense(t, rng, (D, kv_width)), "bv": bias(t, rng, (kv_width,)),
         "wo": dense(t, rng, (D, D)), "bo": bias(t, rng, (D,)),
         "ln1_scale": cast_to(rng.uniform(0.5, 1.5, size=D), t), "ln1_bias": bias(t, rng, (D,)),
         "ln2_scale": cast_to(rng.uniform(0.5, 1.5, size=D), t), "ln2_bias": bias(t, rng, (D,)),
         "w1": dense(t, rng, (D, FF)), "b1": bias(t, rng, (FF,)), "w2": dense(t, rng, (FF, D)),
         "b2": bias(t, rng, (D,))}

    def linear(x, name, out):
        return [node("MatMul", [x, f"w{name}"], [f"{out}_m"]), node("Add", [f"{out}_m", f"b{name}"], [out])]

    inputs = {"x": activations(t, rng, (batch, seq, D))}
    att_inputs = ["q", "k", "v"]
    if mask is not None:
        inputs["mask"] = mask
        att_inputs.append("mask")
    nodes = [node("LayerNormalization", ["x", "ln1_scale", "ln1_bias"], ["n1"], axis=-1),
             *linear("n1", "q", "q"), *linear("n1", "k", "k"), *linear("n1", "v", "v"),
             node("Attention", att_inputs, ["context"], q_num_heads=q_heads, kv_num_heads=kv_heads, **attention),
             *linear("context", "o", "attended"), node("Add", ["x", "attended"], ["h"]),
             node("LayerNormalization", ["h", "ln2_scale", "ln2_bias"], ["n2"], axis=-1),
             *linear("n2", "1", "up"), node("Gelu", ["up"], ["act"]), *linear("act", "2", "ff"),
             node("Add", ["h", "ff"], ["y"])]
    return Graph(nodes, inputs=inputs, outputs=["y"], weights=w)


@FAMILY.example
def plain(t, rng):
    """x (1, 4, 8), two heads of 4."""
    return _encoder(t, rng, 1, 4)


@FAMILY.example
def causal(t, rng):
    """is_causal = 1 over x (2, 3, 8)."""
    return _encoder(t, rng, 2, 3, is_causal=1)


@FAMILY.example
def bool_padding_mask(t, rng):
    """x (2, 3, 8) and a boolean mask (2, 1, 1, 3): the second sequence sees only its first key."""
    return _encoder(t, rng, 2, 3, mask=np.array([[[[True, True, True]]], [[[True, False, False]]]]))


@FAMILY.example
def grouped_query(t, rng):
    """Four query heads of 2 sharing two key/value heads: K and V are (1, 4, 4)."""
    return _encoder(t, rng, 1, 4, q_heads=4, kv_heads=2)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
FAMILY.reference_differs(r"^\w+ double: ",
                         "the evaluator runs Gelu's function body, whose constants (sqrt(2), sqrt(2/pi), 0.044715) are "
                         "float32 values cast to double; the formula's constants are exact")
FAMILY.reference_differs(r"^\w+ float16: .*max abs err 0\.00\d+ ",
                         "the evaluator computes Attention in float16: Q and K each scaled by sqrt(scale) rounded to "
                         "float16, scores and softmax rounded to float16; ours is Attention's exact result rounded "
                         "once (1.5e-3 apart in Attention's output, then magnified by the second LayerNormalization)")
