"""OneHotEncoder (ai.onnx.ml): each element of X becomes a row of zeros with a one at its category."""

import numpy as np

from onnx_conformance.generators.case import Case
from onnx_conformance.generators.ml_family import ml_operator

OPERATOR = ml_operator("OneHotEncoder")

CATS_INTS = [4, 0, 7, -2, 3]
CATS_STRINGS = ["red", "green", "blue"]


def encoded(t, x, zeros=None):
    """'a single one is placed at the index of the category'; the extra dimension is last, of the
    category count; 'If true and category is not present, will return all zeros'."""
    strings = t.dtype == "string"
    cats = CATS_STRINGS if strings else CATS_INTS
    y = np.zeros(x.shape + (len(cats),), np.float32)
    for idx in np.ndindex(x.shape):
        e = x[idx] if strings else int(x[idx])
        if e in cats:
            y[idx + (cats.index(e),)] = 1
    attrs = {"cats_strings" if strings else "cats_int64s": cats}
    if zeros is not None:
        attrs["zeros"] = zeros
    return Case({"X": x}, {"Y": y}, attrs)


def sample(t, shape, rng, missing=True):
    if t.dtype == "string":
        pool = CATS_STRINGS + (["gray"] if missing else [])
        return np.array([pool[i] for i in rng.integers(0, len(pool), size=int(np.prod(shape)))],
                        dtype=object).reshape(shape)
    pool = CATS_INTS + ([9] if missing else [])
    # 'If the input is a tensor of float, int32, or double, the data will be cast to integers':
    # the data is integral, so the cast is exact
    return np.array([pool[i] for i in rng.integers(0, len(pool), size=int(np.prod(shape)))]).astype(t.np()).reshape(shape)


@OPERATOR.example
def vector(v, t, rng):
    return encoded(t, sample(t, (6,), rng, missing=False))


@OPERATOR.example
def matrix(v, t, rng):
    return encoded(t, sample(t, (2, 3), rng, missing=False))


@OPERATOR.example
def missing_zeros(v, t, rng):
    """A category not listed, zeros=1 (the default, written out): a row of zeros."""
    return encoded(t, sample(t, (2, 4), rng), zeros=1)


@OPERATOR.example
def zeros_off_all_present(v, t, rng):
    """zeros=0 with every element a listed category: the same one-hot rows."""
    return encoded(t, sample(t, (2, 3), rng, missing=False), zeros=0)


@OPERATOR.rejection
def zeros_off_missing_category(v, t, rng):
    """zeros=0 and an element outside the categories."""
    from onnx_conformance.generators.case import Case, Declared

    rule = "'if false and a category if not found, the operator will fail' (zeros)"
    x = np.array([4, 9, 0], np.int64) if t.dtype != "string" else np.array(["red", "gray"], dtype=object)
    x = x.astype(t.np()) if t.dtype != "string" else x
    return Case({"X": x}, {"Y": Declared("float", x.shape + (len(CATS_STRINGS if t.dtype == "string" else CATS_INTS),))},
                {"cats_strings" if t.dtype == "string" else "cats_int64s":
                 CATS_STRINGS if t.dtype == "string" else CATS_INTS, "zeros": 0}, error=rule)
