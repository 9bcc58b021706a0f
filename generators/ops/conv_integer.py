"""ConvInteger: conv(x - x_zero_point, w - w_zero_point) exactly, in int32 (w's zero point per tensor or
per output channel)."""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.quant_family import (
    CONV_LAYOUTS,
    conv_geometry,
    conv_zero_points,
    full_range,
    int32_accumulation,
    shifted_conv,
)

OPERATOR = Operator("ConvInteger", defaults={"T2": lambda v, b: b.get("T1", "uint8")})


@OPERATOR.semantics
def conv_integer(v, attrs, inputs):
    """y = conv(x - x_zero_point, w - w_zero_point), exact, in int32 (the zero points default to 0; w's per
    tensor or per output channel); 'The accumulation may overflow if and only if in 32 bits': an overflowing
    sum has no value."""
    x, w = np.asarray(inputs["x"]), np.asarray(inputs["w"])
    xzp, wzp = inputs.get("x_zero_point"), inputs.get("w_zero_point")
    geometry = conv_geometry(v, attrs, x.shape, w.shape)
    conv_zero_points(v, w.shape, xzp, wzp)
    return {"y": int32_accumulation(shifted_conv(x, w, xzp, wzp, geometry))}


def case(v, x, w, xzp=None, wzp=None, **attrs):
    return OPERATOR.expect(v, {"x": x, "w": w, "x_zero_point": xzp, "w_zero_point": wzp}, attrs)


def zp(type_name, shape=()):
    return np.full(shape, 7 if type_name == "uint8" else -5, dtype=type_name)


DOC_X = np.array([2, 3, 4, 5, 6, 7, 8, 9, 10], np.uint8).reshape(1, 1, 3, 3)


@OPERATOR.example
def without_padding(v, t, rng):
    """onnx's documented data (uint8 values that every allowed type holds), x_zero_point 1, no w_zero_point."""
    x = DOC_X.astype(t["T1"])
    return case(v, x, np.ones((1, 1, 2, 2), t["T2"]), np.array(1, t["T1"]))


@OPERATOR.example
def with_padding(v, t, rng):
    """pads 1 on every side, w_zero_point per output channel [0, 1]."""
    x = DOC_X.astype(t["T1"])
    return case(v, x, np.ones((2, 1, 2, 2), t["T2"]), np.array(1, t["T1"]), np.array([0, 1], t["T2"]),
                        pads=[1, 1, 1, 1])


@OPERATOR.example
def per_tensor(v, t, rng):
    """Both operands over their types' whole ranges, scalar zero points."""
    return case(v, full_range(t["T1"], (1, 2, 4, 4), rng), full_range(t["T2"], (3, 2, 2, 2), rng),
                        zp(t["T1"]), zp(t["T2"]))


@OPERATOR.example
def per_channel(v, t, rng):
    """w_zero_point a 1-D tensor of M elements: one per output channel."""
    return case(v, full_range(t["T1"], (1, 2, 4, 4), rng), full_range(t["T2"], (3, 2, 2, 2), rng),
                        zp(t["T1"]), np.array([3, 0, 9], t["T2"]))


@OPERATOR.example
def no_zero_point(v, t, rng):
    """Both zero points left out: 'default value is 0'."""
    return case(v, full_range(t["T1"], (1, 1, 3, 4), rng), full_range(t["T2"], (2, 1, 2, 2), rng))


def layout(name):
    def example(v, t, rng):
        xs, ws, attrs = CONV_LAYOUTS[name]
        return case(v, full_range(t["T1"], xs, rng), full_range(t["T2"], ws, rng), zp(t["T1"]), zp(t["T2"]),
                            **attrs)

    example.__doc__ = f"x {CONV_LAYOUTS[name][0]}, w {CONV_LAYOUTS[name][1]}, {CONV_LAYOUTS[name][2]}"
    return example


for _name in CONV_LAYOUTS:
    OPERATOR.example(layout(_name), name=_name)
