"""Sum: the inputs added elementwise, exact and rounded once, with broadcasting from version 8."""

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.arithmetic_family import (
    EXACT,
    Variadic,
    exact_sum,
    finite_sum,
    positive,
    variadic_examples,
)
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Sum")


def tolerance(t, n):
    """One or two inputs: one IEEE addition, exact; three: a runtime rounds twice."""
    return EXACT if n <= 2 else budget("composite", t.dtype)


variadic_examples(OPERATOR, Variadic(exact_sum, "sum", ([3, 0, 2], [1, 3, 4], [2, 6, 6]), tolerance,
                                     keep=finite_sum, draw=positive))
