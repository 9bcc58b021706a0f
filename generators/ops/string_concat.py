"""StringConcat: X's and Y's strings joined elementwise, "with NumPy-style broadcasting support"."""

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.generators.string_family import strings

OPERATOR = Operator("StringConcat")


@OPERATOR.semantics
def string_concat(v, attrs, inputs):
    """Z = X + Y elementwise, 'with NumPy-style broadcasting support'; shapes that do not broadcast are rejected."""
    x, y = inputs["X"], inputs["Y"]
    try:
        bx, by = np.broadcast_arrays(x, y)
    except ValueError:
        raise Rejected(f"{v.doc} (shapes {x.shape} and {y.shape} do not broadcast)") from None
    z = np.empty(bx.shape, dtype=object)
    for i in np.ndindex(*bx.shape):
        z[i] = bx[i] + by[i]
    return {"Z": z}


def concat(v, x, y):
    return OPERATOR.expect(v, {"X": strings(x), "Y": strings(y)})


@OPERATOR.example
def basic(v, t, rng):
    """onnx's test_string_concat."""
    return concat(v, ["abc", "def"], [".com", ".net"])


@OPERATOR.example
def broadcasting(v, t, rng):
    return concat(v, ["cat", "dog", "snake"], ["s"])


@OPERATOR.example
def zero_dimensional(v, t, rng):
    return concat(v, "cat", "s")


@OPERATOR.example
def empty_string(v, t, rng):
    return concat(v, ["abc", ""], ["", "abc"])


@OPERATOR.example
def utf8(v, t, rng):
    return concat(v, ["的", "中"], ["的", "中"])


@OPERATOR.example
def broadcast_both(v, t, rng):
    """(3, 1) with (1, 4): each side stretched; the type's edge strings (empty, long, emoji, tab)."""
    x = values.sample("string", (3, 1), rng)
    y = values.sample("string", (1, 4), rng)
    return concat(v, x.tolist(), y.tolist())


@OPERATOR.example
def broadcast_rank(v, t, rng):
    """A lower-rank Y: (2, 2, 3) with (3,), and a scalar X with (2, 3)."""
    return concat(v, values.sample("string", (2, 2, 3), rng).tolist(), ["-a", "", "é"])


@OPERATOR.example
def scalar_with_tensor(v, t, rng):
    return concat(v, "prefix:", values.sample("string", (2, 3), rng).tolist())


@OPERATOR.example
def empty_tensor(v, t, rng):
    """A (0, 3) X with a (3,) Y broadcasts to (0, 3)."""
    return concat(v, np.empty((0, 3), dtype=object), ["a", "b", "c"])

