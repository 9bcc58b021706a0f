"""A mixture-of-experts layer: a gate (MatMul, Softmax), TopK choosing each token's experts, their weights
gathered (Gather) and applied (MatMul, Add, Relu), the chosen experts' outputs weighted by the gate and
summed.

What runtimes do with it: onnxruntime and OpenVINO run TopK, Gather of whole weight matrices and batched
MatMul over the gathered experts; onnxruntime's MoE contrib fusion targets exactly this routing. The
data are drawn so the chosen experts, and their order, are far from ties in every type: the expert ids
are an output, compared exactly. `top2_renormalized` is Mixtral's routing (two of four
experts, gate values renormalized to sum to 1); `top1_switch` is the Switch Transformer's (one expert,
weighted by its probability); `single_token` routes one token."""

import numpy as np

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.models._weights import activations, bias, dense, ints, node

FAMILY = GraphFamily("MixtureOfExperts", "model", targets=(
    "MatMul, Softmax, TopK, Gather, Unsqueeze, Squeeze, Add, Relu, Mul, Div, ReduceSum",
    "onnxruntime: MoE routing (TopK + Gather of expert weights), batched MatMul; OpenVINO: TopK, Gather, MatMul",
), types=FLOATS)

D, EXPERTS, H = 6, 4, 5


def _routed(t, rng, tokens, k):
    """x and the gate's weights, drawn again until each token's k + 1 largest logits are 0.5 apart or more:
    the chosen experts' probabilities then differ by a factor of e^0.5, far from a tie in float16."""
    while True:
        x, wg = activations(t, rng, (tokens, D)), dense(t, rng, (D, EXPERTS)) * cast_to(2.0, t)
        logits = -np.sort(-(x.astype(np.float64) @ wg.astype(np.float64)), axis=-1)[:, :k + 1]
        if (np.diff(-logits, axis=-1) >= 0.5).all():
            return x, wg


def _moe(t, rng, tokens, k, renormalize):
    x, wg = _routed(t, rng, tokens, k)
    w = {"wg": wg, "experts": dense(t, rng, (EXPERTS, D, H), fan_in=D),
         "expert_bias": bias(t, rng, (EXPERTS, H)), "k": ints([k]), "axes12": ints([1, 2]), "axis1": ints([1]),
         "axis2": ints([2])}
    nodes = [node("MatMul", ["x", "wg"], ["logits"]), node("Softmax", ["logits"], ["probabilities"], axis=-1),
             node("TopK", ["probabilities", "k"], ["top", "expert_ids"], axis=-1)]
    gates = "top"
    if renormalize:
        nodes += [node("ReduceSum", ["top", "axis1"], ["top_sum"], keepdims=1),
                  node("Div", ["top", "top_sum"], ["gate"])]
        gates = "gate"
    nodes += [node("Gather", ["experts", "expert_ids"], ["chosen"]),  # (tokens, k, D, H)
              node("Unsqueeze", ["x", "axes12"], ["x4"]),  # (tokens, 1, 1, D)
              node("MatMul", ["x4", "chosen"], ["expert_out4"]),  # (tokens, k, 1, H)
              node("Squeeze", ["expert_out4", "axis2"], ["expert_out"]),
              node("Gather", ["expert_bias", "expert_ids"], ["chosen_bias"]),
              node("Add", ["expert_out", "chosen_bias"], ["pre"]), node("Relu", ["pre"], ["activated"]),
              node("Unsqueeze", [gates, "axis2"], ["gate3"]), node("Mul", ["activated", "gate3"], ["weighted"]),
              node("ReduceSum", ["weighted", "axis1"], ["y"], keepdims=0)]
    return Graph(nodes, inputs={"x": x}, outputs=["y", "expert_ids"], weights=w)


@FAMILY.example
def top2_renormalized(t, rng):
    """x (4, 6): two of four experts per token, gate values renormalized."""
    return _moe(t, rng, 4, 2, True)


@FAMILY.example
def top1_switch(t, rng):
    """x (4, 6): one expert per token, weighted by its gate probability."""
    return _moe(t, rng, 4, 1, False)


@FAMILY.example
def single_token(t, rng):
    return _moe(t, rng, 1, 2, True)
