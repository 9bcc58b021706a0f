"""Transpose: the axes of a tensor permuted, reversed by default."""

import itertools

import numpy as np

from onnx_conformance.generators.case import Case, Operator
from onnx_conformance.generators.movement import data

OPERATOR = Operator("Transpose")

SHAPE = (2, 3, 4)


def transposed(x, perm=None):
    y = np.transpose(x) if perm is None else np.transpose(x, perm)
    return Case({"data": x}, {"transposed": y}, {} if perm is None else {"perm": list(perm)})


@OPERATOR.example
def default(v, t, rng):
    return transposed(data(t, SHAPE, rng))


def permutation_example(perm):
    def example(v, t, rng):
        return transposed(data(t, SHAPE, rng), perm)
    return example


for _k, _perm in enumerate(itertools.permutations(range(len(SHAPE)))):
    OPERATOR.example(permutation_example(_perm), name=f"all_permutations_{_k}")


@OPERATOR.example
def odd_elements(v, t, rng):
    """15 elements: sub-byte types end on a half-filled byte."""
    return transposed(data(t, (3, 1, 5), rng), (2, 0, 1))


@OPERATOR.example
def empty(v, t, rng):
    return transposed(data(t, (2, 0, 3), rng), (1, 2, 0))


@OPERATOR.example
def rank0(v, t, rng):
    """'A 0-D or 1-D input is valid; in those cases the output has the same shape as the input.'"""
    return transposed(data(t, (), rng))
