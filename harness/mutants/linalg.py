"""Mutants of the linear-algebra operators: ties broken at the other end, selectors and flags not
honoured, softmax without its shift or with its pre-13 flattening, 1-D matmul operands keeping their
dimension, and 16-bit products accumulated in 16 bits."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import (
    Mutant, default, empty_raises, floating, ignored, result, with_attributes, with_inputs,
)

FAMILY = "Linear algebra"

SOFTMAX_AXIS = ("Negative value means counting dimensions from the back. Accepted range is [-r, r-1] where "
                "r = rank(input).")


def _axis_clamped(call, a):
    if a.get("axis") is not None and a["axis"] < 0:
        a["axis"] = 0
    return a


def _axis(attrs, x, default_axis):
    axis = attrs.get("axis")
    axis = default_axis if axis is None else int(axis)
    return axis + x.ndim if axis < 0 else axis


def _flattened_2d(call, x, **attrs):
    """The pre-13 reading at version 13: the input coerced to 2-D at `axis`, the operator along axis 1."""
    if x.ndim < 2 or x.size == 0:
        return call.run(x, **attrs)
    axis = _axis(attrs, x, -1)
    if axis == x.ndim - 1:
        return call.run(x, **attrs)
    flat = x.reshape(int(np.prod(x.shape[:axis], dtype=np.int64)), -1)
    (y,) = call.run(flat, **{**attrs, "axis": 1})
    return (y.reshape(x.shape),)


def _unshifted(log: bool):
    """exp(x) / sum(exp(x)) with no maximum subtracted first, in the input's type: exp overflows."""
    def wrong(call, x, **attrs):
        (y,) = call.run(x, **attrs)
        if not floating(x) or x.size == 0:
            return (y,)
        axis = _axis(attrs, x, -1)
        with np.errstate(all="ignore"):
            e = np.exp(x)
            s = np.sum(e, axis=axis, keepdims=True, dtype=x.dtype)
            z = (np.log(e) - np.log(s)) if log else e / s
        return (np.asarray(z).astype(y.dtype),)
    return wrong


def _hardmax_last(call, x, **attrs):
    """The last maximum marked instead of the first."""
    if x.size == 0:
        return call.run(x, **attrs)
    axis = _axis(attrs, x, -1)
    (y,) = call.run(np.flip(x, axis), **attrs)
    return (np.ascontiguousarray(np.flip(y, axis)),)


def _cumulative_axis_clamped(x, axis, **_):
    a = np.asarray(axis)
    return (x, np.where(a < 0, 0, a).astype(a.dtype))


def _cumprod_exclusive_zero(call, x, axis, **attrs):
    """Exclusive with CumSum's identity: the element with nothing before it is 0, not 1."""
    (y,) = call.run(x, axis, **attrs)
    if not attrs.get("exclusive") or y.size == 0:
        return (y,)
    a = int(np.asarray(axis)) % x.ndim
    index = [slice(None)] * y.ndim
    index[a] = -1 if attrs.get("reverse") else 0
    y = y.copy()
    y[tuple(index)] = 0
    return (y,)


def _einsum_implicit_in_order(call, *inputs, **attrs):
    """Implicit output labels in order of first appearance, not sorted."""
    eq = attrs.get("equation", "").replace(" ", "")
    if "->" in eq or "." in eq:
        return call.run(*inputs, **attrs)
    letters = eq.replace(",", "")
    once = [c for i, c in enumerate(letters) if letters.count(c) == 1 and c not in letters[:i]]
    return call.run(*inputs, **{**attrs, "equation": f"{eq}->{''.join(once)}"})


def _matmul_1d_kept(call, a, b, **attrs):
    """A 1-D operand promoted to a matrix and the added dimension never removed."""
    (y,) = call.run(a, b, **attrs)
    if a.ndim == 1 and b.ndim == 1:
        return (y.reshape(1, 1),)
    if a.ndim == 1:
        return (np.expand_dims(y, -2),)
    if b.ndim == 1:
        return (np.expand_dims(y, -1),)
    return (y,)


def _matmul_16bit(call, a, b, **attrs):
    """float16/bfloat16 products summed one at a time in the 16-bit type."""
    (y,) = call.run(a, b, **attrs)
    if a.dtype.itemsize != 2 or not floating(a) or a.ndim < 2 or b.ndim < 2 or a.shape[-1] < 2:
        return (y,)
    acc = np.zeros(y.shape, a.dtype)
    with np.errstate(all="ignore"):
        for k in range(a.shape[-1]):
            acc = (acc + (a[..., :, k:k + 1] * b[..., k:k + 1, :]).astype(a.dtype)).astype(a.dtype)
    return (acc,)


def _topk_ties_last(call, x, k, **attrs):
    """Equal values ranked by the higher index first."""
    if x.size == 0:
        return call.run(x, k, **attrs)
    axis = _axis(attrs, x, -1)
    values, indices = call.run(np.ascontiguousarray(np.flip(x, axis)), k, **attrs)
    return values, (x.shape[axis] - 1 - indices).astype(indices.dtype)


