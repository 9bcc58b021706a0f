"""Softmax written out, Exp(x) / ReduceSum(Exp(x)) and the stable form with the row's maximum
subtracted first, fused by OpenVINO's SoftmaxFusion (ReduceMax, Sub, Exp, ReduceSum, Div -> Softmax)
and by TVM and TensorRT into a softmax kernel. A Softmax operator normalises one axis; the chain may
normalise any axis, or several.

What each example catches: `naive_last_axis` (Exp, ReduceSum, Div over the last axis, |x| <= 8 so
Exp stays finite in float16) is the form without the maximum; `stable_middle_axis` subtracts the
maximum over axis 1 of (2, 5, 3), with logits to +-200 that only the stable form survives: a fusion
to Softmax over the last axis is wrong; `masked_rows` has -inf entries (masked, exp gives 0) and one
row all -inf, whose maximum is -inf, so x - max is NaN and the graph's row is NaN (a fused softmax
may return zeros or a uniform row); `two_axes` normalises over axes (1, 2) together, which no single
Softmax node of opset 13 and later expresses."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._fusion_data import fractional, quarters

FAMILY = GraphFamily("Softmax(decomposed)", "pattern", targets=(
    "OpenVINO: SoftmaxFusion (ReduceMax, Sub, Exp, ReduceSum, Div -> Softmax)",
    "TVM: FuseOps (exp, sum, divide); TensorRT: softmax fusion",
))

WHAT = "a softmax's exponentials and quotients"


def _chain(stable):
    head = ([helper.make_node("ReduceMax", ["x", "axes"], ["m"], keepdims=1),
             helper.make_node("Sub", ["x", "m"], ["z"])] if stable else [])
    return [*head, helper.make_node("Exp", ["z" if stable else "x"], ["e"]),
            helper.make_node("ReduceSum", ["e", "axes"], ["s"], keepdims=1), helper.make_node("Div", ["e", "s"], ["y"])]


def _graph(t, x, axes, stable):
    return fractional(t, WHAT) or Graph(_chain(stable), inputs={"x": x}, outputs=["y"],
                                        weights={"axes": np.array(axes, dtype=np.int64)})


@FAMILY.example
def naive_last_axis(t, rng):
    """Exp(x) / ReduceSum(Exp(x), -1) over (3, 6), x in [-8, 8]."""
    return _graph(t, quarters(t, rng, (3, 6), -8, 8), [-1], stable=False)


@FAMILY.example
def stable_middle_axis(t, rng):
    """The max-subtracted form over axis 1 of (2, 5, 3), logits in [-200, 200]."""
    return _graph(t, quarters(t, rng, (2, 5, 3), -200, 200), [1], stable=True)


@FAMILY.example
def masked_rows(t, rng):
    """The max-subtracted form over the last axis of (4, 5): -inf entries, row 3 all -inf."""
    if (na := fractional(t, WHAT)):
        return na
    x = quarters(t, rng, (4, 5), -4, 4)
    x[0, 1] = x[1, 0] = x[1, 4] = x[2, 2] = -np.inf
    x[3] = -np.inf
    return _graph(t, x, [-1], stable=True)


@FAMILY.example
def two_axes(t, rng):
    """The max-subtracted form over axes (1, 2) of (2, 3, 4) at once."""
    return _graph(t, quarters(t, rng, (2, 3, 4), -4, 4), [1, 2], stable=True)
