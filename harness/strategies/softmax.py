"""Softmax, LogSoftmax and Hardmax: input of rank 1 to 8, axis of either spelling (negative from version 11), the 2-D coercion at axis before version 13, rows of tied maxima for Hardmax.

Before version 13 the input 'will be coerced into a 2-dimensional tensor' at axis k, so the rows
are [a_k * ... * a_{n-1}] long and a drawn axis moves where they split; from 13 the function runs
along the one dimension. The expected output is the family's row function (generators/softmax_family.py);
a row holding +inf has no value there (the formula's readings disagree) and is discarded.

Tolerance: the operator's own (Softmax's composite budget, LogSoftmax's with cancellation, Hardmax's
exact), and for Softmax in float and double, 2 * min(spread, L) steps more, spread the largest
max - min of a row and L = -ln(the type's smallest subnormal): the spec's function body subtracts the
row's maximum before Exp, and the rounding of x - max (relative error eps) becomes a relative error
|x - max| * eps of exp(x - max) and of the sum; past L every such term rounds to 0. A float16 or
bfloat16 runtime is judged as computing in float and rounding once, where this is far below a step.
Softmax results below the type's normal range are marked (`warn`): the spec says nothing of subnormals.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators.softmax_family import default_axis
from onnx_conformance.harness.dtypes import numpy_of
from onnx_conformance.harness.strategies import common
from onnx_conformance.harness.strategies.common import IEEE, Family, Probe, element_values, shapes, tensors
from onnx_conformance.harness.strategies.indices import negative_spelling

SOFTMAX_ELEMENTS = 2048  # each element an mpmath exp: about 20 microseconds


class SoftmaxFamily(Family):
    name = "softmax"
    operators = ("Softmax", "LogSoftmax", "Hardmax")

    def strategy(self, op, v, t):
        return _softmax(op, v, t)

    def case(self, op, v, t, probe):
        case = super().case(op, v, t, probe)
        if op.name == "Softmax" and t.dtype in ("float", "double") and case.tolerance:
            spread = min(_spread(v, probe.inputs["input"], probe.attrs.get("axis", default_axis(v))),
                         _underflow(t.dtype))
            case.tolerance = {**case.tolerance, "ulp": case.tolerance["ulp"] + 2 * math.ceil(spread)}
        if op.name == "Softmax" and t.dtype in IEEE:
            case.quality = _subnormal_marks(t.dtype, case.outputs["output"])
        return case


def _subnormal_marks(type_name: str, y) -> dict | None:
    """Softmax's results below the type's normal range, marked as the corpus marks a value the spec does not
    promise (`warn`, not a find): an exp(x - max) or a quotient there is 0 in a runtime that flushes
    subnormals, and the spec says nothing of them."""
    with np.errstate(invalid="ignore"):
        e = np.abs(np.asarray(y, dtype=np.float64)).reshape(-1)
        tiny = float(ml_dtypes.finfo(numpy_of(type_name)).smallest_normal)
        flat = [int(i) for i in np.flatnonzero((e > 0) & (e < tiny))]
    if not flat:
        return None
    return {"reason": f"a Softmax result below {type_name}'s normal range: 0 where a runtime flushes subnormals "
                      "(its exp or its division); the spec names no subnormal handling", "outputs": {"0": flat}}


def _underflow(type_name: str) -> float:
    """-ln of the type's smallest subnormal: an exp(x - max) further down rounds to 0."""
    return -math.log(float(np.finfo(numpy_of(type_name)).smallest_subnormal))


def _rows(v, x: np.ndarray, axis: int) -> np.ndarray:
    """The rows the version's axis defines, one per line (float64)."""
    r = x.ndim
    a = axis % r if r else 0
    x = x.astype(np.float64)
    if v.since_version < 13:
        lead = int(np.prod(x.shape[:a], dtype=np.int64))
        return x.reshape(lead, -1) if x.size else np.zeros((0, 0))
    moved = np.moveaxis(x, a, -1)
    return moved.reshape(-1, moved.shape[-1]) if x.size else np.zeros((0, 0))


def _spread(v, x, axis) -> float:
    """The largest max - min over the finite elements of a row."""
    rows = _rows(v, np.asarray(x), axis)
    worst = 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        for row in rows:
            finite = row[np.isfinite(row)]
            if finite.size:
                worst = max(worst, float(finite.max() - finite.min()))
    return worst


@st.composite
def _softmax(draw, op, v, t):
    # rank 1 at least: from version 11 the axis is in [-r, r-1]; version 1's coercion of a rank-0 input to
    # [a_0 * ... * a_{k-1}, a_k * ... * a_{n-1}] has no dimension to split (onnxruntime refuses it)
    shape = draw(shapes(1, common.MAX_RANK, SOFTMAX_ELEMENTS), label="input shape")
    r = len(shape)
    hardmax = op.name == "Hardmax"
    role = draw(st.sampled_from(["distinct", "tied"]), label="data") if hardmax else "distinct"
    # Hardmax: 'the first maximum value': NaN is not ordered, so none is drawn there
    elements = element_values(t.dtype, nan=not hardmax)
    x = draw(tensors(t.dtype, shape, role=role, elements=elements), label="input")
    attrs = {}
    axis = draw(st.integers(0, r - 1), label="axis")
    if axis != (r - 1 if v.since_version >= 13 else 1) or draw(st.booleans(), label="give axis"):
        attrs["axis"] = negative_spelling(draw, axis, r, v.since_version >= 11)
    return Probe({"input": x}, attrs)
