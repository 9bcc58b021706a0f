"""SVMRegressor (ai.onnx.ml): Y = sum_j coefficients_j * K(X, support_vector_j) + rho, per row."""

import mpmath

from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.ml_family import (data, exact_of, f32, floats, ml_operator, post_transformed, rounded,
                                                   rows_of, svm_kernel, svm_kernel_params)
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.semantics import Undefined, attr

OPERATOR = ml_operator("SVMRegressor")

SUPPORT_VECTORS = [[0.5, -1.0, 0.25], [-0.75, 0.5, 1.0], [1.0, 0.25, -0.5]]
COEFFICIENTS = [0.5, -0.25, 0.75]


@OPERATOR.semantics
def svm_regress(v, attrs, inputs):
    """Y = sum_j coefficients_j * K(X, support_vector_j), per row, post transformed, rounded once to float. The
    schema does not say whether rho is added or subtracted (libsvm subtracts it), nor what the one-class flag or
    the linear mode (no support vectors) compute: no value for a nonzero rho, one_class or n_supports 0."""
    x = rows_of(v, inputs["X"])
    kind, g, c0, degree = svm_kernel_params(v, attrs)
    n_sv = attr(attrs, "n_supports", 0)
    coefs = [f32(e) for e in attr(attrs, "coefficients", [])]
    flat_sv = [f32(e) for e in attr(attrs, "support_vectors", [])]
    n, f = x.shape
    if any(attr(attrs, "rho", [])) or attr(attrs, "one_class", 0) or n_sv == 0:
        raise Undefined("a nonzero rho (its sign), one_class or the linear mode (n_supports 0): the schema states "
                        "no formula")
    if len(coefs) != n_sv or len(flat_sv) != n_sv * f:
        raise Undefined("coefficients and support_vectors other than n_supports of them: the schema does not "
                        "describe them")
    svs = [flat_sv[j * f:(j + 1) * f] for j in range(n_sv)]
    ex = exact_of(x)
    out = []
    with mpmath.workprec(PREC):
        for r in range(n):
            row = ex[r * f:(r + 1) * f]
            out.append([sum(cf * svm_kernel(kind, row, sv, g, c0, degree) for cf, sv in zip(coefs, svs))])
        out = post_transformed(v, attrs, out)
    return {"Y": rounded([e for row in out for e in row], "float", (n, 1))}


def regressed(v, t, x, kind=None, params=None):
    """rho is 0: the schema does not say whether rho is added or subtracted (libsvm subtracts it)."""
    gamma, coef0, degree = params or (0.0, 0.0, 0)
    attrs = {"coefficients": floats(COEFFICIENTS), "support_vectors": floats(sum(SUPPORT_VECTORS, [])),
             "n_supports": len(SUPPORT_VECTORS), "rho": [0.0]}
    if kind:
        attrs["kernel_type"] = kind
    if params:
        attrs["kernel_params"] = floats([gamma, coef0, degree])
    steps = {"POLY": 3 * int(degree), "RBF": 16, "SIGMOID": 16}.get(kind or "LINEAR", 0)
    tol = accumulation("float", x.shape[1] * len(SUPPORT_VECTORS), 4.0 * 3 * 4, after=steps)
    return OPERATOR.expect(v, {"X": x}, attrs, tolerance=tol)


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
