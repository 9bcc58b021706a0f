"""Where: elements from X where the condition holds, else from Y, all three broadcast numpy-style."""

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.movement import broadcast_shape, data

OPERATOR = Operator("Where", primary="T")

# Types that hold the documented numbers 1..9 exactly.
NUMERIC = ("uint", "int", "float", "double", "bfloat16", "complex")


def documented(t, values, rng):
    if t.dtype.startswith(NUMERIC):
        return np.array(values).astype(t.np())
    return data(t, np.shape(values), rng)


@OPERATOR.semantics
def where(v, attrs, inputs):
    """X where the condition holds, else Y, the three broadcast 'multidirectional (i.e., Numpy-style)'."""
    cond, x, y = inputs["condition"], inputs["X"], inputs["Y"]
    broadcast_shape([cond.shape, x.shape, y.shape], v.sentence(r"multidirectional"))
    # numpy.where is what the schema says Where behaves like; it indexes the inputs' own elements.
    return {"output": np.where(cond, x, y).astype(x.dtype)}


def case(v, cond, x, y):
    return OPERATOR.expect(v, {"condition": cond, "X": x, "Y": y})


def condition(shape, rng):
    return rng.integers(0, 2, size=shape).astype(bool)


@OPERATOR.example
def example(v, t, rng):
    cond = np.array([[1, 0], [1, 1]], dtype=bool)
    return case(v, cond, documented(t, [[1, 2], [3, 4]], rng), documented(t, [[9, 8], [7, 6]], rng))


@OPERATOR.example
def broadcast(v, t, rng):
    """Each input is broadcast along some axis; the condition has a lower rank; 45 elements (odd)."""
    cond = condition((3, 1), rng)
    return case(v, cond, data(t, (3, 1, 5), rng), data(t, (1, 3, 5), rng))


@OPERATOR.example
def broadcast_rank8(v, t, rng):
    """Rank 8 with the 1-sized dimensions in different places for each input."""
    cond = condition((2, 1, 3, 1, 1, 1, 1, 2), rng)
    x = data(t, (1, 1, 3, 1, 1, 1, 2, 1), rng)
    y = data(t, (2, 1, 1, 1, 1, 1, 2, 2), rng)
    return case(v, cond, x, y)


@OPERATOR.example
def rank0_condition(v, t, rng):
    """A scalar True condition selects X everywhere, X broadcast to Y's shape."""
    return case(v, np.array(True), data(t, (5,), rng), data(t, (3, 5), rng))


@OPERATOR.example
def scalars(v, t, rng):
    return case(v, np.array(False), data(t, (), rng), data(t, (), rng))


@OPERATOR.example
def empty(v, t, rng):
    """A zero dimension in the condition broadcasts against 1-sized ones."""
    return case(v, condition((0, 3), rng), data(t, (1, 3), rng), data(t, (0, 1), rng))
