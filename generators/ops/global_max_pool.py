"""GlobalMaxPool: the largest element over all spatial positions of each (image, channel)."""

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.pool_family import documented, global_windows, maximum, pooled, random, with_infinities
from onnx_conformance.generators.semantics import Rejected

OPERATOR = Operator("GlobalMaxPool")


@OPERATOR.semantics
def global_max_pool(v, attrs, inputs):
    """The largest element over all spatial positions of each (image, channel); every spatial dimension
    of Y is 1. No version's text says what a NaN does: with no index output to name, the maximum is read
    as IEEE 754-2019's maximum, as Max and ReduceMax read it here (a channel holding NaN is NaN)."""
    x = inputs["X"]
    if x.ndim < 2:
        raise Rejected("X: '(N x C x H x W)' or '(N x C x D1 x D2 ... Dn)'")
    shape, wins = global_windows(x)
    y, _ = maximum(x, shape, wins, nan_propagates=True)
    return {"Y": pooled(y, x)}


def case(v, t, x):
    """The case: the semantics' Y, compared exactly (a maximum is one of X's values)."""
    return OPERATOR.expect(v, {"X": x}, tolerance={"ulp": 0})


@OPERATOR.example
def default(v, t, rng):
    """onnx's test_globalmaxpool: (1, 3, 5, 5)."""
    return case(v, t, random(t, (1, 3, 5, 5), rng))


@OPERATOR.example
def precomputed(v, t, rng):
    """onnx's test_globalmaxpool_precomputed."""
    return case(v, t, documented(t, [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]))


@OPERATOR.example
def one_d(v, t, rng):
    return case(v, t, random(t, (2, 3, 7), rng))


@OPERATOR.example
def three_d(v, t, rng):
    return case(v, t, random(t, (1, 2, 3, 2, 4), rng))


@OPERATOR.example
def ieee_infinities(v, t, rng):
    """+inf wins its channel; -inf loses."""
    return case(v, t, with_infinities(t, (1, 2, 2, 2), rng))


@OPERATOR.example
def negative_channel(v, t, rng):
    """Channel 0 holds negative values only (its maximum is below 0, not 0); channel 1 both signs."""
    x = random(t, (1, 2, 3, 3), rng).astype(np.float64)
    x[0, 0] = -np.abs(x[0, 0]) - 1
    return case(v, t, x.astype(t.np()))


@OPERATOR.example
def nan_beside_numbers(v, t, rng):
    """A NaN first, last and in the middle of a channel beside numbers (each such channel is NaN); the last
    channel has none."""
    x = random(t, (1, 4, 2, 2), rng).astype(np.float64)
    x[0, 0, 0, 0], x[0, 1, 1, 1], x[0, 2, 1, 0] = np.nan, np.nan, np.nan
    return case(v, t, x.astype(t.np()))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^(one_d|three_d) \S+: reference evaluator: output 0 shape",
    "the evaluator's GlobalMaxPool reduces the last two axes whatever the rank; the spec pools 'across the values "
    "in the same channel': every spatial axis becomes 1 (N x C x 1 for 1-D, N x C x 1 x 1 x 1 for 3-D)",
)
