"""Mutants of the activations: other frameworks' defaults, attributes left out, boundaries one off, NaN
through the unit, and formulas that overflow where the function does not."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import (
    Mutant, default, finfo, floating, ignored, result, through, with_inputs,
)

FAMILY = "Activations"


def _nan_to_zero(y, x, *rest, **_):
    return np.where(np.isnan(x.astype(np.float64)), 0, y.astype(np.float64)) if floating(x) else y


def _formula(f):
    """The result computed by f(x, **attributes) in the input's own type, for float inputs."""
    def g(y, x, *rest, **attrs):
        if not floating(x):
            return y
        with np.errstate(all="ignore"):
            return f(x, **attrs)
    return result(g)


def _clip_bounds(call, inputs, attrs):
    if call.since >= 11:
        return (inputs[1] if len(inputs) > 1 else None), (inputs[2] if len(inputs) > 2 else None)
    return attrs.get("min"), attrs.get("max")


def _clip_nan(call, *inputs, **attrs):
    """Clip as fmin/fmax (NaN-ignoring): NaN comes out as a bound."""
    (y,) = call.run(*inputs, **attrs)
    x = inputs[0]
    if not floating(x):
        return (y,)
    lo, hi = _clip_bounds(call, inputs, attrs)
    big = float(finfo(x.dtype).max)
    lo = -big if lo is None else float(lo)
    hi = big if hi is None else float(hi)
    return (np.where(np.isnan(x.astype(np.float64)), np.fmax(np.fmin(np.nan, hi), lo), y).astype(x.dtype),)


def _clip_min_is_tiny(x, *bounds, **_):
    """C++'s numeric_limits<float>::min() (the smallest positive normal) taken for lowest()."""
    if not floating(x) or (bounds and bounds[0] is not None):
        return (x, *bounds)
    tiny = np.asarray(finfo(x.dtype).tiny, dtype=x.dtype)
    return (x, tiny, *bounds[1:])


def _clip_max_after_min(call, *inputs, **attrs):
    """Max(Min(input, max), min): where min > max the result is min."""
    lo, hi = _clip_bounds(call, inputs, attrs)
    if lo is None or hi is None:
        return call.run(*inputs, **attrs)
    x = inputs[0]
    return (np.maximum(np.minimum(x, hi), lo).astype(x.dtype),)


def _prelu_channels(call, x, slope, **attrs):
    """A 1-D slope of C values applied along axis 1 (Caffe's channel-wise PRelu), not right-aligned."""
    if slope.ndim == 1 and x.ndim > 2 and slope.shape[0] == x.shape[1] and slope.shape[0] > 1:
        slope = slope.reshape((-1,) + (1,) * (x.ndim - 2))
    return call.run(x, slope, **attrs)


def _shrink_inclusive(y, x, **attrs):
    lambd, bias = attrs["lambd"], attrs["bias"]
    w = x.astype(np.float64)
    return np.where(w <= -lambd, w + bias, np.where(w >= lambd, w - bias, 0))


def _gelu(approximate):
    def f(x, **_):
        w = x.astype(np.float64)
        if approximate == "tanh":
            return 0.5 * w * (1 + np.tanh(np.sqrt(2 / np.pi) * (w + 0.044715 * w**3)))
        from math import erf

        return 0.5 * w * (1 + np.vectorize(erf, otypes=[np.float64])(w / np.sqrt(2)))
    return f


def _gelu_wrong(approximate_from):
    def wrong(call, x, **attrs):
        chosen = approximate_from(call, attrs)
        if chosen == attrs.get("approximate") or not floating(x) or x.size == 0:
            return call.run(x, **attrs)
        return (_gelu(chosen)(x).astype(x.dtype),)
    return wrong


