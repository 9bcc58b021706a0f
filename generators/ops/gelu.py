"""Gelu: y = 0.5 * x * (1 + erf(x / sqrt(2))), or its tanh approximation; correctly rounded."""

import mpmath

from onnx_conformance.generators.activation_family import INF, Activation, composite, mp, unary
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.semantics import Rejected, described

OPERATOR = Operator("Gelu")


def gelu(a, x):
    x = mp(x)
    if a["approximate"] == "tanh":
        # 1 + tanh(z) written as 2 / (1 + exp(-2z)): the same value, without cancelling at high precision
        z = mpmath.sqrt(2 / mpmath.pi) * (x + mpmath.mpf("0.044715") * x**3)
        return x / (1 + mpmath.exp(-2 * z))
    if abs(x) > 1000:  # mpmath's erfc overflows far out; there erfc(-x / sqrt(2)) is 2 or 0 within 2^-700000
        return x if x > 0 else -mpmath.mpf(2) ** -2000
    return x * mpmath.erfc(-x / mpmath.sqrt(2)) / 2  # 1 + erf(t) = erfc(-t)


def approximation(v, a):
    """approximate: 'Gelu approximation algorithm: `"tanh"`, `"none"`(default).': no other value."""
    if a["approximate"] not in ("none", "tanh"):
        raise Rejected(described(v, "approximate"))


# -inf is left out: the formula gives -inf * 0 there.
GELU = Activation(OPERATOR, unary(gelu, inf=INF), composite(cancels=True),  # 1 + erf(.) cancels for x well below 0
                  check=approximation)

GELU.documented("default_1", [-1, 0, 1])
GELU.documented("default_2")
GELU.documented("tanh_1", [-1, 0, 1], {"approximate": "tanh"})
GELU.documented("tanh_2", attrs={"approximate": "tanh"})
GELU.dtype_range()
GELU.dtype_range("dtype_range_tanh", {"approximate": "tanh"})

# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs("double: ",
                           "the evaluator runs Gelu's function body, whose constants (sqrt(2), sqrt(2/pi), 0.044715) "
                           "are float32 values cast to double; the formula's constants are exact")

# Where the function body, run node by node, differs from our value, and why ours stands (cases/expanded.md).
OPERATOR.body_differs("double: ", "the body's constants (sqrt(2/pi) from float 0.63661975, 0.044715) are float32 "
                                  "values cast to X's type: in double they carry float's rounding; the formula's "
                                  "constants are exact")
