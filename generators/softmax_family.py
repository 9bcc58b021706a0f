"""Softmax, LogSoftmax and Hardmax: one row function applied along `axis`, the axis meaning what each version says.

Before version 13 the input 'will be coerced into a 2-dimensional tensor with dimensions
[a_0 * ... * a_{k-1}, a_k * ... * a_{n-1}]' and the function runs over each row of it; from 13
it runs along the one dimension `axis`. Default axis: 1 before 13, -1 from 13. The family
registers each operator's semantics from its row function (`SoftmaxOp.along_rows`), working in mpmath
at PREC bits from the inputs' exact values and rounding once; the examples are data fed through it.
"""

from __future__ import annotations

from typing import Callable

import ml_dtypes
import mpmath
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.rounding import PREC, round_to
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, rule
from onnx_conformance.harness.dtypes import name_of_numpy, numpy_of

# A row function: the row's exact values (mpf) -> the result row (mpf or int), same length.
Row = Callable[[list], list]


def softmax_row(xs: list) -> list:
    """exp(x) / sum(exp(x)) over the row (computed as exp(x - max), the same value)."""
    if any(mpmath.isnan(x) for x in xs) or all(mpmath.isinf(x) and x < 0 for x in xs):
        return [mpmath.nan] * len(xs)  # exp(NaN) is NaN, and so is the sum; only -inf: 0 / 0
    _no_infinite_ratio(xs, "Softmax")
    m = max(xs)
    e = [mpmath.exp(x - m) for x in xs]
    s = mpmath.fsum(e)
    return [x / s for x in e]


def log_softmax_row(xs: list) -> list:
    """log(exp(x) / sum(exp(x))) over the row, as (x - max) - log(sum(exp(x - max)))."""
    if any(mpmath.isnan(x) for x in xs) or all(mpmath.isinf(x) and x < 0 for x in xs):
        return [mpmath.nan] * len(xs)  # only -inf: -inf - -inf, log(0 / 0)
    _no_infinite_ratio(xs, "LogSoftmax")
    m = max(xs)
    log_s = mpmath.log(mpmath.fsum(mpmath.exp(x - m) for x in xs))
    return [(x - m) - log_s for x in xs]


def _no_infinite_ratio(xs: list, name: str) -> None:
    """A row holding +inf: exp(x) / sum(exp(x)) gives inf / inf there and 0 elsewhere, exp(x - max) NaN
    everywhere; the formula's two readings disagree, so it has no value. (A row of only -inf is 0 / 0 and
    -inf - -inf in IEEE 754 either way: NaN, which the caller returns.)"""
    if any(mpmath.isinf(x) and x > 0 for x in xs):
        raise Undefined(f"{name} of a row holding +inf is inf / inf, or NaN from exp(x - max): the formula's "
                        "readings disagree")


def hardmax_row(xs: list) -> list:
    """'1 if the element is the first maximum value along the specified axis, 0 otherwise'."""
    if any(mpmath.isnan(x) for x in xs):
        raise Undefined("Hardmax of a row holding NaN: NaN is not ordered, so the row has no first maximum")
    first = xs.index(max(xs))
    return [int(i == first) for i in range(len(xs))]


def default_axis(v) -> int:
    return -1 if v.since_version >= 13 else 1


def axis_of(v, axis: int, rank: int) -> int:
    """The axis in [0, rank]. From version 11: 'Negative value means counting dimensions from the back.
    Accepted range is [-r, r-1] where r = rank(input).' Before, the axis k of the coercion to
    [a_0 * ... * a_{k-1}, a_k * ... * a_{n-1}], which has no negative value (k = r: rows of one)."""
    if v.since_version >= 11:
        if not -rank <= axis < rank:
            raise Rejected(rule(v, r"^Accepted range", "axis"))
        return axis % rank
    if not 0 <= axis <= rank:
        raise Undefined(f"{v.op}-{v.since_version}'s axis k coerces the input to [a_0 * ... * a_{{k-1}}, "
                        f"a_k * ... * a_{{n-1}}]: k = {axis} names no such split of rank {rank} "
                        "(negative values come in version 11)")
    return axis


