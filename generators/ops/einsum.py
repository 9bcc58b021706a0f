"""Einsum: the Einstein summation the equation writes, over one or more operands."""

import numpy as np

from onnx_conformance.generators.case import Case, Operator
from onnx_conformance.generators.linalg_family import einsum, operand, to_type, tolerance
from onnx_conformance.generators.slice_family import variadic

OPERATOR = Operator("Einsum")


def case(t, equation, xs):
    y = to_type(einsum(equation, *xs), t.dtype)
    return Case(variadic("Inputs", xs), {"Output": y}, {"equation": equation}, tolerance=tolerance(t))


def documented(equation, *shapes):
    """onnx's test_einsum_* equations and shapes; small integers and non-negative floats keep every
    sum inside int8 and free of cancellation."""
    return lambda v, t, rng: case(t, equation, [operand(t, s, rng, low=-3, high=3) for s in shapes])


OPERATOR.example(documented("ij->ji", (3, 4)), name="transpose")
OPERATOR.example(documented("ij->i", (3, 4)), name="sum")
OPERATOR.example(documented("...ii ->...i", (3, 5, 5)), name="batch_diagonal")
OPERATOR.example(documented("i,i", (5,), (5,)), name="inner_prod")
OPERATOR.example(documented("bij, bjk -> bik", (5, 2, 3), (5, 3, 4)), name="batch_matmul")
# Implicit output: the letters appearing once, sorted (upper case before lower case).
OPERATOR.example(documented("kB,Ak", (3, 2), (4, 3)), name="implicit_sorted_output")


@OPERATOR.example
def scalar(v, t, rng):
    return case(t, "->", [np.array(5).astype(t.np())])
