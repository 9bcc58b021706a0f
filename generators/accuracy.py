"""How far from the correctly rounded result a backend's answer may be: a budget per function and type.

A case's `tolerance` is {"ulp": N}: each value must lie within N representable values of the
correctly rounded one (NaN and infinities by position), or {"ulp": N, "atol": A} where a
function computed by its defining formula cancels near zero (Elu's alpha * (exp(x) - 1)), so
an absolute error near the format's epsilon is what that formula gives and the spec asks no more.

The anchor is the OpenCL C specification's table of built-in math accuracy (section 7.4,
"Relative Error as ULPs", full profile), single precision for float and double precision for
double: that table bounds the error against the exact result in ULP; a bound b against the exact
result allows floor(b + 1/2) steps from the correctly rounded one. float16 and bfloat16 get one
step: computing in float and rounding once to the type lands within it, and the issue this
closes is a runtime computing a narrow type in that type.
"""

from __future__ import annotations

import math

# ULP from the exact result: OpenCL C 7.4, single precision (float) and double precision (double)
OPENCL_FLOAT = {
    "add": 0, "sub": 0, "mul": 0, "div": 2.5, "reciprocal": 2.5, "sqrt": 3,
    "exp": 3, "log": 3, "pow": 16, "erf": 16,
    "sin": 4, "cos": 4, "tan": 5, "asin": 4, "acos": 4, "atan": 5,
    "sinh": 4, "cosh": 4, "tanh": 5, "asinh": 4, "acosh": 4, "atanh": 5,
}
OPENCL_DOUBLE = {**OPENCL_FLOAT, "div": 0, "reciprocal": 0, "sqrt": 0}

# Functions the table does not list: ONNX's activations, defined by formulas over the listed ones.
# Their budget is the table's largest (pow and erf: 16), with an absolute allowance of a few
# epsilon where the formula cancels (x near 0 in exp(x) - 1, log(1 + exp(x)) for large -x).
COMPOSITE = 16
NARROW = 1  # float16, bfloat16

EPSILON = {"float": 2.0**-23, "double": 2.0**-52, "float16": 2.0**-10, "bfloat16": 2.0**-7}


def budget(function: str, type_name: str, cancels: bool = False) -> dict | None:
    """The tolerance for `function` ('exp', 'tanh', ..., or 'composite') in `type_name`.

    None for types compared exactly (integers, bool, the 8-bit-and-narrower floats)."""
    if type_name not in EPSILON:
        return None
    if type_name in ("float16", "bfloat16"):
        steps = NARROW
    else:
        table = OPENCL_DOUBLE if type_name == "double" else OPENCL_FLOAT
        steps = math.floor(table.get(function, COMPOSITE) + 0.5)
    out: dict = {"ulp": steps}
    if cancels:
        out["atol"] = 4 * EPSILON[type_name]
    return out


def accumulation(type_name: str, n: int, magnitude: float = 0.0, after: int = 0) -> dict | None:
    """The tolerance of a result accumulated over `n` terms (a dot product, a convolution window,
    a mean or variance), for a runtime that may sum in any order.

    The spec names no accumulation order or type, so the rule is the usual statistical bound on
    rounding error: a sum of n terms in a type with epsilon e is off by about sqrt(n) * e * M,
    where M (`magnitude`) is the largest sum of |terms| over the output elements. The budget is
    k = ceil(2 * sqrt(n)) steps from the correctly rounded value, or k * e * M absolute,
    whichever is larger. float16 and bfloat16 are judged as accumulated in float and rounded
    once: one step of the narrow type, or k * e(float) * M absolute; a runtime that accumulates
    in the 16-bit type itself errs by k steps of that type and fails once n is past a handful.
    `after` adds the ULP steps of a function applied to the sum (sqrt, exp), as budget() gives them.

    None for types compared exactly (integers, bool, the 8-bit-and-narrower floats)."""
    if type_name not in EPSILON:
        return None
    k = math.ceil(2 * math.sqrt(max(n, 1)))
    if type_name in ("float16", "bfloat16"):
        steps, eps = NARROW, EPSILON["float"]
    else:
        steps, eps = k, EPSILON[type_name]
    out: dict = {"ulp": steps + after}
    if magnitude:
        out["atol"] = float(k * eps * magnitude)
    return out
