"""Max: the largest of the inputs elementwise (NaN propagates), with broadcasting from version 8."""

from onnx_conformance.generators.arithmetic_family import Variadic, largest, tol_exact, variadic_examples
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("Max")

variadic_examples(OPERATOR, Variadic(lambda xs: largest(xs, max), "max", ([3, 2, 1], [1, 4, 4], [2, 5, 3]),
                                     lambda t, n: tol_exact(t.dtype)))
