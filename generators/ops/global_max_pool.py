"""GlobalMaxPool: the largest element over all spatial positions of each (image, channel)."""

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.pool_family import documented, global_windows, maximum, pooled, random, with_infinities
from onnx_conformance.generators.semantics import Rejected

OPERATOR = Operator("GlobalMaxPool")


@OPERATOR.semantics
def global_max_pool(v, attrs, inputs):
    """The largest element over all spatial positions of each (image, channel); every spatial dimension
    of Y is 1 (a NaN has no rank: Undefined)."""
    x = inputs["X"]
    if x.ndim < 2:
        raise Rejected("X: '(N x C x H x W)' or '(N x C x D1 x D2 ... Dn)'")
    shape, wins = global_windows(x)
    y, _ = maximum(x, shape, wins)
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
    """+inf wins its channel; -inf loses (no NaN: the spec does not rank it)."""
    return case(v, t, with_infinities(t, (1, 2, 2, 2), rng))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^(one_d|three_d) \S+: reference evaluator: output 0 shape",
    "the evaluator's GlobalMaxPool reduces the last two axes whatever the rank; the spec pools 'across the values "
    "in the same channel': every spatial axis becomes 1 (N x C x 1 for 1-D, N x C x 1 x 1 x 1 for 3-D)",
)
