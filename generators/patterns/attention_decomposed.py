"""Scaled dot-product attention written out, Softmax(Q K^T * scale + mask) V, as exporters emit it:
fused by OpenVINO's SDPAFusion into ScaledDotProductAttention, by TensorRT's MHA fusion, by
onnxruntime's attention fusions (AttentionFusion for the whole BERT block; on this core
MatMulScaleFusion folds the scale and MatmulTransposeFusion the transpose into com.microsoft
FusedMatMul).

What each example catches (Q, K, V of shape (B, H, S, D) = (2, 2, 3, 4)): `div_scale_padding_mask`
divides by sqrt(D) = 2 and adds a padding mask of shape (B, 1, 1, S) with -10000 (broadcast over
heads and queries): a fusion that broadcasts the mask along the wrong axis is off;
`scale_on_query_causal` scales Q by 0.5 before the product and adds a causal (1, 1, S, S) mask with
-inf above the diagonal; `softmax_over_queries` takes Softmax over axis -2 (the queries), which is
not attention: an SDPA fusion that ignores the axis is wrong; `fully_masked_row` scales both Q and K
by 1/sqrt(sqrt(D)) and masks one query row entirely with -inf: the graph's Softmax of an all -inf row
is NaN, and so is that row of the output (a flash-style kernel may return zeros)."""

import math

import numpy as np
from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import fractional, quarters

FAMILY = GraphFamily("Attention(decomposed)", "pattern", targets=(
    "OpenVINO: SDPAFusion (-> ScaledDotProductAttention)",
    "onnxruntime: AttentionFusion, MatMulScaleFusion, MatmulTransposeFusion (-> FusedMatMul)",
    "TensorRT: multi-head attention fusion",
))

SHAPE = (2, 2, 3, 4)
WHAT = "Softmax's values"


def _qkv(t, rng):
    return {name: quarters(t, rng, SHAPE, -2, 2) for name in ("q", "k", "v")}


def _tail(scores, axis=-1):
    return [helper.make_node("Add", [scores, "mask"], ["masked"]),
            helper.make_node("Softmax", ["masked"], ["p"], axis=axis),
            helper.make_node("MatMul", ["p", "v"], ["y"])]


def _kt(k="k"):
    return helper.make_node("Transpose", [k], ["kt"], perm=[0, 1, 3, 2])


def _causal(t):
    m = np.triu(np.full((SHAPE[2], SHAPE[2]), -np.inf), 1)
    return cast_to(np.where(np.isinf(m), m, 0.0).reshape(1, 1, SHAPE[2], SHAPE[2]), t)


@FAMILY.example
def div_scale_padding_mask(t, rng):
    """Q K^T / 2, + mask (2, 1, 1, 3) of 0 and -10000, Softmax(-1), @ V."""
    if (na := fractional(t, WHAT)):
        return na
    mask = cast_to([[[[0.0, 0.0, -10000.0]]], [[[0.0, -10000.0, -10000.0]]]], t)
    nodes = [_kt(), helper.make_node("MatMul", ["q", "kt"], ["qk"]), helper.make_node("Div", ["qk", "root_d"], ["s"]),
             *_tail("s")]
    return Graph(nodes, inputs=_qkv(t, rng), outputs=["y"], weights={"root_d": cast_to(2.0, t), "mask": mask})


@FAMILY.example
def scale_on_query_causal(t, rng):
    """(Q * 0.5) K^T, + causal mask (1, 1, 3, 3) of 0 and -inf, Softmax(-1), @ V."""
    if (na := fractional(t, WHAT)):
        return na
    nodes = [helper.make_node("Mul", ["q", "scale"], ["qs"]), _kt(), helper.make_node("MatMul", ["qs", "kt"], ["s"]),
             *_tail("s")]
    return Graph(nodes, inputs=_qkv(t, rng), outputs=["y"], weights={"scale": cast_to(0.5, t), "mask": _causal(t)})


@FAMILY.example
def softmax_over_queries(t, rng):
    """As scale_on_query_causal without the -inf (mask 0 and -4), Softmax over axis -2."""
    if (na := fractional(t, WHAT)):
        return na
    mask = cast_to(np.triu(np.full((SHAPE[2], SHAPE[2]), -4.0), 1).reshape(1, 1, SHAPE[2], SHAPE[2]), t)
    nodes = [helper.make_node("Mul", ["q", "scale"], ["qs"]), _kt(), helper.make_node("MatMul", ["qs", "kt"], ["s"]),
             *_tail("s", axis=-2)]
    return Graph(nodes, inputs=_qkv(t, rng), outputs=["y"], weights={"scale": cast_to(0.5, t), "mask": mask})


@FAMILY.example
def fully_masked_row(t, rng):
    """(Q * d^-1/4) (K * d^-1/4)^T, + mask (1, 1, 3, 3) whose query row 1 is all -inf."""
    if (na := fractional(t, WHAT)):
        return na
    mask = np.zeros((1, 1, SHAPE[2], SHAPE[2]))
    mask[0, 0, 1] = -np.inf
    mask[0, 0, 2, 0] = -np.inf
    nodes = [helper.make_node("Mul", ["q", "scale"], ["qs"]), helper.make_node("Mul", ["k", "scale"], ["ks"]),
             _kt("ks"), helper.make_node("MatMul", ["qs", "kt"], ["s"]), *_tail("s")]
    return Graph(nodes, inputs=_qkv(t, rng), outputs=["y"],
                 weights={"scale": cast_to(1 / math.sqrt(math.sqrt(SHAPE[3])), t), "mask": cast_to(mask, t)})
