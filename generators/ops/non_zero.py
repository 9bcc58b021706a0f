"""NonZero: the indices of the non-zero elements, one row per dimension, in row-major order."""

import numpy as np

from onnx_conformance.generators.case import Operator, type_of
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.values import is_float

OPERATOR = Operator("NonZero", primary="T")


def nonzero_mask(x: np.ndarray, type_name: str) -> np.ndarray:
    """Which elements count as non-zero, as numpy's truth test says (the doc: "behaves similar to
    numpy.nonzero"): NaN is non-zero, -0.0 is zero, a string is non-zero unless empty."""
    if type_name == "string":
        return np.vectorize(lambda s: len(s) != 0, otypes=[bool])(x) if x.size else np.zeros(x.shape, bool)
    if is_float(type_name) and not type_name.startswith("complex"):
        return x.astype(np.float64) != 0
    return x != 0


def nonzero(x: np.ndarray, type_name: str) -> np.ndarray:
    mask = nonzero_mask(x, type_name)
    if mask.ndim == 0:
        # "for scalar input, NonZero produces output shape (0, N) instead of (1, N)"
        return np.zeros((0, int(bool(mask))), dtype=np.int64)
    return np.array(np.nonzero(mask), dtype=np.int64).reshape(mask.ndim, -1)


@OPERATOR.semantics
def non_zero(v, attrs, inputs):
    """The indices of the non-zero elements, one row per dimension, row-major; a scalar gives (0, N)."""
    x = inputs["X"]
    return {"Y": nonzero(x, type_of(x))}


def with_zeros(t, shape, rng, where) -> np.ndarray:
    """Typed data (with the type's special values) and the zero of the type at the given flat positions."""
    x = data(t, shape, rng).copy()
    zero = "" if t.dtype == "string" else 0
    flat = x.reshape(-1)
    for i in where:
        flat[i] = zero
    return flat.reshape(shape)


def _case(v, x):
    return OPERATOR.expect(v, {"X": x})


@OPERATOR.example
def example(v, t, rng):
    """The documented 2 x 2 [[1, 0], [1, 1]]: the one and zero of every type."""
    x = np.array([[1, 0], [1, 1]]).astype(bool)
    x = np.array([["a" if c else "" for c in row] for row in x], dtype=object) if t.dtype == "string" else x.astype(t.np())
    return _case(v, x)


@OPERATOR.example
def rank3_odd(v, t, rng):
    """Typed data of rank 3 with 15 elements, some of them the type's zero (and -0.0, NaN, ...)."""
    return _case(v, with_zeros(t, (3, 1, 5), rng, [0, 4, 7, 8, 14]))


@OPERATOR.example
def scalar_nonzero(v, t, rng):
    """A rank-0 non-zero input: shape (0, 1), not numpy's (1, 1)."""
    x = np.array(True).astype(t.np()) if t.dtype != "string" else np.array("x", dtype=object)
    return _case(v, x)


@OPERATOR.example
def scalar_zero(v, t, rng):
    """A rank-0 zero input: shape (0, 0)."""
    x = np.array(False).astype(t.np()) if t.dtype != "string" else np.array("", dtype=object)
    return _case(v, x)


@OPERATOR.example
def all_zero(v, t, rng):
    """No non-zero element: shape (r, 0)."""
    return _case(v, with_zeros(t, (2, 3), rng, range(6)))


@OPERATOR.example
def empty(v, t, rng):
    """A zero dimension: no element at all, shape (r, 0)."""
    return _case(v, data(t, (2, 0, 3), rng))
