"""NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: input of rank 2 to 5 ((N, C) and (N, C, d1, ...)), reduction none, sum or mean (stated or by default), an optional weight, ignore_index inside and outside [0, C) with targets equal to it, SoftmaxCrossEntropyLoss's log_prob asked or not.

Targets are drawn in [0, C) ('in range of [0, C)'), the ends first, and some set to ignore_index
where one is given and the target type holds it; a 'mean' whose every target is ignored (or weighted 0)
divides 0 by 0 and is discarded. The tolerance is the one generators/loss_family.py gives the
operator's examples (an accumulation over the terms summed, log_prob's own where it is asked for).
Values are finite and no larger than the normalization family's bound (norms.bounded): the oracle
reads each input as an exact fraction, which a NaN or an infinity has not, and the spec names no
precision for the sum, so an intermediate overflow of the terms is not drawn.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.harness.dtypes import numpy_of
from onnx_conformance.harness.strategies.common import Family, Probe, dims, shapes, tensors
from onnx_conformance.harness.strategies.indices import index_tensors
from onnx_conformance.harness.strategies.norms import bounded

LOSS_ELEMENTS = 1024  # the input's elements at most (SoftmaxCrossEntropyLoss: an mpmath exp and log each)
MAX_RANK = 5


class Losses(Family):
    name = "loss"
    operators = ("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss")

    def strategy(self, op, v, t):
        return _loss(op, v, t)

    def case(self, op, v, t, probe):
        from onnx_conformance.generators import loss_family as lf

        sce = op.name == "SoftmaxCrossEntropyLoss"
        x, target, weight = (probe.inputs.get(n) for n in (("scores", "labels", "weights") if sce else
                                                            ("input", "target", "weight")))
        reduction = probe.attrs.get("reduction", "mean")
        ignore_index = probe.attrs.get("ignore_index")
        lp = lf.log_softmax_axis1(x) if sce else None
        tol = lf.loss_tolerance(x, target, weight, reduction, ignore_index, log_prob=lp)
        # loss_family.log_prob_tolerance takes the scores' spread, which empty scores have not
        # None: a 'mean' over no weight taken, which the semantics call undefined below
        if tol is not None and sce and probe.outputs and len(probe.outputs) > 1 and x.size:
            lt = lf.log_prob_tolerance(t["T"], x)
            tol = {"ulp": max(tol["ulp"], lt["ulp"]), "atol": max(tol.get("atol", 0.0), lt["atol"])}
        return op.expect(v, probe.inputs, probe.attrs, outputs=probe.outputs, tolerance=tol)


@st.composite
def _loss(draw, op, v, t):
    n = draw(dims(64), label="N")
    c = draw(dims(max(1, LOSS_ELEMENTS // max(n, 1))).filter(bool), label="C")
    rest = draw(shapes(0, MAX_RANK - 2, max(1, LOSS_ELEMENTS // max(n * c, 1))), label="d1, ...")
    shape = (n, c, *rest)
    x = draw(tensors(t["T"], shape, elements=bounded(t["T"], specials=False)), label="input")
    target = draw(index_tensors((n, *rest), 0, c - 1, t["Tind"]), label="target")
    attrs = {}
    if draw(st.booleans(), label="give reduction"):
        attrs["reduction"] = draw(st.sampled_from(["mean", "none", "sum"]), label="reduction")
    if draw(st.booleans(), label="give ignore_index"):
        info = np.iinfo(numpy_of(t["Tind"]))
        ii = draw(st.sampled_from([0, c - 1, -1, -100, c, int(info.min), int(info.max)]), label="ignore_index")
        attrs["ignore_index"] = ii
        if target.size:  # targets equal to it: 'ignore_index: Specifies a target value that is ignored'
            flat = target.reshape(-1)
            for i in draw(st.lists(st.integers(0, target.size - 1), min_size=1, max_size=8), label="ignored targets"):
                flat[i] = ii
    sce = op.name == "SoftmaxCrossEntropyLoss"
    inputs = {"scores" if sce else "input": x, "labels" if sce else "target": target}
    if draw(st.booleans(), label="give weight"):
        w = draw(tensors(t["T"], (c,), operand=1, elements=bounded(t["T"], specials=False)), label="weight")
        if draw(st.booleans(), label="positive weight"):
            w = np.abs(w)
        inputs["weights" if sce else "weight"] = w
    outputs = None
    if sce:
        outputs = draw(st.sampled_from([["output"], ["output", "log_prob"]]), label="outputs")
    return Probe(inputs, attrs, outputs)
