"""SVMRegressor (ai.onnx.ml): Y = sum_j coefficients_j * K(X, support_vector_j) + rho, per row."""

from fractions import Fraction

import mpmath

from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.case import Case, NotApplicable
from onnx_conformance.generators.ml_family import data, exact_of, f32, floats, ml_operator, rounded
from onnx_conformance.generators.rounding import PREC

OPERATOR = ml_operator("SVMRegressor")

SUPPORT_VECTORS = [[0.5, -1.0, 0.25], [-0.75, 0.5, 1.0], [1.0, 0.25, -0.5]]
COEFFICIENTS = [0.5, -0.25, 0.75]


def kernel(kind, x, sv, gamma, coef0, degree):
    """kernel_params are 'gamma, coef0, and degree, in that order': LINEAR x.sv, POLY (gamma x.sv + coef0)^degree,
    RBF exp(-gamma |x - sv|^2), SIGMOID tanh(gamma x.sv + coef0)."""
    dot = sum((a * b for a, b in zip(x, sv)), Fraction(0))
    if kind == "LINEAR":
        return dot
    if kind == "POLY":
        return (gamma * dot + coef0) ** degree
    q = (lambda f: mpmath.mpf(f.numerator) / f.denominator)
    if kind == "RBF":
        return mpmath.exp(-q(gamma) * q(sum((a - b) ** 2 for a, b in zip(x, sv))))
    return mpmath.tanh(q(gamma * dot + coef0))


def regressed(v, t, x, kind=None, params=None):
    """rho is 0: the schema does not say whether rho is added or subtracted (libsvm subtracts it)."""
    gamma, coef0, degree = params or (0.0, 0.0, 0)
    g, c0 = f32(gamma), f32(coef0)
    svs = [[f32(e) for e in sv] for sv in SUPPORT_VECTORS]
    coefs = [f32(e) for e in COEFFICIENTS]
    n, f = x.shape
    ex = exact_of(x)
    out = []
    with mpmath.workprec(PREC):
        for r in range(n):
            row = ex[r * f:(r + 1) * f]
            out.append(sum(cf * kernel(kind or "LINEAR", row, sv, g, c0, int(degree)) for cf, sv in zip(coefs, svs)))
    attrs = {"coefficients": floats(COEFFICIENTS), "support_vectors": floats(sum(SUPPORT_VECTORS, [])),
             "n_supports": len(SUPPORT_VECTORS), "rho": [0.0]}
    if kind:
        attrs["kernel_type"] = kind
    if params:
        attrs["kernel_params"] = floats([gamma, coef0, degree])
    steps = {"POLY": 3 * int(degree), "RBF": 16, "SIGMOID": 16}.get(kind or "LINEAR", 0)
    tol = accumulation("float", f * len(svs), 4.0 * 3 * 4, after=steps)
    return Case({"X": x}, {"Y": rounded(out, "float", (n, 1))}, attrs, tolerance=tol)


def float_only(t):
    if t.dtype not in ("float", "double"):
        return NotApplicable("kernel examples run in float and double; the integer types are covered by linear")
    return None


@OPERATOR.example
def linear(v, t, rng):
    return regressed(v, t, data(t.dtype, (4, 3), rng, -2, 2))


@OPERATOR.example
def poly(v, t, rng):
    return float_only(t) or regressed(v, t, data(t.dtype, (4, 3), rng, -2, 2), "POLY", (0.5, 0.25, 2))


@OPERATOR.example
def rbf(v, t, rng):
    return float_only(t) or regressed(v, t, data(t.dtype, (4, 3), rng, -2, 2), "RBF", (0.5, 0.0, 0))


@OPERATOR.example
def sigmoid(v, t, rng):
    return float_only(t) or regressed(v, t, data(t.dtype, (4, 3), rng, -2, 2), "SIGMOID", (0.25, 0.125, 0))


OPERATOR.reference_differs(r"dtype (double|int32|int64) != expected float",
                           "SVMRegressor's Y is tensor(float) for every T; the evaluator returns X's type")
