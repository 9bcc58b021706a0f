"""Mutants of the Reduce operators: numpy's keepdims default, negative axes, the axes input or
noop_with_empty_axes not honoured, empty sets, NaN, 64-bit integers through doubles, 16-bit sums."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import (
    Mutant, default, floating, ignored, result, through,
)

FAMILY = "Reduce"

KEEPDIMS = "Keep the reduced dimension or not, default 1 means keep reduced dimension."
NOOP = "If true, reduction happens over an empty set of axes"
AXES = "Optional input list of integers, along which to reduce."
NEGATIVE = "Accepted range is [-r, r-1] where r = rank(data)."
# The version at which each operator's axes became an input (and noop_with_empty_axes appeared).
AXES_INPUT = {"ReduceSum": 13}


def _since_axes_input(op: str) -> tuple[int, int]:
    return (AXES_INPUT.get(op, 18), None)


def _axes_of(data, rest, attrs):
    """The reduced axes: a tuple of non-negative axes, None for all, () for none."""
    if rest and isinstance(rest[0], np.ndarray):
        axes = rest[0].reshape(-1).tolist()
    else:
        axes = attrs.get("axes")
        axes = None if axes is None else list(np.asarray(axes).reshape(-1).tolist())
    if not axes:
        return () if attrs.get("noop_with_empty_axes") else None
    if data.ndim == 0:
        return None
    return tuple(sorted({int(a) % data.ndim for a in axes}))


def _map_axes(f):
    """The axes, as an input or an attribute, become f(axes, rank) before the correct operator runs."""
    def wrong(call, data, *rest, **attrs):
        if rest and isinstance(rest[0], np.ndarray) and rest[0].size:
            rest = (np.asarray(f(rest[0].astype(np.int64), data.ndim)).astype(rest[0].dtype),) + rest[1:]
        elif attrs.get("axes") is not None and len(attrs["axes"]):
            attrs = {**attrs, "axes": tuple(int(a) for a in f(np.asarray(attrs["axes"], np.int64), data.ndim))}
        return call.run(data, *rest, **attrs)
    return wrong


def _negative_clamped(axes, rank):
    """A negative axis clamped to 0 instead of counted from the back."""
    return np.where(axes < 0, 0, axes)


def _axes_input_ignored(call, data, *rest, **attrs):
    """The axes input not read, as when axes was an attribute (and absent): everything is reduced."""
    return call.run(data, **attrs)


def _empty_set_zero(y, data, *rest, **_):
    return np.zeros_like(y) if data.size == 0 else y


def _nan_ignoring(replace):
    """fmax/fmin-style: a NaN in a group is skipped unless the whole group is NaN."""
    def wrong(call, data, *rest, **attrs):
        (y,) = call.run(data, *rest, **attrs)
        if not floating(data) or data.size == 0:
            return (y,)
        cleaned = np.where(np.isnan(data.astype(np.float64)), replace, data.astype(np.float64)).astype(data.dtype)
        (z,) = call.run(cleaned, *rest, **attrs)
        all_nan = np.isnan(y.astype(np.float64)) & (z.astype(np.float64) == replace)
        return (np.where(all_nan, y, z).astype(y.dtype),)
    return wrong


def _sequential_16bit(pre=None, post=None):
    """float16/bfloat16 summed one element at a time in the 16-bit type (rounding after every add)."""
    def wrong(call, data, *rest, **attrs):
        (y,) = call.run(data, *rest, **attrs)
        if data.dtype.itemsize != 2 or not floating(data) or y.size == 0 or data.size == 0:
            return (y,)
        axes = _axes_of(data, rest, attrs)
        if axes == ():
            return (y,)
        axes = tuple(range(data.ndim)) if axes is None else axes
        x = pre(data) if pre else data
        moved = np.moveaxis(x, axes, list(range(data.ndim - len(axes), data.ndim)))
        flat = moved.reshape(moved.shape[:data.ndim - len(axes)] + (-1,))
        acc = np.zeros(flat.shape[:-1], data.dtype)
        with np.errstate(all="ignore"):
            for k in range(flat.shape[-1]):
                acc = (acc + flat[..., k]).astype(data.dtype)
            if post:
                acc = post(acc, flat.shape[-1]).astype(data.dtype)
        return (acc.reshape(y.shape),)
    return wrong


def _log_sum_exp_unshifted(call, data, *rest, **attrs):
    """log(sum(exp(x))) without subtracting the maximum first: exp overflows for large x."""
    (y,) = call.run(data, *rest, **attrs)
    if not floating(data) or data.size == 0:
        return (y,)
    axes = _axes_of(data, rest, attrs)
    if axes == ():
        return (y,)
    with np.errstate(all="ignore"):
        z = np.log(np.sum(np.exp(data), axis=axes, keepdims=True, dtype=data.dtype))
    return (z.reshape(y.shape).astype(y.dtype),)


def _mutants(op: str, *kinds: str) -> list[Mutant]:
    made = {
        "keepdims_default_0": lambda: Mutant(
            f"{op}.keepdims_default_0", op, "wrong defaults", KEEPDIMS, default("keepdims", 0),
            note="numpy's keepdims defaults to False"),
        "negative_axes_clamped": lambda: Mutant(
            f"{op}.negative_axes_clamped", op, "negative axes", NEGATIVE, _map_axes(_negative_clamped),
            since=(11, None)),
        "noop_ignored": lambda: Mutant(
            f"{op}.noop_with_empty_axes_ignored", op, "ignored attributes", NOOP, ignored("noop_with_empty_axes"),
            since=_since_axes_input(op)),
        "axes_input_ignored": lambda: Mutant(
            f"{op}.axes_input_ignored", op, "version confusion", AXES, _axes_input_ignored,
            since=_since_axes_input(op)),
        "int64_through_double": lambda: Mutant(
            f"{op}.int64_through_double", op, "integer through float", f"Computes the {WHAT[op]} of the input "
            "tensor's elements along the provided axes.", through(np.float64, only=(0,))),
    }
    return [made[k]() for k in kinds]


WHAT = {"ReduceSum": "sum", "ReduceProd": "product"}

MUTANTS = [
    *_mutants("ReduceL1", "keepdims_default_0", "negative_axes_clamped"),
    Mutant("ReduceL2.16bit_accumulation", "ReduceL2", "16-bit accumulation",
           "Computes the L2 norm of the input tensor's elements along the provided axes.",
           _sequential_16bit(pre=lambda x: x * x, post=lambda acc, n: np.sqrt(acc))),
    *_mutants("ReduceL2", "noop_ignored"),
    *_mutants("ReduceLogSum", "axes_input_ignored"),
    Mutant("ReduceLogSum.empty_set_zero", "ReduceLogSum", "empty tensors",
           "Reduction over an empty set of values yields minus infinity", result(_empty_set_zero)),
    Mutant("ReduceLogSumExp.max_not_subtracted", "ReduceLogSumExp", "NaN propagation",
           "Computes the log sum exponent of the input tensor's elements along the provided axes.",
           _log_sum_exp_unshifted),
    *_mutants("ReduceLogSumExp", "negative_axes_clamped"),
    Mutant("ReduceMax.fmax", "ReduceMax", "NaN propagation", "Computes the max of the input tensor's elements",
           _nan_ignoring(-np.inf), note="max propagates NaN (IEEE 754-2019 maximum, generators/ops/reduce_max.py)"),
    Mutant("ReduceMax.empty_set_zero", "ReduceMax", "empty tensors",
           "Reduction over an empty set of values yields minus infinity (if supported by the datatype) or the "
           "minimum value of the data type otherwise.", result(_empty_set_zero)),
    *_mutants("ReduceMax", "keepdims_default_0"),
    Mutant("ReduceMean.16bit_accumulation", "ReduceMean", "16-bit accumulation",
           "Computes the mean of the input tensor's elements along the provided axes.",
           _sequential_16bit(post=lambda acc, n: acc / np.asarray(n, acc.dtype))),
    *_mutants("ReduceMean", "keepdims_default_0", "noop_ignored"),
    Mutant("ReduceMin.fmin", "ReduceMin", "NaN propagation", "Computes the min of the input tensor's elements",
           _nan_ignoring(np.inf), note="min propagates NaN (IEEE 754-2019 minimum, generators/ops/reduce_min.py)"),
    Mutant("ReduceMin.empty_set_zero", "ReduceMin", "empty tensors",
           "Reduction over an empty set of values yields plus infinity (if supported by the datatype) or the "
           "maximum value of the data type otherwise.", result(_empty_set_zero)),
    *_mutants("ReduceMin", "negative_axes_clamped"),
    *_mutants("ReduceProd", "int64_through_double", "keepdims_default_0"),
    Mutant("ReduceProd.empty_set_zero", "ReduceProd", "empty tensors",
           "Reduction over an empty set of values yields 1.", result(_empty_set_zero)),
    *_mutants("ReduceSum", "int64_through_double", "noop_ignored", "axes_input_ignored"),
    Mutant("ReduceSum.16bit_accumulation", "ReduceSum", "16-bit accumulation",
           "Computes the sum of the input tensor's elements along the provided axes.", _sequential_16bit()),
    Mutant("ReduceSumSquare.16bit_accumulation", "ReduceSumSquare", "16-bit accumulation",
           "Computes the sum square of the input tensor's elements along the provided axes.",
           _sequential_16bit(pre=lambda x: x * x)),
    *_mutants("ReduceSumSquare", "keepdims_default_0", "negative_axes_clamped"),
]