def along(v, x: np.ndarray, axis: int, row: Row, type_name: str) -> np.ndarray:
    """row applied the way version v reads `axis`, rounded once to type_name."""
    axis = axis_of(v, axis, x.ndim)
    if v.since_version < 13:
        lead = int(np.prod(x.shape[:axis], dtype=np.int64))
        work = x.reshape(lead, int(np.prod(x.shape[axis:], dtype=np.int64)))
    else:
        work = np.moveaxis(x, axis, -1)
        work = work.reshape(-1, work.shape[-1]) if work.size else work.reshape(0, x.shape[axis])
    out = np.empty(work.shape, dtype=numpy_of(type_name))
    with mpmath.workprec(PREC):
        for i in range(work.shape[0] if work.size else 0):  # an empty tensor has no row to compute
            r = row([mpmath.mpf(float(e)) for e in work[i]])
            out[i] = [round_to(e, type_name) for e in r]
    if v.since_version < 13:
        return out.reshape(x.shape)
    moved = np.moveaxis(x, axis, -1).shape
    return np.moveaxis(out.reshape(moved), -1, axis)


class SoftmaxOp(Operator):
    """One of the family: its row function and its tolerance; its examples are the family's."""

    def __init__(self, name: str, row: Row, tolerance: Callable[[str], dict | None]):
        super().__init__(name)
        self.row = row
        self.tolerance = tolerance
        self.semantics(self.along_rows)
        for pattern, reason in REFERENCE_DIFFERS:
            self.reference_differs(pattern, reason)
        for example, fn in EXAMPLES.items():
            self.example(lambda v, t, rng, fn=fn: fn(self, v, t, rng), name=example)

    def along_rows(self, v, attrs: dict, inputs: dict) -> dict:
        """The row function over each row the version's axis defines (default: 1 before 13, -1 from 13)."""
        x = np.asarray(inputs["input"])
        axis = attr(attrs, "axis", default_axis(v))
        return {"output": along(v, x, axis, self.row, name_of_numpy(x.dtype))}

    def make(self, v, t, x, axis: int | None):
        use = default_axis(v) if axis is None else axis
        if use < 0 and v.since_version < 11:
            return NotApplicable(f"{self.name}-{v.since_version}'s axis has no negative values "
                                 "('Negative value means counting dimensions from the back' is version 11's)")
        attrs = {} if axis is None else {"axis": axis}
        return self.expect(v, {"input": x}, attrs, tolerance=self.tolerance(t.dtype))


def random_345(t, rng):
    # Distinct values in [-4, 4]: exp(x - max) turns the rounding of x - max into a relative error
    # |x - max| times larger, so a spread of 8 keeps a float runtime inside the composite budget.
    return (values.sample(t.dtype, (3, 4, 5), rng, specials=False) / 16).astype(t.np())


def example(op, v, t, rng):
    return op.make(v, t, np.array([[-1, 0, 1]], dtype=np.float64).astype(t.np()), 1)


def large_number(op, v, t, rng):
    """Rows far from 0, where exp without subtracting the maximum overflows; the documented 10000 where
    10000..10003 are exact in the type, else the largest base whose four integers are."""
    base = min(10000, 2 ** (int(ml_dtypes.finfo(t.np()).nmant) + 1) - 4)
    x = np.array([[0, 1, 2, 3], [base, base + 1, base + 2, base + 3]], dtype=np.float64).astype(t.np())
    return op.make(v, t, x, None)


def axis_k(k):
    def build(op, v, t, rng):
        return op.make(v, t, random_345(t, rng), k)

    return build


def default_axis_example(op, v, t, rng):
    return op.make(v, t, random_345(t, rng), None)


def ties(op, v, t, rng):
    """Equal maxima in every row (Hardmax picks the first), -inf elements (exp(-inf) = 0, IEEE)."""
    x = np.array([[3, 3, 3, 1], [-np.inf, 2, -np.inf, 2], [0.5, -0.0, 0.5, 0.0]]).astype(t.np())
    return op.make(v, t, x, None)


EXAMPLES = {
    "example": example,
    "large_number": large_number,
    "axis_0": axis_k(0),
    "axis_1": axis_k(1),
    "axis_2": axis_k(2),
    "negative_axis": axis_k(-1),
    "default_axis": default_axis_example,
    "ties": ties,
}


def composite(type_name: str) -> dict | None:
    return budget("composite", type_name)


# Where onnx's ReferenceEvaluator (1.23) differs from the family's oracle, and why ours stands.
REFERENCE_DIFFERS = [
    (r"^\w+ b?float16: .*max ulp [2-9]$",
     "the evaluator computes float16 and bfloat16 in the type itself; ours is the exact value rounded once"),
    (r"^(axis_0|axis_1|default_axis) \w+: .*values differ",
     "the evaluator applies version 13's single-axis semantics to every version; before 13 the input "
     "'will be coerced into a 2-dimensional tensor' at axis (onnxruntime agrees with ours)"),
]
