"""Mutants of the losses: ignore_index not honoured, the sum for the default mean, and a weighted mean
divided by the count of samples instead of the sum of their weights."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import Mutant, default, ignored

FAMILY = "Losses"

IGNORE = "Specifies a target value that is ignored and does not contribute to the input gradient."


def _mean_over_count(call, x, target, *rest, **attrs):
    """The weighted mean divided by the number of (non-ignored) samples, not by the sum of their weights."""
    outs = call.run(x, target, *rest, **attrs)
    weight = rest[0] if rest else None
    reduction = attrs.get("reduction") or "mean"
    reduction = reduction.decode() if isinstance(reduction, bytes) else reduction
    if weight is None or reduction != "mean":
        return outs
    total = call.run(x, target, *rest, **{**attrs, "reduction": "sum"})[0]
    ignore = attrs.get("ignore_index")
    count = int(np.sum(target != ignore)) if ignore is not None else target.size
    if count == 0:
        return outs
    return ((np.asarray(total, np.float64) / count).astype(outs[0].dtype), *outs[1:])


MUTANTS = [
    Mutant("NegativeLogLikelihoodLoss.ignores_ignore_index", "NegativeLogLikelihoodLoss", "ignored attributes",
           IGNORE, ignored("ignore_index")),
    Mutant("NegativeLogLikelihoodLoss.sum_by_default", "NegativeLogLikelihoodLoss", "wrong defaults",
           "Type of reduction to apply to loss: none, sum, mean (default).", default("reduction", "sum")),
    Mutant("NegativeLogLikelihoodLoss.weighted_mean_over_count", "NegativeLogLikelihoodLoss", "ignored attributes",
           "'mean': the sum of the output will be divided by the sum of applied weights.", _mean_over_count),
    Mutant("SoftmaxCrossEntropyLoss.ignores_ignore_index", "SoftmaxCrossEntropyLoss", "ignored attributes",
           IGNORE, ignored("ignore_index")),
    Mutant("SoftmaxCrossEntropyLoss.sum_by_default", "SoftmaxCrossEntropyLoss", "wrong defaults",
           "Type of reduction to apply to loss: none, sum, mean(default).", default("reduction", "sum")),
    Mutant("SoftmaxCrossEntropyLoss.weighted_mean_over_count", "SoftmaxCrossEntropyLoss", "ignored attributes",
           "If reduction = 'mean', the output is scalar: ReduceMean(L), or if weight is provided: "
           "`ReduceSum(L) / ReduceSum(W)`", _mean_over_count),
]
