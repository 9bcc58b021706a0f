"""Mutants of the normalizations: epsilon and modes not honoured, the sample variance for the
population's, groups taken by stride, windows shifted, dropout scaling at inference, and Lp norms of zero."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import (
    Mutant, default, floating, ignored, result, with_attributes, with_inputs,
)

FAMILY = "Normalization"

EPSILON = "The epsilon value to use to avoid division by zero."


def _axis_clamped(call, a):
    if a.get("axis") is not None and a["axis"] < 0:
        a["axis"] = 0
    return a


def _batchnorm_sample_variance(call, x, scale, b, mean, var, **attrs):
    """Training mode with the sample variance (N - 1), as numpy.var(ddof=1) or torch.var's default gives."""
    outs = call.run(x, scale, b, mean, var, **attrs)
    if not attrs.get("training_mode") or len(outs) < 3 or x.size == 0:
        return outs
    axes = (0,) + tuple(range(2, x.ndim))
    n = x.size // x.shape[1]
    if n < 2:
        return outs
    shape = (1, -1) + (1,) * (x.ndim - 2)
    w = x.astype(np.float64)
    m = w.mean(axis=axes)
    v = w.var(axis=axes, ddof=1)
    eps = attrs.get("epsilon", 1e-5)
    momentum = attrs.get("momentum", 0.9)
    y = (w - m.reshape(shape)) / np.sqrt(v.reshape(shape) + eps) * scale.reshape(shape) + b.reshape(shape)
    running_mean = mean * momentum + m * (1 - momentum)
    running_var = var * momentum + v * (1 - momentum)
    return (y.astype(x.dtype), running_mean.astype(outs[1].dtype), running_var.astype(outs[2].dtype))


def _dropout_scaled_at_inference(call, *inputs, **attrs):
    """Inference mode (training_mode false or absent) still scales by 1 / (1 - ratio)."""
    outs = call.run(*inputs, **attrs)
    training = inputs[2] if len(inputs) > 2 else None
    ratio = inputs[1] if len(inputs) > 1 else None
    if (training is not None and bool(training)) or ratio is None or float(ratio) >= 1:
        return outs
    return (np.asarray(outs[0] / (1 - np.asarray(ratio, np.float64))).astype(outs[0].dtype), *outs[1:])


def _dropout_mask_inverted(call, *inputs, **attrs):
    """The mask marks the dropped elements instead of the kept ones."""
    outs = call.run(*inputs, **attrs)
    if len(outs) < 2 or outs[1] is None:
        return outs
    return (outs[0], np.logical_not(outs[1]))


def _node_attribute(call, name, otherwise=None):
    import onnx

    for a in call.node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return otherwise


def _groups_strided(call, x, scale, bias, **attrs):
    """Channel c put in group c mod G instead of c // (C / G) (the groups interleaved)."""
    g = int(_node_attribute(call, "num_groups", 0) or 0)
    c = x.shape[1] if x.ndim > 1 else 0
    if g <= 1 or g >= c or c % g:
        return call.run(x, scale, bias, **attrs)
    perm = np.concatenate([np.arange(k, c, g) for k in range(g)])  # grouped together: c mod G = 0, 1, ...
    per_channel = scale.shape[0] == c
    (y,) = call.run(np.ascontiguousarray(x[:, perm]), scale[perm] if per_channel else scale,
                    bias[perm] if per_channel else bias, **attrs)
    return (np.ascontiguousarray(y[:, np.argsort(perm)]),)


def _instance_sample_variance(call, x, s, b, **attrs):
    (y,) = call.run(x, s, b, **attrs)
    if not floating(x) or x.size == 0:
        return (y,)
    axes = tuple(range(2, x.ndim))
    w = x.astype(np.float64)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    with np.errstate(all="ignore"):
        v = w.var(axis=axes, keepdims=True, ddof=1)
        z = (w - w.mean(axis=axes, keepdims=True)) / np.sqrt(v + attrs.get("epsilon", 1e-5))
    return ((z * s.reshape(shape) + b.reshape(shape)).astype(y.dtype),)


