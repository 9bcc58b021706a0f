"""Transpose: the axes of a tensor permuted, reversed by default."""

import itertools

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import Rejected, attr

OPERATOR = Operator("Transpose")

SHAPE = (2, 3, 4)


@OPERATOR.semantics
def transpose(v, attrs, inputs):
    """'Axis `i` of the output tensor corresponds to axis `perm[i]` of the input tensor'; perm defaults to
    (n-1, ..., 0) and 'must contain each axis index in `[0, n-1]` exactly once'."""
    x = inputs["data"]
    perm = attr(attrs, "perm", list(range(x.ndim))[::-1])
    if sorted(int(p) for p in perm) != list(range(x.ndim)):
        raise Rejected(v.sentence(r"`perm` must contain each axis index"))
    return {"transposed": np.transpose(x, [int(p) for p in perm])}


def transposed(v, x, perm=None):
    return OPERATOR.expect(v, {"data": x}, {} if perm is None else {"perm": list(perm)})


@OPERATOR.example
def default(v, t, rng):
    return transposed(v, data(t, SHAPE, rng))


def permutation_example(perm):
    def example(v, t, rng):
        return transposed(v, data(t, SHAPE, rng), perm)
    return example


for _k, _perm in enumerate(itertools.permutations(range(len(SHAPE)))):
    OPERATOR.example(permutation_example(_perm), name=f"all_permutations_{_k}")


@OPERATOR.example
def odd_elements(v, t, rng):
    """15 elements: sub-byte types end on a half-filled byte."""
    return transposed(v, data(t, (3, 1, 5), rng), (2, 0, 1))


@OPERATOR.example
def empty(v, t, rng):
    return transposed(v, data(t, (2, 0, 3), rng), (1, 2, 0))


@OPERATOR.example
def rank0(v, t, rng):
    """'A 0-D or 1-D input is valid; in those cases the output has the same shape as the input.'"""
    return transposed(v, data(t, (), rng))
