"""Mean: the inputs' sum divided by their number elementwise, exact and rounded once, with broadcasting from version 8."""

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.arithmetic_family import (
    Variadic,
    exact_sum,
    finite_sum,
    positive,
    variadic_examples,
)
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Mean")


def mean(xs):
    s = exact_sum(xs)
    return s / len(xs)


# A runtime sums, then divides: several roundings.
variadic_examples(OPERATOR, Variadic(mean, "mean", ([3, 0, 2], [1, 3, 4], [2, 6, 6]),
                                     lambda t, n: budget("composite", t.dtype), keep=finite_sum, draw=positive))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(r"^bcast.*non-broadcastable output operand",
                           "the evaluator accumulates in place into the first input's shape, which cannot hold the broadcast result")
