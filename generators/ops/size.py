"""Size: the input's number of elements as an int64 scalar."""

import math

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.movement import data

OPERATOR = Operator("Size", primary="T")


@OPERATOR.semantics
def size(v, attrs, inputs):
    """'a int64 scalar that equals to the total number of elements of the input tensor'."""
    return {"size": np.array(math.prod(np.shape(inputs["data"])), dtype=np.int64)}


def size_case(v, t, rng, shape):
    return OPERATOR.expect(v, {"data": data(t, shape, rng)})


@OPERATOR.example
def example(v, t, rng):
    return size_case(v, t, rng, (2, 3))


@OPERATOR.example(name="size")
def rank3(v, t, rng):
    return size_case(v, t, rng, (3, 4, 5))


@OPERATOR.example
def rank0(v, t, rng):
    return size_case(v, t, rng, ())


@OPERATOR.example
def zero_dim(v, t, rng):
    return size_case(v, t, rng, (2, 0, 3))


@OPERATOR.example
def odd(v, t, rng):
    return size_case(v, t, rng, (3, 5))
