"""Binarizer (ai.onnx.ml): 1 where X > threshold, else 0, in X's type."""

import numpy as np

from onnx_conformance.generators.case import Case
from onnx_conformance.generators.ml_family import data, exact_of, f32, ml_operator

OPERATOR = ml_operator("Binarizer")


def binarize(t, x, threshold=None):
    """'Values greater than this are mapped to 1, others to 0.' (threshold defaults to 0)."""
    th = f32(0.0 if threshold is None else threshold)
    y = np.array([1 if e > th else 0 for e in exact_of(x)], dtype=t.np()).reshape(x.shape)
    return Case({"X": x}, {"Y": y}, {} if threshold is None else {"threshold": threshold})


@OPERATOR.example
def binarizer(v, t, rng):
    """onnx's documented example: threshold 1.0 over a (3, 4, 5) tensor."""
    return binarize(t, data(t.dtype, (3, 4, 5), rng), 1.0)


@OPERATOR.example
def default_threshold(v, t, rng):
    """No threshold attribute: 0; 0 itself maps to 0 (not greater)."""
    x = data(t.dtype, (2, 6), rng)
    x.reshape(-1)[0] = 0
    return binarize(t, x)


@OPERATOR.example
def fractional_threshold(v, t, rng):
    """threshold -1.25: integers -1 and above map to 1, -2 and below to 0; the float value -1.25 to 0."""
    return binarize(t, data(t.dtype, (4, 5), rng), -1.25)


@OPERATOR.example
def threshold_equal_values(v, t, rng):
    """Values equal to the threshold are not greater: 0."""
    x = np.array([[2, 3, 1], [2, 2, 5]]).astype(t.np())
    return binarize(t, x, 2.0)
