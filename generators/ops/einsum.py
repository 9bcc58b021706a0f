"""Einsum: the Einstein summation the equation writes, over one or more operands."""

import re

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.linalg_family import einsum, operand, rounded, tolerance
from onnx_conformance.generators.semantics import Rejected, Undefined
from onnx_conformance.generators.slice_family import variadic
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("Einsum")


@OPERATOR.semantics
def summation(v, attrs, inputs):
    """Output[output-term] = the sum over the indices not in the output-term of the product of the
    operands at their terms (implicit output: the letters appearing once, in ASCII order; '...'
    broadcasting); exact, rounded once to the operands' type."""
    xs, equation = inputs["Inputs"], attrs["equation"]
    if not re.fullmatch(r"[A-Za-z,. ]*(->[A-Za-z. ]*)?", equation):
        raise Rejected(v.sentence(r"comma-separated sequence of lower case letters"))
    terms = equation.replace(" ", "").split("->")[0].split(",")
    rule = v.sentence(r"Each term corresponds to an operand tensor")
    if len(terms) != len(xs):
        raise Rejected(rule)
    sizes = {}
    for term, x in zip(terms, xs):
        for letter, size in letter_sizes(term, x.shape).items():
            sizes.setdefault(letter, set()).add(size)
    if any(len(s - {1}) > 1 for s in sizes.values()):
        raise Rejected(f"{rule} (a letter names dimensions of different sizes)")
    if any(len(s) > 1 for s in sizes.values()):
        raise Undefined("a letter names dimensions of size 1 and n: numpy broadcasts them, the spec "
                        "broadcasts only the ellipsis")
    try:
        y = einsum(equation, *xs)
    except ValueError as e:  # a term's letters and its operand's dimensions disagree
        raise Rejected(f"{v.sentence(r'Each term corresponds to an operand tensor')} ({e})")
    return {"Output": rounded(y, name_of_numpy(xs[0].dtype))}


def letter_sizes(term: str, shape) -> dict:
    """Each letter of one operand's term and the size of the dimension it names ('...' names the
    dimensions its neighbours leave)."""
    head, _, tail = term.partition("...")
    named = list(head) + [None] * (len(shape) - len(head) - len(tail)) + list(tail) if "..." in term else list(term)
    return {letter: size for letter, size in zip(named, shape) if letter}


def case(v, t, equation, xs):
    return OPERATOR.expect(v, variadic("Inputs", xs), {"equation": equation}, tolerance=tolerance(t))


def documented(equation, *shapes):
    """onnx's test_einsum_* equations and shapes; small integers and non-negative floats keep every
    sum inside int8 and free of cancellation."""
    return lambda v, t, rng: case(v, t, equation, [operand(t, s, rng, low=-3, high=3) for s in shapes])


OPERATOR.example(documented("ij->ji", (3, 4)), name="transpose")
OPERATOR.example(documented("ij->i", (3, 4)), name="sum")
OPERATOR.example(documented("...ii ->...i", (3, 5, 5)), name="batch_diagonal")
OPERATOR.example(documented("i,i", (5,), (5,)), name="inner_prod")
OPERATOR.example(documented("bij, bjk -> bik", (5, 2, 3), (5, 3, 4)), name="batch_matmul")
# Implicit output: the letters appearing once, sorted (upper case before lower case).
OPERATOR.example(documented("kB,Ak", (3, 2), (4, 3)), name="implicit_sorted_output")


@OPERATOR.example
def scalar(v, t, rng):
    return case(v, t, "->", [np.array(5).astype(t.np())])
