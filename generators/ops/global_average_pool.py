"""GlobalAveragePool: the mean over all spatial positions of each (image, channel); exact mean rounded once."""

from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.pool_family import average, documented, global_windows, pooled, random, with_infinities
from onnx_conformance.generators.semantics import Rejected

OPERATOR = Operator("GlobalAveragePool")


@OPERATOR.semantics
def global_average_pool(v, attrs, inputs):
    """The mean over all spatial positions of each (image, channel), exact and rounded once to T;
    every spatial dimension of Y is 1."""
    x = inputs["X"]
    if x.ndim < 2:
        raise Rejected("X: '(N x C x H x W)' or '(N x C x D1 x D2 ... Dn)'")
    shape, wins = global_windows(x)
    y, _, _ = average(x, shape, wins, 0)
    return {"Y": pooled(y, x)}


def case(v, t, x):
    """The case: the semantics' Y, the accumulation tolerance of this data."""
    shape, wins = global_windows(x)
    _, n, mag = average(x, shape, wins, 0)
    return OPERATOR.expect(v, {"X": x}, tolerance=accumulation(t.dtype, n, float(mag)))


@OPERATOR.example
def default(v, t, rng):
    """onnx's test_globalaveragepool: (1, 3, 5, 5)."""
    return case(v, t, random(t, (1, 3, 5, 5), rng))


@OPERATOR.example
def precomputed(v, t, rng):
    """onnx's test_globalaveragepool_precomputed."""
    return case(v, t, documented(t, [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]))


@OPERATOR.example
def one_d(v, t, rng):
    return case(v, t, random(t, (2, 3, 7), rng))


@OPERATOR.example
def three_d(v, t, rng):
    return case(v, t, random(t, (1, 2, 3, 2, 4), rng))


@OPERATOR.example
def ieee_infinities(v, t, rng):
    """A channel with one infinity averages to it; one with +inf and -inf to NaN."""
    x = with_infinities(t, (1, 2, 2, 2), rng)  # +inf in channel 0, -inf in channel 1
    x2 = x.copy()
    x2[0, 0, 1, 1] = -x2[0, 0, 0, 0]
    return case(v, t, x2)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^\S+ bfloat16: reference evaluator: output 0: .*max ulp \d+",
    "the evaluator sums bfloat16 in bfloat16 (one rounding per addition, large where the sum cancels); ours is "
    "the exact mean rounded once",
)
