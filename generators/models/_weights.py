"""Weights and data the small models share: seeded from the case's rng, scaled as a trained network's
are (so activations stay near unit size through every layer), rounded to the model's type."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.graphs import cast_to

node = helper.make_node


def dense(t, rng, shape, fan_in=None):
    """A layer's weights: Gaussian with variance 1 / fan_in (fan_in: the first dimension by default)."""
    fan_in = fan_in or shape[0]
    return cast_to(rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=shape), t)


def bias(t, rng, shape, scale=0.1):
    return cast_to(rng.normal(0.0, scale, size=shape), t)


def activations(t, rng, shape, scale=1.0):
    """A model's input: Gaussian, rounded to t."""
    return cast_to(rng.normal(0.0, scale, size=shape), t)


def batch_norm(t, rng, channels, prefix):
    """Inference statistics of a trained BatchNormalization: scale near 1, small shift and mean, variance 0.5 to 1.5."""
    return {f"{prefix}_scale": cast_to(rng.uniform(0.5, 1.5, size=channels), t),
            f"{prefix}_shift": bias(t, rng, channels), f"{prefix}_mean": bias(t, rng, channels),
            f"{prefix}_var": cast_to(rng.uniform(0.5, 1.5, size=channels), t)}


def bn_node(x, y, prefix, **attrs):
    return node("BatchNormalization", [x, f"{prefix}_scale", f"{prefix}_shift", f"{prefix}_mean", f"{prefix}_var"],
                [y], **attrs)


def ints(values) -> np.ndarray:
    """int64 constants: shapes, axes, indices."""
    return np.asarray(values, dtype=np.int64)
