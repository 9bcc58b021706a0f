"""LinearRegressor (ai.onnx.ml): Y = X . coefficients^T + intercepts per target, then the post transform."""

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.ml_family import (PROBIT_COEFFICIENTS, data, floats, linear, magnitude, ml_operator,
                                                   post_transformed, rounded, rows_of, transform_tolerance)
from onnx_conformance.generators.semantics import Rejected, attr

OPERATOR = ml_operator("LinearRegressor")


@OPERATOR.semantics
def regress(v, attrs, inputs):
    """Per row, each target's X . coefficients + intercept ('The coefficients array is of length n, and the
    coefficients for each target are contiguous'; 'Intercepts are optional but if provided must match the number
    of targets'), exact, post transformed, rounded once to float."""
    x = rows_of(v, inputs["X"])
    k = attr(attrs, "targets", 1)
    coefficients, intercepts = attr(attrs, "coefficients", []), attrs.get("intercepts")
    if len(coefficients) != k * x.shape[1]:
        raise Rejected(v.sentence(r"coefficients for each target are contiguous"))
    if intercepts is not None and len(intercepts) != k:
        raise Rejected(v.sentence(r"Intercepts are optional"))
    rows = post_transformed(v, attrs, linear(x, coefficients, intercepts, k))
    return {"Y": rounded([e for row in rows for e in row], "float", (x.shape[0], k))}


def regressed(v, t, x, coefficients, intercepts=None, targets=None, post=None):
    if post is not None and t.dtype not in ("float", "double"):
        return NotApplicable("post transform examples run in float and double; the integer input types are "
                             "covered by univariate, no_intercepts and two_targets")
    k = targets or 1
    attrs = {"coefficients": floats(coefficients)}
    if intercepts is not None:
        attrs["intercepts"] = floats(intercepts)
    if targets is not None:
        attrs["targets"] = targets
    if post is not None:
        attrs["post_transform"] = post
    tol = transform_tolerance(post or "NONE", "float", x.shape[1] + 1, magnitude(x, coefficients, intercepts, k))
    return OPERATOR.expect(v, {"X": x}, attrs, tolerance=tol)


@OPERATOR.example
def univariate(v, t, rng):
    return regressed(v, t, data(t.dtype, (4, 3), rng), [0.5, -1.25, 2.0], [0.75])


@OPERATOR.example
def no_intercepts(v, t, rng):
    return regressed(v, t, data(t.dtype, (3, 3), rng), [1.5, 0.25, -0.5])


@OPERATOR.example
def two_targets(v, t, rng):
    return regressed(v, t, data(t.dtype, (3, 2), rng), [0.5, -1.0, 2.0, 0.125], [1.0, -2.0], targets=2)


@OPERATOR.example
def post_softmax(v, t, rng):
    return regressed(v, t, data(t.dtype, (3, 3), rng), [0.5, -0.25, 0.125, 0.25, 0.5, -0.5], [0.0, 0.5],
                     targets=2, post="SOFTMAX")


@OPERATOR.example
def post_logistic(v, t, rng):
    return regressed(v, t, data(t.dtype, (3, 3), rng), [0.5, -0.25, 0.125], [0.5], post="LOGISTIC")


@OPERATOR.example
def post_softmax_zero(v, t, rng):
    """SOFTMAX_ZERO: a zero score stays 0; the others share the softmax (the second target is 0)."""
    return regressed(v, t, data(t.dtype, (3, 3), rng), [0.5, -0.25, 0.125, 0.0, 0.0, 0.0], [0.25, 0.0],
                     targets=2, post="SOFTMAX_ZERO")


@OPERATOR.example
def post_probit(v, t, rng):
    return regressed(v, t, data(t.dtype, (3, 3), rng), PROBIT_COEFFICIENTS, [0.5], post="PROBIT")


OPERATOR.reference_differs(r"dtype (double|int32|int64) != expected float",
                           "LinearRegressor's Y is tensor(float) for every T; the evaluator computes in X's type")
OPERATOR.reference_differs(r"Issues with types .*operator 'LinearRegressor'",
                           "the evaluator casts the coefficients to X's integer type and fails")
OPERATOR.reference_differs(r"post_transform: '\w+' is not implemented",
                           "the evaluator's LinearRegressor implements post_transform NONE only")
OPERATOR.reference_differs(r"^no_intercepts float: .*got nan",
                           "intercepts are optional ('Intercepts are optional'); the evaluator turns a missing "
                           "intercepts attribute into NaN")
