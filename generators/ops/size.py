"""Size: the input's number of elements as an int64 scalar."""

import math

import numpy as np

from onnx_conformance.generators.case import Case, Operator
from onnx_conformance.generators.movement import data

OPERATOR = Operator("Size", primary="T")


def size_case(t, rng, shape):
    return Case({"data": data(t, shape, rng)}, {"size": np.array(math.prod(shape), dtype=np.int64)})


@OPERATOR.example
def example(v, t, rng):
    return size_case(t, rng, (2, 3))


@OPERATOR.example
def size(v, t, rng):
    return size_case(t, rng, (3, 4, 5))


@OPERATOR.example
def rank0(v, t, rng):
    return size_case(t, rng, ())


@OPERATOR.example
def zero_dim(v, t, rng):
    return size_case(t, rng, (2, 0, 3))


@OPERATOR.example
def odd(v, t, rng):
    return size_case(t, rng, (3, 5))
