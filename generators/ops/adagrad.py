"""Adagrad (ai.onnx.preview.training): one ADAGRAD step of X with gradient G and accumulated squared gradient H."""

import mpmath
import numpy as np

from onnx_conformance.generators.semantics import attr
from onnx_conformance.generators.training_family import float_attr, optimizer, run, training_operator

OPERATOR = training_operator("Adagrad")


@optimizer(OPERATOR, groups=3)
def adagrad(v, attrs):
    """The schema's pseudo code: r = R / (1 + T * decay_factor); G_regularized = norm_coefficient * X + G;
    H_new = H + G_regularized^2; X_new = X - r * G_regularized / (Sqrt(H_new) + epsilon)."""
    nc = float_attr(attr(attrs, "norm_coefficient", 0.0))
    eps = float_attr(attr(attrs, "epsilon", 1e-6))
    decay = float_attr(attr(attrs, "decay_factor", 0.0))

    def update(R, T, x, g, h):
        rr = R / (1 + T * decay)
        gr = nc * x + g
        h_new = h + gr * gr
        return x - rr * gr / (mpmath.sqrt(h_new) + eps), h_new

    return update


def adagrad_case(v, t, r, step, xs, gs, hs, norm_coefficient=None, epsilon=None, decay_factor=None):
    attrs = {k: a for k, a in (("norm_coefficient", norm_coefficient), ("epsilon", epsilon),
                               ("decay_factor", decay_factor)) if a is not None}
    return run(OPERATOR, v, t, r, step, [xs, gs, hs], ["X", "G", "H"], ["X", "H"], attrs)


DOC = dict(norm_coefficient=0.001, epsilon=1e-5, decay_factor=0.1)


@OPERATOR.example
def adagrad_documented(v, t, rng):
    """onnx's documented example (test_adagrad)."""
    return adagrad_case(v, t, 0.1, 0, [np.array([1.0])], [np.array([-1.0])], [np.array([2.0])], **DOC)


@OPERATOR.example
def multiple(v, t, rng):
    """onnx's documented example (test_adagrad_multiple): two tensors updated at once."""
    return adagrad_case(v, t, 0.1, 0, [np.array([1.0]), np.array([1.0, 2.0])],
                        [np.array([-1.0]), np.array([-1.0, -3.0])],
                   [np.array([2.0]), np.array([4.0, 1.0])], **DOC)


@OPERATOR.example
def decay(v, t, rng):
    """T = 3 with decay_factor 0.5: the learning rate becomes R / 2.5."""
    x = rng.integers(-8, 9, size=(2, 3)) / 4
    g = rng.integers(-8, 9, size=(2, 3)) / 4
    h = rng.integers(0, 9, size=(2, 3)) / 4
    return adagrad_case(v, t, 0.25, 3, [x], [g], [h], norm_coefficient=0.0625, epsilon=1e-6, decay_factor=0.5)


@OPERATOR.example
def default_attributes(v, t, rng):
    """No attributes: norm_coefficient 0, decay_factor 0, epsilon 1e-6."""
    x = rng.integers(-8, 9, size=(4,)) / 4
    g = rng.integers(-8, 9, size=(4,)) / 4
    h = rng.integers(1, 9, size=(4,)) / 4
    return adagrad_case(v, t, 0.5, 7, [x], [g], [h])
