"""The Reduce operators: data of any rank, axes (attribute or input, as the version has them), keepdims, noop_with_empty_axes, and the tolerance of an accumulation.

The expected value, the quality marks and what the spec leaves undefined are the family's own
(generators/reduce_family.py: `to_case`). What is added here is what a drawn input needs that the
corpus's chosen data did not: a tolerance that grows with the group (accuracy.accumulation, the
rule the other accumulating operators follow: the spec names no order or type to sum in), and
marks where an intermediate of the formula falls below the type's normal range or a sum cancels
before its logarithm, beside the family's marks where one overflows.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators.accuracy import EPSILON, accumulation, budget
from onnx_conformance.generators.reduce_family import (
    DtypeInfo,
    Example,
    effective_axes,
    group_count,
    to_case,
)
from onnx_conformance.harness.families import FAMILIES
from onnx_conformance.harness.strategies.common import Discard, Family, Probe, shapes, tensors

# What each operator sums (None: nothing, an exact comparison), and the function after the sum.
TERMS = {"ReduceSum": "abs", "ReduceMean": "abs", "ReduceL1": "abs", "ReduceSumSquare": "square",
         "ReduceL2": "square", "ReduceLogSum": "abs", "ReduceLogSumExp": "exp", "ReduceProd": "product"}
AFTER = {"ReduceMean": ("div",), "ReduceL2": ("sqrt",), "ReduceLogSum": ("log",), "ReduceLogSumExp": ("exp", "log")}
CANCELS = 2.0**-8  # a sum whose magnitude is below this share of its terms' before ReduceLogSum's log

UNDERFLOW = ("the formula's intermediate ({what}) falls below {type}'s normal range on the way to a "
             "representable result; the spec names no intermediate precision")
CANCELLATION = ("the sum cancels before its logarithm (|sum| < 2^-8 of the sum of magnitudes): the "
                "logarithm turns the sum's rounding into an error {type}'s precision does not bound")


class Reduce(Family):
    name = "reduction"
    operators = FAMILIES["Reduce"]

    def strategy(self, op, v, t):
        return _probes(op, v, t)

    def case(self, op, v, t, probe):
        ex = probe.extra["example"]
        ex.tolerance = tolerance(op.name, ex)
        case = to_case(op, v, ex)
        if not hasattr(case, "outputs"):  # NotApplicable: the result leaves the type, or is undefined
            raise Discard(case.reason)
        extra = extra_marks(op.name, ex, np.asarray(case.outputs["reduced"]))
        if extra:
            reason, flat = extra
            if case.quality:
                flat = sorted(set(flat) | set(case.quality["outputs"]["0"]))
                reason = f"{case.quality['reason']}; {reason}"
            case.quality = {"reason": reason, "outputs": {"0": flat}}
        return case


@st.composite
def _probes(draw, op, v, t):
    dt = t.dtype
    role = "unit" if op.name == "ReduceProd" else "sparse"
    data = draw(tensors(dt, draw(shapes(0)), role=role), label="data")
    r = data.ndim
    modes = (["subset"] if r else []) + ["absent"] + (["empty"] if v.has_input("axes") else [])
    mode = draw(st.sampled_from(modes), label="axes")
    axes = None
    if mode == "subset":
        picked = draw(st.lists(st.integers(0, r - 1), min_size=1, max_size=r, unique=True), label="axes")
        axes = tuple(a - r if draw(st.booleans(), label="negative") else a for a in picked)
    elif mode == "empty":
        axes = ()
    keepdims = draw(st.sampled_from([None, 1, 0]), label="keepdims")
    noop = draw(st.sampled_from([None, 0, 1]), label="noop_with_empty_axes") \
        if v.has_attribute("noop_with_empty_axes") else None
    ex = Example(data, axes, keepdims, noop)
    inputs, attrs = ex.node(v)
    return Probe(inputs, attrs, extra={"example": ex})


def _groups(ex: Example) -> tuple[tuple[int, ...], int]:
    axes = effective_axes(ex.axes, ex.noop, ex.data.ndim)
    return axes, group_count(ex.data.shape, axes)


def tolerance(op_name: str, ex: Example) -> dict | None:
    """accuracy.accumulation over the group's n terms, with M the largest sum of |terms| the result
    depends on linearly (the mean's divided by n; none for the root, the product and the logarithms,
    whose error is relative), plus the steps of the function after the sum; the logarithms' absolute
    error is the sum's relative one (ReduceLogSum's: times the sum's condition M / |sum|)."""
    name = _type(ex.data)
    terms = TERMS.get(op_name)
    if terms is None or name not in EPSILON:
        return None
    axes, n = _groups(ex)
    after = sum(budget(f, name)["ulp"] for f in AFTER.get(op_name, ()))
    if terms == "product" or op_name == "ReduceL2":
        return accumulation(name, n, 0.0, after)
    x = ex.data.astype(np.float64)
    with np.errstate(all="ignore"):
        mag = np.abs(x) if terms == "abs" else (x * x if terms == "square" else np.exp(x))
        total = np.add.reduce(mag, axis=axes, keepdims=True) if axes else mag
        sums = np.add.reduce(x, axis=axes, keepdims=True) if axes else x
    finite = np.isfinite(total)
    biggest = float(total[finite].max()) if finite.any() else 0.0
    eps = EPSILON["float"] if name in ("float16", "bfloat16") else EPSILON[name]
    k = math.ceil(2 * math.sqrt(max(n, 1)))
    if op_name == "ReduceLogSumExp":
        out = accumulation(name, n, 0.0, after)
        out["atol"] = float((k + budget("exp", name)["ulp"]) * eps)
        return out
    if op_name == "ReduceLogSum":
        ok = finite & np.isfinite(sums) & (np.abs(sums) >= CANCELS * total) & (total > 0)
        worst = float((total[ok] / np.abs(sums[ok])).max()) if ok.any() else 1.0
        out = accumulation(name, n, 0.0, after)
        out["atol"] = float(k * eps * worst)
        return out
    if op_name == "ReduceMean":
        biggest /= max(n, 1)
    return accumulation(name, n, biggest, after)


