"""Binarizer (ai.onnx.ml): 1 where X > threshold, else 0, in X's type."""

import numpy as np

from onnx_conformance.generators.ml_family import data, exact_of, f32, ml_operator
from onnx_conformance.generators.semantics import attr

OPERATOR = ml_operator("Binarizer")


@OPERATOR.semantics
def binarize(v, attrs, inputs):
    """'Values greater than this are mapped to 1, others to 0.': threshold (a FLOAT, default 0) as the
    float32 it holds, compared exactly; NaN is not greater: 0."""
    x = inputs["X"]
    th = f32(attr(attrs, "threshold", 0.0))
    return {"Y": np.array([1 if e > th else 0 for e in exact_of(x)], dtype=x.dtype).reshape(x.shape)}


def _case(v, x, threshold=None):
    return OPERATOR.expect(v, {"X": x}, {} if threshold is None else {"threshold": threshold})


@OPERATOR.example
def binarizer(v, t, rng):
    """onnx's documented example: threshold 1.0 over a (3, 4, 5) tensor."""
    return _case(v, data(t.dtype, (3, 4, 5), rng), 1.0)


@OPERATOR.example
def default_threshold(v, t, rng):
    """No threshold attribute: 0; 0 itself maps to 0 (not greater)."""
    x = data(t.dtype, (2, 6), rng)
    x.reshape(-1)[0] = 0
    return _case(v, x)


@OPERATOR.example
def fractional_threshold(v, t, rng):
    """threshold -1.25: integers -1 and above map to 1, -2 and below to 0; the float value -1.25 to 0."""
    return _case(v, data(t.dtype, (4, 5), rng), -1.25)


@OPERATOR.example
def threshold_equal_values(v, t, rng):
    """Values equal to the threshold are not greater: 0."""
    x = np.array([[2, 3, 1], [2, 2, 5]]).astype(t.np())
    return _case(v, x, 2.0)
