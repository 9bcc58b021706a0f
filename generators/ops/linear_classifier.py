"""LinearClassifier (ai.onnx.ml): one score per class, X . coefficients^T + intercepts, post transformed (Z);
the label of the highest score (Y)."""

import numpy as np

from onnx_conformance.generators.case import Case, NotApplicable
from onnx_conformance.generators.ml_family import (PROBIT_COEFFICIENTS, data, floats, linear, magnitude, ml_operator, rounded,
                                  transform_row, transform_tolerance)

OPERATOR = ml_operator("LinearClassifier", primary="T1")

INT_LABELS = [5, 2, 9]
STRING_LABELS = ["ham", "spam", "eggs"]
COEFFICIENTS = [0.5, -1.25, 2.0, -0.75, 1.0, 0.25, 1.5, 0.5, -1.0]
INTERCEPTS = [0.25, -0.5, 0.125]


def classified(t, x, coefficients=COEFFICIENTS, intercepts=INTERCEPTS, post=None):
    """Three classes, one coefficient set each (no two-class special case, which the schema does not
    describe). Y is the label of the largest score; the data keeps the largest score unique."""
    if post is not None and (t["T1"] not in ("float", "double") or t.suffix):
        return NotApplicable("post transform examples run in float and double with int64 labels; the other "
                             "types are covered by scores and more_rows")
    k = 3
    rows = linear(x, coefficients, intercepts, k)
    for row in rows:
        if sorted(row)[-1] == sorted(row)[-2]:
            raise ValueError("tied top scores: pick other data")
    kind = post or "NONE"
    z = rounded([e for row in rows for e in transform_row(row, kind)], "float", (x.shape[0], k))
    labels = STRING_LABELS if t["T2"] == "string" else INT_LABELS
    top = [row.index(max(row)) for row in rows]
    y = np.array([labels[i] for i in top], dtype=object if t["T2"] == "string" else np.int64)
    attrs = {"coefficients": floats(coefficients),
             "classlabels_strings" if t["T2"] == "string" else "classlabels_ints": labels}
    if intercepts is not None:
        attrs["intercepts"] = floats(intercepts)
    if post is not None:
        attrs["post_transform"] = post
    tol = transform_tolerance(kind, "float", x.shape[1] + 1, magnitude(x, coefficients, intercepts, k))
    return Case({"X": x}, {"Y": y, "Z": z}, attrs, tolerance=tol)


def sample(t, rng, shape=(4, 3)):
    """Rows whose top score is unique (redrawn until it is)."""
    for _ in range(100):
        x = data(t["T1"], shape, rng)
        rows = linear(x, COEFFICIENTS, INTERCEPTS, 3)
        if all(sorted(r)[-1] != sorted(r)[-2] for r in rows):
            return x
    raise ValueError("no untied data")


@OPERATOR.example
def scores(v, t, rng):
    return classified(t, sample(t, rng))


@OPERATOR.example
def more_rows(v, t, rng):
    return classified(t, sample(t, rng, (6, 3)))


@OPERATOR.example
def post_softmax(v, t, rng):
    return classified(t, sample(t, rng), post="SOFTMAX")


@OPERATOR.example
def post_logistic(v, t, rng):
    return classified(t, sample(t, rng), post="LOGISTIC")


@OPERATOR.example
def post_softmax_zero(v, t, rng):
    """A class whose weights and intercept are all zero scores 0: SOFTMAX_ZERO leaves it 0. Some other
    class scores above 0 in every row, so the top class is the same before and after the transform."""
    coefficients = COEFFICIENTS[:6] + [0.0, 0.0, 0.0]
    intercepts = INTERCEPTS[:2] + [0.0]
    for _ in range(100):
        x = data(t["T1"], (3, 3), rng)
        rows = linear(x, coefficients, intercepts, 3)
        if all(sorted(r)[-1] != sorted(r)[-2] and r[0] != 0 and r[1] != 0 and max(r[0], r[1]) > 0 for r in rows):
            return classified(t, x, coefficients, intercepts, post="SOFTMAX_ZERO")
    raise ValueError("no untied data")


@OPERATOR.example
def post_probit(v, t, rng):
    """Scores kept inside (0, 1), where the probit is finite."""
    coefficients = PROBIT_COEFFICIENTS + [-0.015625, 0.03125, 0.0625] + [0.0625, 0.03125, -0.03125]
    intercepts = [0.5, 0.375, 0.625]
    for _ in range(100):
        x = data(t["T1"], (3, 3), rng)
        rows = linear(x, coefficients, intercepts, 3)
        if all(sorted(r)[-1] != sorted(r)[-2] for r in rows):
            return classified(t, x, coefficients, intercepts, post="PROBIT")
    raise ValueError("no untied data")


OPERATOR.reference_differs(r"output 1 dtype double != expected float",
                           "Z is tensor(float) for every T1; the evaluator computes the scores in double for double X")
OPERATOR.reference_differs(r"^post_probit float: ",
                           "PROBIT is the standard normal quantile, sqrt(2) erfinv(2p - 1); the evaluator's erf_inv is "
                           "Winitzki's closed-form approximation (a = 0.147), off by ~2e-4 here")
