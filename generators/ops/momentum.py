"""Momentum (ai.onnx.preview.training): one step of SGD with standard or Nesterov momentum."""

import numpy as np

from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.generators.training_family import float_attr, optimizer, run, training_operator

OPERATOR = training_operator("Momentum")


@optimizer(OPERATOR, groups=3)
def momentum(v, attrs):
    """The schema's pseudo code: G_regularized = norm_coefficient * X + G; beta_adjusted = T > 0 ? beta : 1;
    V_new = alpha * V + beta_adjusted * G_regularized; standard: X_new = X - R * V_new;
    nesterov: X_new = X - R * (G_regularized + alpha * V_new). mode, alpha, beta and norm_coefficient are required."""
    for name in ("mode", "alpha", "beta", "norm_coefficient"):
        if attrs.get(name) is None:
            raise Rejected(f"{name}: {v.schema.attributes[name].description} (a required attribute)")
    mode = attrs["mode"]
    if mode not in ("standard", "nesterov"):
        raise Rejected(f"mode: {v.schema.attributes['mode'].description} (given {mode!r})")
    nc, a, b = float_attr(attrs["norm_coefficient"]), float_attr(attrs["alpha"]), float_attr(attrs["beta"])

    def update(R, T, x, g, v):
        gr = nc * x + g
        v_new = a * v + (b if T > 0 else 1) * gr
        x_new = x - R * v_new if mode == "standard" else x - R * (gr + a * v_new)
        return x_new, v_new

    return update


def momentum_case(v, t, r, step, xs, gs, vs, mode, norm_coefficient, alpha, beta):
    attrs = {"mode": mode, "norm_coefficient": norm_coefficient, "alpha": alpha, "beta": beta}
    return run(OPERATOR, v, t, r, step, [xs, gs, vs], ["X", "G", "V"], ["X", "V"], attrs)


DOC_X, DOC_G, DOC_V = np.array([1.2, 2.8]), np.array([-0.94, -2.5]), np.array([1.7, 3.6])


@OPERATOR.example
def momentum_documented(v, t, rng):
    """onnx's documented example (test_momentum): standard, T = 0 (beta taken as 1)."""
    return momentum_case(v, t, 0.1, 0, [DOC_X], [DOC_G], [DOC_V], "standard", 0.001, 0.95, 0.1)


@OPERATOR.example
def nesterov(v, t, rng):
    """onnx's documented example (test_nesterov_momentum)."""
    return momentum_case(v, t, 0.1, 0, [DOC_X], [DOC_G], [DOC_V], "nesterov", 0.01, 0.95, 1.0)


@OPERATOR.example
def multiple(v, t, rng):
    """onnx's documented example (test_momentum_multiple): two tensors, standard."""
    return momentum_case(v, t, 0.1, 0, [np.array([1.0]), np.array([1.0, 2.0])],
                         [np.array([-1.0]), np.array([-1.0, -3.0])],
                    [np.array([2.0]), np.array([4.0, 1.0])], "standard", 0.001, 0.95, 0.85)


def state(rng, shape):
    return ([rng.integers(-8, 9, size=shape) / 4], [rng.integers(-8, 9, size=shape) / 4],
            [rng.integers(-8, 9, size=shape) / 4])


@OPERATOR.example
def standard_later_step(v, t, rng):
    """T = 4 > 0: beta applies."""
    return momentum_case(v, t, 0.25, 4, *state(rng, (2, 3)), "standard", 0.125, 0.875, 0.5)


@OPERATOR.example
def nesterov_later_step(v, t, rng):
    return momentum_case(v, t, 0.25, 4, *state(rng, (2, 3)), "nesterov", 0.125, 0.875, 0.5)
