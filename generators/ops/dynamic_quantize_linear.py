"""DynamicQuantizeLinear: the scale and zero point from x's range (adjusted to hold 0), then x quantized to uint8.

y_scale = (maximum(0, max(x)) - minimum(0, min(x))) / (qmax - qmin);
y_zero_point = cast(round(saturate(qmin - min(x) / y_scale))); y = saturate(round(x / y_scale) + y_zero_point);
qmin, qmax = 0, 255 (uint8); rounding half to even. The schema's function body fixes each step as a float
operation (Sub, Div, QuantizeLinear-10): each is the exact result rounded once to float.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.quant_family import clamp, exact_values, rne
from onnx_conformance.generators.rounding import round_to
from onnx_conformance.generators.semantics import Undefined

OPERATOR = Operator("DynamicQuantizeLinear")

QMIN, QMAX = 0, 255


def f(q):
    """One float operation of the function body: the exact result rounded once to float (IEEE 754: past
    float's range it is an infinity, a float)."""
    r = float(round_to(q, "float"))
    return Fraction(r) if math.isfinite(r) else r


def saturate_round(q, zp: int = 0) -> int:
    """saturate(round(q) + zp): half to even, then [0, 255] (an infinity saturates to its end)."""
    if isinstance(q, float):
        return QMAX if q > 0 else QMIN
    return clamp(rne(q) + zp, "uint8")


@OPERATOR.semantics
def dynamic_quantize_linear(v, attrs, inputs):
    """The schema's function body, step by step, each float operation rounded once to float:
    X_Range = Sub(max(X_Max, 0), min(X_Min, 0)); Scale = Div(X_Range, 255); Min_Scaled = Div(X_Min_Adjusted,
    Scale); zero point = Cast(Round(Clip(0 - Min_Scaled, 0, 255))); y = QuantizeLinear(x, Scale, zero point),
    whose x / y_scale is a float division rounded half to even. x all zeros (or empty) makes y_scale 0, and a
    NaN or infinite x makes it NaN or infinite: the spec's formula has no value there."""
    x = np.asarray(inputs["x"])
    if not np.isfinite(x).all():
        raise Undefined("x holds NaN or an infinity: max(x) - min(x) and so y_scale are not finite")
    xs = exact_values(x).reshape(-1)
    lo = min([Fraction(0)] + list(xs))
    hi = max([Fraction(0)] + list(xs))
    if hi == lo:
        raise Undefined("x all zeros: y_scale is 0 and 'qmin - min(x)/y_scale' divides by it")
    scale = f(f(hi - lo) / (QMAX - QMIN))
    if scale == 0:
        raise Undefined("x's range is below 255 times float's smallest step: y_scale rounds to 0 and "
                        "'qmin - min(x)/y_scale' divides by it")
    zp = saturate_round(QMIN - f(lo / scale))
    ys = [saturate_round(f(e / scale), zp) for e in xs]
    return {"y": np.array(ys, np.uint8).reshape(x.shape), "y_scale": np.array(float(scale), np.float32),
            "y_zero_point": np.array(zp, np.uint8)}


def dynamic(v, x: np.ndarray):
    return OPERATOR.expect(v, {"x": x}, tolerance={"ulp": 0})


@OPERATOR.example(name="default")
def documented(v, t, rng):
    return dynamic(v, np.array([0, 2, -3, -2.5, 1.34, 0.5], np.float32))


@OPERATOR.example
def max_adjusted(v, t, rng):
    """All negative: the maximum is adjusted to 0 (zero point 255)."""
    return dynamic(v, np.array([-1.0, -2.1, -1.3, -2.5, -3.34, -4.0], np.float32))


@OPERATOR.example
def min_adjusted(v, t, rng):
    """All positive: the minimum is adjusted to 0 (zero point 0)."""
    return dynamic(v, np.array([1, 2.1, 1.3, 2.5, 3.34, 4.0, 1.5, 2.6, 3.9, 4.0, 3.0, 2.345], np.float32).reshape(3, 4))


@OPERATOR.example
def ties(v, t, rng):
    """A range of 255/16 makes y_scale exactly 1/16; x on odd multiples of 1/32 lands x / y_scale on halves."""
    ks = [-254, 256, 1, 3, -1, -5, 0, 7, 9, 100, -99, 255, -253, 13, 2]
    return dynamic(v, np.array([k / 32 for k in ks], np.float32).reshape(3, 5))


@OPERATOR.example
def random_3d(v, t, rng):
    """Rank 3, mixed signs."""
    return dynamic(v, (rng.integers(-400, 400, size=(2, 3, 4)) / 64).astype(np.float32))
