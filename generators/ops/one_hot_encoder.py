"""OneHotEncoder (ai.onnx.ml): each element of X becomes a row of zeros with a one at its category."""

import numpy as np

from onnx_conformance.generators.case import Declared
from onnx_conformance.generators.ml_family import ml_operator, one_of
from onnx_conformance.generators.semantics import Rejected, Undefined, attr

OPERATOR = ml_operator("OneHotEncoder")

CATS_INTS = [4, 0, 7, -2, 3]
CATS_STRINGS = ["red", "green", "blue"]


ZEROS_RULE = "'if false and a category if not found, the operator will fail' (zeros)"


@OPERATOR.semantics
def encode(v, attrs, inputs):
    """'a single one is placed at the index of the category', in an extra last dimension of the category count;
    a float, int32 or double X is 'cast to integers' and looked up in cats_int64s, strings in cats_strings (the
    cast of a non-integral value is not stated); a value not listed gives a row of zeros with zeros = 1 (the
    default) and fails with zeros = 0."""
    x = inputs["X"]
    strings = x.dtype.kind in "OUS"
    which = one_of(attrs, ("cats_strings", "cats_int64s"), v.schema.attributes["cats_strings"].description)
    if which != ("cats_strings" if strings else "cats_int64s"):
        raise Rejected(v.sentence(r"cats_int64s category list will be used"))
    cats = list(attrs[which])
    y = np.zeros(x.shape + (len(cats),), np.float32)
    for idx in np.ndindex(x.shape):
        e = x[idx]
        if not strings:
            if not float(e).is_integer():
                raise Undefined(f"{v.sentence(r'will be cast to integers')}: no cast is stated for {e}")
            e = int(e)
        if e in cats:
            y[idx + (cats.index(e),)] = 1
        elif not attr(attrs, "zeros", 1):
            raise Rejected(ZEROS_RULE)
    return {"Y": y}


def encoded(v, t, x, zeros=None):
    strings = t.dtype == "string"
    attrs = {"cats_strings" if strings else "cats_int64s": CATS_STRINGS if strings else CATS_INTS}
    if zeros is not None:
        attrs["zeros"] = zeros
    return OPERATOR.expect(v, {"X": x}, attrs)


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
    return encoded(v, t, sample(t, (6,), rng, missing=False))


@OPERATOR.example
def matrix(v, t, rng):
    return encoded(v, t, sample(t, (2, 3), rng, missing=False))


@OPERATOR.example
def missing_zeros(v, t, rng):
    """A category not listed, zeros=1 (the default, written out): a row of zeros."""
    return encoded(v, t, sample(t, (2, 4), rng), zeros=1)


@OPERATOR.example
def zeros_off_all_present(v, t, rng):
    """zeros=0 with every element a listed category: the same one-hot rows."""
    return encoded(v, t, sample(t, (2, 3), rng, missing=False), zeros=0)


@OPERATOR.rejection
def zeros_off_missing_category(v, t, rng):
    """zeros=0 and an element outside the categories."""
    strings = t.dtype == "string"
    x = np.array(["red", "gray"], dtype=object) if strings else np.array([4, 9, 0], np.int64).astype(t.np())
    cats = CATS_STRINGS if strings else CATS_INTS
    return OPERATOR.reject(v, {"X": x}, {"cats_strings" if strings else "cats_int64s": cats, "zeros": 0},
                           {"Y": Declared("float", x.shape + (len(cats),))})
