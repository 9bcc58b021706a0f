"""QLinearConv: the real convolution of the dequantized operands (plus the bias, quantized with scale
x_scale * w_scale and zero point 0), quantized with y_scale and y_zero_point.

real[m] = x_scale * w_scale[m] * (conv(x - x_zero_point, w - w_zero_point[m])[m] + B[m]), exactly;
y = saturate((real / y_scale) + y_zero_point), x / y_scale rounded half to even (as QuantizeLinear).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.quant_family import (
    CONV_LAYOUTS,
    array,
    conv_geometry,
    conv_zero_points,
    dtype_name,
    exact_values,
    near,
    requantize,
    shifted_conv,
)
from onnx_conformance.generators.semantics import Rejected, described

OPERATOR = Operator("QLinearConv", defaults={"T2": lambda v, b: b.get("T1", "uint8"),
                                             "T3": lambda v, b: b.get("T1", "uint8")})

# 'y = saturate((x / y_scale) + y_zero_point)' is QuantizeLinear's rule; the spec does not say in what
# precision x_scale * w_scale / y_scale multiplies the integer sum, so with onnx's documented scales (not
# powers of two) a result next to a half may round either way.
DOC_TOLERANCE = {"atol": 1}


def scales(v, inputs: dict, m: int) -> tuple:
    """x_scale, y_scale (one value each) and w_scale per output channel: 'Each scale and zero-point pair must
    have same shape. It means they must be either scalars (per tensor) or 1-D tensors (per output channel)';
    x's and y's are scalars, w's 'a scalar or a 1-D tensor' of M elements."""
    pair = v.sentence(r"Each scale and zero-point pair must have same shape")
    for name in ("x", "w", "y"):
        if np.shape(inputs[f"{name}_scale"]) != np.shape(inputs[f"{name}_zero_point"]):
            raise Rejected(f"{pair} ({name}_scale {np.shape(inputs[f'{name}_scale'])}, {name}_zero_point "
                           f"{np.shape(inputs[f'{name}_zero_point'])})")
    for name in ("x_scale", "y_scale", "y_zero_point"):
        if np.size(inputs[name]) != 1:
            raise Rejected(f"{name}: '{described(v, name)}'")
    ws = exact_values(inputs["w_scale"]).reshape(-1)
    if ws.size != 1 and (np.ndim(inputs["w_scale"]) != 1 or ws.size != m):
        raise Rejected(f"w_scale: '{described(v, 'w_scale')}'")
    one = lambda name: exact_values(inputs[name]).reshape(-1)[0]
    return one("x_scale"), [ws[k if ws.size > 1 else 0] for k in range(m)], one("y_scale")


@OPERATOR.semantics
def qlinear_conv(v, attrs, inputs):
    """real[n, m] = x_scale * w_scale[m] * (conv(x - x_zero_point, w - w_zero_point[m])[n, m] + B[m]), exactly
    (B 'quantized using scale = x_scale * w_scale and zero_point = 0'); y = saturate(real / y_scale +
    y_zero_point), real / y_scale rounded half to even, as QuantizeLinear."""
    x, w, bias = np.asarray(inputs["x"]), np.asarray(inputs["w"]), inputs.get("B")
    xzp, wzp, yzp = inputs["x_zero_point"], inputs["w_zero_point"], inputs["y_zero_point"]
    geometry = conv_geometry(v, attrs, x.shape, w.shape)
    conv_zero_points(v, w.shape, xzp, wzp)
    m = w.shape[0]
    xs, ws, ys = scales(v, inputs, m)
    if bias is not None and np.shape(bias) != (m,):
        raise Rejected(f"B: '{described(v, 'B')}'")
    acc = shifted_conv(x, w, xzp, wzp, geometry)
    bv = exact_values(bias).reshape(-1) if bias is not None else [0] * m
    real = np.empty(acc.shape, dtype=object)
    for idx in np.ndindex(*acc.shape):
        k = idx[1]
        real[idx] = xs * ws[k] * (acc[idx] + bv[k])
    return {"y": requantize(real, ys, exact_values(yzp).reshape(-1)[0], dtype_name(yzp))}


def case(v, t, x, xs, xzp, w, ws, wzp, ys, yzp, bias=None, tolerance=None, **attrs):
    inputs = {"x": x, "x_scale": xs, "x_zero_point": xzp, "w": w, "w_scale": ws, "w_zero_point": wzp,
              "y_scale": ys, "y_zero_point": yzp, "B": bias}
    return OPERATOR.expect(v, inputs, attrs, tolerance=tolerance)


