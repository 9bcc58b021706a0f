"""GlobalAveragePool: the mean over all spatial positions of each (image, channel); exact mean rounded once."""

from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.case import Case, Operator
from onnx_conformance.generators.linalg_family import to_type
from onnx_conformance.generators.pool_family import average, documented, global_windows, random, with_infinities

OPERATOR = Operator("GlobalAveragePool")


def global_average_pool(v, t, x):
    shape, wins = global_windows(x)
    y, n, mag = average(x, shape, wins, 0)
    return Case({"X": x}, {"Y": to_type(y, t.dtype)}, tolerance=accumulation(t.dtype, n, float(mag)))


@OPERATOR.example
def default(v, t, rng):
    """onnx's test_globalaveragepool: (1, 3, 5, 5)."""
    return global_average_pool(v, t, random(t, (1, 3, 5, 5), rng))


@OPERATOR.example
def precomputed(v, t, rng):
    """onnx's test_globalaveragepool_precomputed."""
    return global_average_pool(v, t, documented(t, [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]))


@OPERATOR.example
def one_d(v, t, rng):
    return global_average_pool(v, t, random(t, (2, 3, 7), rng))


@OPERATOR.example
def three_d(v, t, rng):
    return global_average_pool(v, t, random(t, (1, 2, 3, 2, 4), rng))


@OPERATOR.example
def ieee_infinities(v, t, rng):
    """A channel with one infinity averages to it; one with +inf and -inf to NaN."""
    x = with_infinities(t, (1, 2, 2, 2), rng)  # +inf in channel 0, -inf in channel 1
    x2 = x.copy()
    x2[0, 0, 1, 1] = -x2[0, 0, 0, 0]
    return global_average_pool(v, t, x2)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^\S+ bfloat16: reference evaluator: output 0: .*max ulp \d+",
    "the evaluator sums bfloat16 in bfloat16 (one rounding per addition, large where the sum cancels); ours is "
    "the exact mean rounded once",
)
