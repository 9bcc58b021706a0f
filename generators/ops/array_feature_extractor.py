"""ArrayFeatureExtractor (ai.onnx.ml): X's elements at the indices Y along the last axis."""

import numpy as np

from onnx_conformance.generators.case import Case
from onnx_conformance.generators.ml_family import data, ml_operator

OPERATOR = ml_operator("ArrayFeatureExtractor")


def values_of(t, shape, rng):
    if t.dtype == "string":
        return np.array([f"s{i}" for i in rng.integers(0, 50, size=int(np.prod(shape)))], dtype=object).reshape(shape)
    return data(t.dtype, shape, rng, -9, 9)


def extracted(x, y):
    """'The indices are applied to the last axes of the tensor.'"""
    return Case({"X": x, "Y": y}, {"Z": np.take(x, y, axis=-1)})


@OPERATOR.example
def array_feature_extractor(v, t, rng):
    """onnx's documented example: columns 0 and 1 of a (3, 4) tensor counting 0..11."""
    x = np.arange(12).reshape(3, 4)
    x = x.astype(object).astype(str).astype(object) if t.dtype == "string" else x.astype(t.np())
    return extracted(x, np.array([0, 1], np.int64))


@OPERATOR.example
def repeated_unordered(v, t, rng):
    """Indices out of order and repeated."""
    return extracted(values_of(t, (2, 5), rng), np.array([4, 0, 4, 2], np.int64))


@OPERATOR.example
def rank_3(v, t, rng):
    return extracted(values_of(t, (2, 2, 4), rng), np.array([3, 1], np.int64))