MUTANTS = [
    Mutant("ArgMax.ignores_select_last_index", "ArgMax", "ignored attributes",
           "If select_last_index is True (default False), the index of the last occurrence of the max is selected "
           "if the max appears more than once in the input.", ignored("select_last_index"), since=(12, None)),
    Mutant("ArgMax.keepdims_default_0", "ArgMax", "wrong defaults",
           "Keep the reduced dimension or not, default 1 means keep reduced dimension.", default("keepdims", 0),
           note="numpy.argmax keeps no dimension"),
    Mutant("ArgMin.ignores_select_last_index", "ArgMin", "ignored attributes",
           "If select_last_index is True (default False), the index of the last occurrence of the min is selected "
           "if the min appears more than once in the input.", ignored("select_last_index"), since=(12, None)),
    Mutant("ArgMin.negative_axis_clamped", "ArgMin", "negative axes",
           "Accepted range is [-r, r-1] where r = rank(data).", with_attributes(_axis_clamped), since=(11, None)),
    Mutant("CumProd.exclusive_starts_at_zero", "CumProd", "wrong defaults",
           "if set to 1, the j-th output element would be the product of the first (j-1) elements.",
           _cumprod_exclusive_zero, note="the empty product is 1; 0 is CumSum's empty sum"),
    Mutant("CumProd.ignores_reverse", "CumProd", "ignored attributes",
           "If set to 1 will perform the products in reverse direction.", ignored("reverse")),
    Mutant("CumSum.ignores_exclusive", "CumSum", "ignored attributes",
           "If set to 1 will return exclusive sum in which the top element is not included.", ignored("exclusive")),
    Mutant("CumSum.negative_axis_clamped", "CumSum", "negative axes",
           "Negative value means counting dimensions from the back.", with_inputs(_cumulative_axis_clamped)),
    Mutant("Det.sign_lost", "Det", "signed/unsigned",
           "Det calculates determinant of a square matrix or batches of square matrices.",
           result(lambda y, x, **_: np.abs(y) if floating(y) else y),
           note="exp of slogdet's log|det| without its sign"),
    Mutant("Det.empty_batch_raises", "Det", "empty tensors",
           "where `*` is zero or more batch dimensions", empty_raises),
    Mutant("Einsum.implicit_output_unsorted", "Einsum", "layout modes",
           "output indices are (implicitly) set to the sequence of indices appearing exactly once in the equation, "
           "sorted in increasing order of their ASCII values", _einsum_implicit_in_order),
    Mutant("Gemm.ignores_trans_a", "Gemm", "ignored attributes", "Whether A should be transposed", ignored("transA")),
    Mutant("Gemm.ignores_trans_b", "Gemm", "ignored attributes", "Whether B should be transposed", ignored("transB")),
    Mutant("Gemm.ignores_beta", "Gemm", "ignored attributes", "Scalar multiplier for input tensor C.",
           ignored("beta")),
    Mutant("Gemm.ignores_alpha", "Gemm", "ignored attributes",
           "Scalar multiplier for the product of input tensors A * B.", ignored("alpha")),
    Mutant("Hardmax.last_maximum", "Hardmax", "index edges",
           "Hardmax(element in input, axis) = 1 if the element is the first maximum value along the specified axis, "
           "0 otherwise", _hardmax_last, since=(13, None)),
    Mutant("Hardmax.coerced_to_2d", "Hardmax", "version confusion", SOFTMAX_AXIS, _flattened_2d, since=(13, None),
           note="versions 1 and 11 flatten the input to 2-D at axis; 13 works along the one axis"),
    Mutant("LogSoftmax.max_not_subtracted", "LogSoftmax", "NaN propagation",
           "LogSoftmax(input, axis) = Log(Softmax(input, axis=axis))", _unshifted(log=True), since=(13, None)),
    Mutant("LogSoftmax.coerced_to_2d", "LogSoftmax", "version confusion", SOFTMAX_AXIS, _flattened_2d,
           since=(13, None)),
    Mutant("MatMul.1d_dimension_kept", "MatMul", "scalars",
           "Matrix product that behaves like [numpy.matmul]", _matmul_1d_kept, since=(9, None)),
    Mutant("MatMul.16bit_accumulation", "MatMul", "16-bit accumulation",
           "Matrix product that behaves like [numpy.matmul]", _matmul_16bit, since=(9, None)),
    Mutant("Softmax.max_not_subtracted", "Softmax", "NaN propagation",
           "Softmax(input, axis) = Exp(input) / ReduceSum(Exp(input), axis=axis, keepdims=1)",
           _unshifted(log=False), since=(13, None)),
    Mutant("Softmax.coerced_to_2d", "Softmax", "version confusion", SOFTMAX_AXIS, _flattened_2d, since=(13, None)),
    Mutant("TopK.ties_by_higher_index", "TopK", "index edges",
           "Given two equivalent values, this operator uses the indices along the axis as a tiebreaker.",
           _topk_ties_last, since=(10, None)),
    Mutant("TopK.ignores_largest", "TopK", "ignored attributes",
           "Whether to return the top-K largest or smallest elements.", ignored("largest"), since=(11, None)),
]
