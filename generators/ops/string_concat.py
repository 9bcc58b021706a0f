"""StringConcat: X's and Y's strings joined elementwise, "with NumPy-style broadcasting support"."""

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Case, Operator
from onnx_conformance.generators.string_family import strings

OPERATOR = Operator("StringConcat")


def concat(x, y):
    x, y = strings(x), strings(y)
    bx, by = np.broadcast_arrays(x, y)
    z = np.empty(bx.shape, dtype=object)
    for i in np.ndindex(*bx.shape):
        z[i] = bx[i] + by[i]
    return Case({"X": x, "Y": y}, {"Z": z})


@OPERATOR.example
def basic(v, t, rng):
    """onnx's test_string_concat."""
    return concat(["abc", "def"], [".com", ".net"])


@OPERATOR.example
def broadcasting(v, t, rng):
    return concat(["cat", "dog", "snake"], ["s"])


@OPERATOR.example
def zero_dimensional(v, t, rng):
    return concat("cat", "s")


@OPERATOR.example
def empty_string(v, t, rng):
    return concat(["abc", ""], ["", "abc"])


@OPERATOR.example
def utf8(v, t, rng):
    return concat(["的", "中"], ["的", "中"])


@OPERATOR.example
def broadcast_both(v, t, rng):
    """(3, 1) with (1, 4): each side stretched; the type's edge strings (empty, long, emoji, tab)."""
    x = values.sample("string", (3, 1), rng)
    y = values.sample("string", (1, 4), rng)
    return concat(x.tolist(), y.tolist())


@OPERATOR.example
def broadcast_rank(v, t, rng):
    """A lower-rank Y: (2, 2, 3) with (3,), and a scalar X with (2, 3)."""
    return concat(values.sample("string", (2, 2, 3), rng).tolist(), ["-a", "", "é"])


@OPERATOR.example
def scalar_with_tensor(v, t, rng):
    return concat("prefix:", values.sample("string", (2, 3), rng).tolist())


@OPERATOR.example
def empty_tensor(v, t, rng):
    """A (0, 3) X with a (3,) Y broadcasts to (0, 3)."""
    return concat(np.empty((0, 3), dtype=object), ["a", "b", "c"])

