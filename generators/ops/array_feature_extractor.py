"""ArrayFeatureExtractor (ai.onnx.ml): X's elements at the indices Y along the last axis."""

import numpy as np

from onnx_conformance.generators.ml_family import data, ml_operator
from onnx_conformance.generators.semantics import Rejected

OPERATOR = ml_operator("ArrayFeatureExtractor")


def values_of(t, shape, rng):
    if t.dtype == "string":
        return np.array([f"s{i}" for i in rng.integers(0, 50, size=int(np.prod(shape)))], dtype=object).reshape(shape)
    return data(t.dtype, shape, rng, -9, 9)


@OPERATOR.semantics
def extract(v, attrs, inputs):
    """'The indices are applied to the last axes of the tensor.': Z[..., i..] = X[..., Y[i..]]; Y is 'based on
    0 as the first index of any dimension': an index outside [0, C-1] is rejected."""
    x, y = inputs["X"], np.asarray(inputs["Y"], np.int64)
    if x.ndim == 0:
        raise Rejected("X: the indices are applied to the last axes of the tensor: X has no axis (rank 0)")
    c = x.shape[-1]
    if y.size and (y.min() < 0 or y.max() > c - 1):
        raise Rejected(f"Y: {v.schema.inputs[1].description} (an index outside [0, {c - 1}])")
    return {"Z": np.take(x, y, axis=-1)}


def extracted(v, x, y):
    return OPERATOR.expect(v, {"X": x, "Y": y})


@OPERATOR.example
def array_feature_extractor(v, t, rng):
    """onnx's documented example: columns 0 and 1 of a (3, 4) tensor counting 0..11."""
    x = np.arange(12).reshape(3, 4)
    x = x.astype(object).astype(str).astype(object) if t.dtype == "string" else x.astype(t.np())
    return extracted(v, x, np.array([0, 1], np.int64))


@OPERATOR.example
def repeated_unordered(v, t, rng):
    """Indices out of order and repeated."""
    return extracted(v, values_of(t, (2, 5), rng), np.array([4, 0, 4, 2], np.int64))


@OPERATOR.example
def rank_3(v, t, rng):
    return extracted(v, values_of(t, (2, 2, 4), rng), np.array([3, 1], np.int64))