MUTANTS = [
    Mutant("Celu.elu_formula", "Celu", "ignored attributes", "max(0,x) + min(0,alpha*(exp(x/alpha)-1))",
           _formula(lambda x, alpha, **_: np.where(x > 0, x, alpha * (np.exp(x) - 1)))),
    Mutant("Clip.nan_to_bound", "Clip", "NaN propagation", "Thus, this is equivalent to 'Min(max, Max(input, min))'.",
           _clip_nan, note="Max and Min propagate NaN (IEEE 754-2019 maximum/minimum, generators/ops/clip.py)"),
    Mutant("Clip.min_default_is_smallest_positive", "Clip", "wrong defaults",
           "They default to numeric_limits::lowest() and numeric_limits::max(), respectively.",
           with_inputs(_clip_min_is_tiny), since=(11, None)),
    Mutant("Clip.min_over_max", "Clip", "layout modes",
           "When 'min' is greater than 'max', the clip operator sets all the 'input' values to the value of 'max'.",
           _clip_max_after_min, since=(13, None)),
    Mutant("Elu.ignores_alpha", "Elu", "ignored attributes", "`f(x) = alpha * (exp(x) - 1.) for x < 0`",
           ignored("alpha")),
    Mutant("Elu.zero_in_negative_branch", "Elu", "off-by-one windows", "`f(x) = x for x >= 0`",
           _formula(lambda x, alpha, **_: np.where(x > 0, x, alpha * np.expm1(x))),
           equivalent="at x = 0 (and -0) both branches give 0: alpha * (exp(0) - 1) = 0"),
    Mutant("Gelu.ignores_approximate", "Gelu", "ignored attributes",
           'If the attribute "approximate" is set to "tanh", the function estimation',
           _gelu_wrong(lambda call, a: "none")),
    Mutant("Gelu.tanh_by_default", "Gelu", "wrong defaults", '`"none"`(default)',
           _gelu_wrong(lambda call, a: a.get("approximate") if call.given("approximate") else "tanh")),
    Mutant("HardSigmoid.torch_alpha", "HardSigmoid", "wrong defaults", "y = max(0, min(1, alpha * x + beta))",
           default("alpha", 1 / 6), note="the schema's default alpha is 0.2; PyTorch's hardsigmoid uses 1/6"),
    Mutant("HardSigmoid.ignores_beta", "HardSigmoid", "ignored attributes", "y = max(0, min(1, alpha * x + beta))",
           ignored("beta")),
    Mutant("HardSwish.hardsigmoid_default_alpha", "HardSwish", "wrong defaults", "where alpha = 1/6 and beta = 0.5",
           _formula(lambda x, **_: x * np.clip(x * np.asarray(0.2, x.dtype) + np.asarray(0.5, x.dtype), 0, 1))),
    Mutant("LeakyRelu.tensorflow_alpha", "LeakyRelu", "wrong defaults", "`f(x) = alpha * x for x < 0`",
           default("alpha", 0.2), note="the schema's default alpha is 0.01; TensorFlow's leaky_relu uses 0.2"),
    Mutant("LeakyRelu.ignores_alpha", "LeakyRelu", "ignored attributes", "`f(x) = alpha * x for x < 0`",
           ignored("alpha")),
    Mutant("Mish.nan_to_zero", "Mish", "NaN propagation", "mish(x) = x * tanh(softplus(x))", result(_nan_to_zero)),
    Mutant("PRelu.slope_along_channels", "PRelu", "broadcasting direction",
           "tensor slope should be unidirectional broadcastable to input tensor X", _prelu_channels),
    Mutant("Relu.nan_to_zero", "Relu", "NaN propagation", "the rectified linear function, y = max(0, x)",
           result(_nan_to_zero), note="max propagates NaN (IEEE 754-2019 maximum, generators/ops/relu.py)"),
    Mutant("Relu.int64_through_double", "Relu", "integer through float", "the rectified linear function, y = max(0, x)",
           through(np.float64)),
    Mutant("Selu.double_defaults", "Selu", "wrong defaults",
           "Coefficient of SELU default to 1.67326319217681884765625 (i.e., float32 approximation of "
           "1.6732632423543772848170429916717).",
           lambda call, x, **a: call.run(x, **{**a, **({} if call.given("alpha") else {"alpha": 1.6732632423543772}),
                                             **({} if call.given("gamma") else {"gamma": 1.0507009873554805})})),
    Mutant("Selu.ignores_gamma", "Selu", "ignored attributes", "`y = gamma * x for x > 0`", ignored("gamma")),
    Mutant("Shrink.inclusive_bounds", "Shrink", "off-by-one windows",
           "If x < -lambd, y = x + bias; If x > lambd, y = x - bias; Otherwise, y = 0.", result(_shrink_inclusive)),
    Mutant("Shrink.ignores_bias", "Shrink", "ignored attributes", "The bias value added to output.", ignored("bias")),
    Mutant("Sigmoid.exp_ratio", "Sigmoid", "NaN propagation", "y = 1 / (1 + exp(-x))",
           _formula(lambda x, **_: np.exp(x) / (np.asarray(1, x.dtype) + np.exp(x)))),
    Mutant("Softplus.exp_overflows", "Softplus", "NaN propagation", "y = ln(exp(x) + 1)",
           _formula(lambda x, **_: np.log(np.exp(x) + np.asarray(1, x.dtype)))),
    Mutant("Softsign.abs_left_out", "Softsign", "signed/unsigned", "Calculates the softsign (x/(1+|x|))",
           _formula(lambda x, **_: x / (np.asarray(1, x.dtype) + x))),
    Mutant("Swish.ignores_alpha", "Swish", "ignored attributes", "$Swish(x) = x * sigmoid(alpha * x)$",
           ignored("alpha")),
    Mutant("ThresholdedRelu.inclusive", "ThresholdedRelu", "off-by-one windows", "y = x for x > alpha, y = 0 otherwise",
           result(lambda y, x, alpha, **_: np.where(x >= alpha, x, 0))),
    Mutant("ThresholdedRelu.zero_default", "ThresholdedRelu", "wrong defaults", "y = x for x > alpha, y = 0 otherwise",
           default("alpha", 0.0), note="the schema's default alpha is 1.0; 0 makes it Relu"),
]