@OPERATOR.example(name="default")
def documented(v, t, rng):
    """onnx's documented example: a 1x1 kernel of 0 with zero point 255 over a 7x7 uint8 image."""
    if (t["T1"], t["T2"], t["T3"]) != ("uint8", "uint8", "uint8"):
        return NotApplicable("the documented example is uint8 throughout; per_tensor covers this binding")
    x = np.array([[255, 174, 162, 25, 203, 168, 58], [15, 59, 237, 95, 129, 0, 64],
                  [56, 242, 153, 221, 168, 12, 166], [232, 178, 186, 195, 237, 162, 237],
                  [188, 39, 124, 77, 80, 102, 43], [127, 230, 21, 83, 41, 40, 134],
                  [255, 154, 92, 141, 42, 148, 247]], np.uint8).reshape(1, 1, 7, 7)
    f = np.float32
    return case(v, t, x, f(0.00369204697), np.uint8(132), np.zeros((1, 1, 1, 1), np.uint8),
                        np.array([0.00172794575], f), np.array([255], np.uint8), f(0.00162681262), np.uint8(123),
                        tolerance=DOC_TOLERANCE)


def zp(type_name: str, near_top: bool = False) -> int:
    lo, hi = values.int_range(type_name)
    return hi - 6 if near_top else (9 if lo == 0 else -3)


def ours(v, t, rng, x_shape, w_shape, per_channel=False, bias=False, y_near_top=False, **attrs):
    """Power-of-two scales (x_scale * w_scale / y_scale = 1/2 or 1/4: halves, exact in every reading),
    operands within 3 of their zero points."""
    xz, wz, yz = zp(t["T1"]), zp(t["T2"]), zp(t["T3"], y_near_top)
    x = near(t["T1"], x_shape, rng, xz)
    w = near(t["T2"], w_shape, rng, wz)
    m = w_shape[0]
    f = np.float32
    if per_channel:
        ws = array([Fraction(1, 4) if k % 2 else Fraction(1, 2) for k in range(m)], "float")
        wzp = array([wz + (k % 3) for k in range(m)], t["T2"])
    else:
        ws, wzp = array([Fraction(1, 4)], "float"), array([wz], t["T2"])
    b = array([int(k) for k in rng.integers(-20, 21, size=m)], "int32") if bias else None
    return case(v, t, x, f(0.5), array(xz, t["T1"]), w, ws, wzp, f(0.25), array(yz, t["T3"]), b, **attrs)


@OPERATOR.example
def per_tensor(v, t, rng):
    return ours(v, t, rng, (1, 2, 4, 4), (3, 2, 2, 2))


@OPERATOR.example
def per_channel(v, t, rng):
    """w_scale and w_zero_point 1-D of M elements: one per output channel."""
    return ours(v, t, rng, (1, 2, 4, 4), (3, 2, 2, 2), per_channel=True)


@OPERATOR.example
def bias(v, t, rng):
    """B (int32, scale x_scale * w_scale, zero point 0) added per output channel."""
    return ours(v, t, rng, (1, 2, 3, 4), (3, 2, 2, 2), per_channel=True, bias=True, pads=[1, 0, 0, 1])


@OPERATOR.example
def saturation(v, t, rng):
    """y_zero_point near the top of the output type and wide operands: the results saturate at both ends."""
    xz, wz = zp(t["T1"]), zp(t["T2"])
    lo1, hi1 = values.int_range(t["T1"])
    lo2, hi2 = values.int_range(t["T2"])
    x = array([[hi1, lo1], [lo1, hi1]], t["T1"], (1, 1, 2, 2))
    w = array([hi2, lo2, lo2, hi2, lo2, hi2, hi2, lo2], t["T2"], (2, 1, 2, 2))
    f = np.float32
    return case(v, t, x, f(1), array(xz, t["T1"]), w, f(1), array(wz, t["T2"]), f(64),
                        array(zp(t["T3"], True), t["T3"]), pads=[1, 1, 1, 1])


def layout(name):
    def example(v, t, rng):
        xs, ws, attrs = CONV_LAYOUTS[name]
        return ours(v, t, rng, xs, ws, **attrs)

    example.__doc__ = f"x {CONV_LAYOUTS[name][0]}, w {CONV_LAYOUTS[name][1]}, {CONV_LAYOUTS[name][2]}"
    return example


for _name in CONV_LAYOUTS:
    OPERATOR.example(layout(_name), name=_name)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"max abs err 1\b",
    "the evaluator adds y_zero_point before rounding (np.round(res * x_scale * w_scale / y_scale + y_zero_point)); "
    "the quantization formula rounds x / y_scale half to even and then adds y_zero_point, so at a half with an "
    "odd zero point they differ by one (onnxruntime agrees with ours)",
)
