"""Shrink: y = x + bias for x < -lambd, x - bias for x > lambd, 0 otherwise; exact."""

import math

from onnx_conformance.generators import values
from onnx_conformance.generators.activation_family import Activation, array, exact_tolerance
from onnx_conformance.generators.case import NotApplicable, Operator

OPERATOR = Operator("Shrink")


def shrink(a, x):
    # NaN is neither below -lambd nor above lambd: 'Otherwise, y = 0'.
    if isinstance(x, float) and math.isnan(x):
        return 0.0
    if x < -a["lambd"]:
        return x + a["bias"]
    if x > a["lambd"]:
        return x - a["bias"]
    return 0.0 if isinstance(x, float) else 0 * a["bias"]


SHRINK = Activation(OPERATOR, shrink, exact_tolerance, x="input", y="output")

HARD = [-2, -1, 0, 1, 2]  # onnx's arange(-2, 2.1)
SHRINK.documented("hard", HARD, {"lambd": 1.5})
# An integer T holds no x - 1.5: the spec gives no rounding, so the soft example is for floats.
SHRINK.documented("soft", HARD, {"lambd": 1.5, "bias": 1.5},
                  when=lambda v, t: NotApplicable("y = x - bias with bias 1.5 is not an integer: the spec defines "
                                                  "no rounding to an integer T") if values.is_int(t.dtype) else None)
SHRINK.documented("default")
SHRINK.dtype_range(attrs={"lambd": 1.5, "bias": 1.0})

AT_LAMBD = [-3, -2, -1, 0, 1, 2, 3]


@OPERATOR.example
def at_lambd(v, t, rng):
    """x exactly -lambd and lambd (2): neither 'x < -lambd' nor 'x > lambd', so 'Otherwise, y = 0'; bias 1,
    so a kernel with <= and >= answers -1 and 1 there. Each type gets the values it holds."""
    attrs = {"lambd": 2.0, "bias": 1.0}
    lowest = values.int_range(t.dtype)[0] if values.is_int(t.dtype) else -math.inf
    x = SHRINK.defined(v, t, [e for e in AT_LAMBD if e >= lowest], attrs)
    return SHRINK.case(v, t, array(x, t.dtype), attrs)

# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs("^dtype_range u?int64: ",
                           "the evaluator computes x - bias in float64 (numpy promotes int64 with a Python float): "
                           "beyond 2^53 the value is rounded, and wraps when cast back; the exact x - bias fits T")