def _type(x: np.ndarray) -> str:
    from onnx_conformance.harness.dtypes import name_of_numpy

    return name_of_numpy(x.dtype)


def extra_marks(op_name: str, ex: Example, expected: np.ndarray) -> tuple[str, list[int]] | None:
    """(reason, flat output indices) where a representable result is reached through an intermediate
    below the type's normal range (ReduceL2's sum of squares, ReduceLogSumExp's every exponential,
    ReduceProd's factors below 1) or, for ReduceLogSum, through a cancelling sum."""
    name = _type(ex.data)
    if name not in EPSILON or not ex.data.size:
        return None
    axes, _ = _groups(ex)
    if not axes:
        return None
    tiny = float(DtypeInfo(name).smallest_normal)
    x = ex.data.astype(np.float64).astype(np.longdouble)
    with np.errstate(all="ignore"):
        if op_name == "ReduceL2":
            what, low = "the sum of squares", np.add.reduce(x * x, axis=axes, keepdims=True)
            hit = (low > 0) & (low < tiny)
        elif op_name == "ReduceLogSumExp":
            what, top = "every exponential", np.max(x, axis=axes, keepdims=True)
            hit = np.isfinite(top) & (top < math.log(tiny))
        elif op_name == "ReduceProd":
            what = "the product of the factors below 1 in magnitude"
            low = np.multiply.reduce(np.where(np.abs(x) < 1, np.abs(x), 1), axis=axes, keepdims=True)
            zero = np.logical_or.reduce(x == 0, axis=axes, keepdims=True)
            hit = (low < tiny) & ~zero
        elif op_name == "ReduceLogSum":
            total = np.add.reduce(np.abs(x), axis=axes, keepdims=True)
            sums = np.add.reduce(x, axis=axes, keepdims=True)
            hit = np.isfinite(total) & (np.abs(sums) < CANCELS * total)
            flat = _finite_marks(hit, expected)
            return (CANCELLATION.format(type=name), flat) if flat else None
        else:
            return None
    flat = _finite_marks(hit, expected)
    return (UNDERFLOW.format(what=what, type=name), flat) if flat else None


def _finite_marks(hit: np.ndarray, expected: np.ndarray) -> list[int]:
    e = np.asarray(expected, dtype=np.float64).reshape(-1)
    h = np.asarray(hit, dtype=bool).reshape(-1)
    if h.size != e.size:
        return []
    return [int(i) for i in np.flatnonzero(h & np.isfinite(e))]