def _lrn_window_shifted(call, x, **attrs):
    """The window's extra channel for an even size taken before c instead of after it."""
    (y,) = call.run(x, **attrs)
    size = int(attrs["size"])
    if size % 2 or not floating(x):
        return (y,)
    w = x.astype(np.float64)
    square = np.zeros_like(w)
    c = x.shape[1]
    for k in range(c):
        lo, hi = max(0, k - int(np.ceil((size - 1) / 2))), min(c - 1, k + (size - 1) // 2)
        square[:, k] = (w[:, lo:hi + 1] ** 2).sum(axis=1)
    z = w / (attrs.get("bias", 1.0) + attrs.get("alpha", 1e-4) / size * square) ** attrs.get("beta", 0.75)
    return (z.astype(y.dtype),)


def _lp_zero_norm_nan(y, x, **attrs):
    """x / norm with no guard: where the norm is 0 the output is NaN."""
    if not floating(x) or x.size == 0:
        return y
    p = attrs.get("p") or 2
    axis = attrs.get("axis")
    axis = -1 if axis is None else int(axis)
    norm = (np.abs(x.astype(np.float64)) ** p).sum(axis=axis, keepdims=True)
    return np.where(norm == 0, np.nan, y.astype(np.float64))


def _mvn_per_instance(call, x, **attrs):
    """Mean and variance per instance and channel (over the spatial axes only, as InstanceNormalization does)
    when `axes` is left out."""
    if call.given("axes") or x.ndim != 4:
        return call.run(x, **attrs)
    n, c, h, w = x.shape
    (y,) = call.run(x.reshape(1, n * c, h, w), **attrs)
    return (y.reshape(x.shape),)


MUTANTS = [
    Mutant("BatchNormalization.ignores_epsilon", "BatchNormalization", "ignored attributes", EPSILON,
           ignored("epsilon")),
    Mutant("BatchNormalization.sample_variance", "BatchNormalization", "off-by-one windows",
           "Notice that `ReduceVar` refers to the population variance", _batchnorm_sample_variance, since=(14, None)),
    Mutant("BatchNormalization.ignores_momentum", "BatchNormalization", "ignored attributes",
           "Factor used in computing the running mean and variance.", ignored("momentum"), since=(14, None)),
    Mutant("Dropout.scaled_at_inference", "Dropout", "ignored attributes",
           "If it is false, ratio is ignored and the operation mimics inference mode where nothing will be dropped "
           "from the input data", _dropout_scaled_at_inference, since=(12, None)),
    Mutant("Dropout.mask_marks_dropped", "Dropout", "layout modes", "The output mask.", _dropout_mask_inverted,
           since=(7, None)),
    Mutant("GroupNormalization.groups_strided", "GroupNormalization", "layout modes",
           "where the mean and variance are computed per instance per group of channels", _groups_strided),
    Mutant("InstanceNormalization.ignores_epsilon", "InstanceNormalization", "ignored attributes", EPSILON,
           ignored("epsilon")),
    Mutant("InstanceNormalization.sample_variance", "InstanceNormalization", "off-by-one windows",
           "where mean and variance are computed per instance per channel.", _instance_sample_variance,
           since=(6, None), note="the variance of a population: 1/N, as BatchNormalization spells out"),
    Mutant("LRN.even_window_shifted", "LRN", "off-by-one windows",
           "max(0, c - floor((size - 1) / 2)) <= i <= min(C - 1, c + ceil((size - 1) / 2))", _lrn_window_shifted),
    Mutant("LayerNormalization.ignores_epsilon", "LayerNormalization", "ignored attributes", EPSILON,
           ignored("epsilon")),
    Mutant("LayerNormalization.negative_axis_clamped", "LayerNormalization", "negative axes",
           "Negative value means counting dimensions from the back.", with_attributes(_axis_clamped)),
    Mutant("LpNormalization.p_default_1", "LpNormalization", "wrong defaults",
           "The order of the normalization, only 1 or 2 are supported.", default("p", 1)),
    Mutant("LpNormalization.zero_norm_nan", "LpNormalization", "NaN propagation",
           "When the Lp norm is zero (i.e., all elements along the axis are zero), the output is defined to be zero "
           "to avoid division by zero.", result(_lp_zero_norm_nan)),
    Mutant("MeanVarianceNormalization.per_instance_by_default", "MeanVarianceNormalization", "wrong defaults",
           "The default is to calculate along axes [0,2,3] for calculating mean and variance along each channel.",
           _mvn_per_instance),
    Mutant("RMSNormalization.ignores_epsilon", "RMSNormalization", "ignored attributes", EPSILON,
           ignored("epsilon")),
    Mutant("RMSNormalization.negative_axis_clamped", "RMSNormalization", "negative axes",
           "Negative value means counting dimensions from the back.", with_attributes(_axis_clamped)),
    Mutant("SwiGLU.gate_and_value_swapped", "SwiGLU", "layout modes",
           "It applies the Swish activation to the gate and multiplies the result elementwise by the linear input",
           with_inputs(lambda a, b, **_: (b, a))),
    Mutant("SwiGLU.ignores_alpha", "SwiGLU", "ignored attributes",
           "Coefficient that scales the gate input inside the sigmoid of the Swish activation.", ignored("alpha")),
]
