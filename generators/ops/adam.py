"""Adam (ai.onnx.preview.training): one Adam step of X with gradient G, averaged gradient V and averaged
squared gradient H."""

import mpmath
import numpy as np

from onnx_conformance.generators.semantics import attr
from onnx_conformance.generators.training_family import float_attr, optimizer, run, training_operator

OPERATOR = training_operator("Adam")


@optimizer(OPERATOR, groups=4)
def adam(v, attrs):
    """The schema's pseudo code: G_regularized = norm_coefficient * X + G; V_new = alpha * V + (1 - alpha) *
    G_regularized; H_new = beta * H + (1 - beta) * G_regularized^2; H_sqrt = Sqrt(H_new) + epsilon;
    R_adjusted = T > 0 ? R * Sqrt(1 - beta**T) / (1 - alpha**T) : R; X_new = X - R_adjusted * V_new / H_sqrt;
    X_final = (1 - norm_coefficient_post) * X_new."""
    nc = float_attr(attr(attrs, "norm_coefficient", 0.0))
    ncp = float_attr(attr(attrs, "norm_coefficient_post", 0.0))
    alpha = float_attr(attr(attrs, "alpha", 0.9))
    beta = float_attr(attr(attrs, "beta", 0.999))
    eps = float_attr(attr(attrs, "epsilon", 1e-6))

    def update(R, T, x, g, v, h):
        gr = nc * x + g
        v_new = alpha * v + (1 - alpha) * gr
        h_new = beta * h + (1 - beta) * gr * gr
        h_sqrt = mpmath.sqrt(h_new) + eps
        r_adj = R * mpmath.sqrt(1 - beta ** T) / (1 - alpha ** T) if T > 0 else R
        x_new = x - r_adj * v_new / h_sqrt
        return (1 - ncp) * x_new, v_new, h_new

    return update


def adam_case(v, t, r, step, xs, gs, vs, hs, **a):
    return run(OPERATOR, v, t, r, step, [xs, gs, vs, hs], ["X", "G", "V", "H"], ["X", "V", "H"], a)


@OPERATOR.example
def adam_documented(v, t, rng):
    """onnx's documented example (test_adam)."""
    return adam_case(v, t, 0.1, 0, [np.array([1.2, 2.8])], [np.array([-0.94, -2.5])], [np.array([1.7, 3.6])],
                [np.array([0.1, 0.1])], norm_coefficient=0.001, alpha=0.95, beta=0.1, epsilon=1e-7)


@OPERATOR.example
def multiple(v, t, rng):
    """onnx's documented example (test_adam_multiple)."""
    return adam_case(v, t, 0.1, 0, [np.array([1.0]), np.array([1.0, 2.0])], [np.array([-1.0]), np.array([-1.0, -3.0])],
                [np.array([2.0]), np.array([4.0, 1.0])], [np.array([0.5]), np.array([1.0, 10.0])],
                norm_coefficient=0.001, alpha=0.95, beta=0.85, epsilon=1e-2)


def state(rng, shape):
    x = rng.integers(-8, 9, size=shape) / 4
    g = rng.integers(-8, 9, size=shape) / 4
    v = rng.integers(-8, 9, size=shape) / 4
    h = rng.integers(0, 9, size=shape) / 4
    return [x], [g], [v], [h]


@OPERATOR.example
def bias_correction(v, t, rng):
    """T = 5 > 0: R_adjusted = R * Sqrt(1 - beta**T) / (1 - alpha**T)."""
    return adam_case(v, t, 0.125, 5, *state(rng, (2, 3)), norm_coefficient=0.0625, alpha=0.875, beta=0.75, epsilon=1e-6)


@OPERATOR.example
def post_regularization(v, t, rng):
    """norm_coefficient_post 0.25: X_final = 0.75 * X_new."""
    return adam_case(v, t, 0.125, 2, *state(rng, (4,)), norm_coefficient_post=0.25)


@OPERATOR.example
def default_attributes(v, t, rng):
    """No attributes: alpha 0.9, beta 0.999, epsilon 1e-6, no regularization."""
    return adam_case(v, t, 0.5, 1, *state(rng, (3,)))


OPERATOR.reference_differs(r"dtype (double|float) != expected (float|double)",
                           "X_new, V_new and H_new have the tensors' type T3; the evaluator's Adam returns whatever "
                           "numpy promotion of the float32 attributes, R and T gives")
OPERATOR.reference_differs(r"^adam_documented (double|float): .*max abs err 2\.1",
                           "the evaluator's Adam rounds intermediates through float32 attribute scalars (alpha, "
                           "beta); our value is the pseudo code evaluated exactly on the float32 attributes")
