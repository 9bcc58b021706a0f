"""LinearClassifier (ai.onnx.ml): one score per class, X . coefficients^T + intercepts, post transformed (Z);
the label of the highest score (Y)."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.ml_family import (PROBIT_COEFFICIENTS, data, floats, linear, magnitude, ml_operator,
                                                   one_of, post_transformed, rounded, rows_of, top_class,
                                                   transform_tolerance)
from onnx_conformance.generators.semantics import Undefined, attr

OPERATOR = ml_operator("LinearClassifier", primary="T1")

INT_LABELS = [5, 2, 9]
STRING_LABELS = ["ham", "spam", "eggs"]
COEFFICIENTS = [0.5, -1.25, 2.0, -0.75, 1.0, 0.25, 1.5, 0.5, -1.0]
INTERCEPTS = [0.25, -0.5, 0.125]


@OPERATOR.semantics
def classify(v, attrs, inputs):
    """Z: per row, one score per class, X . coefficients + intercept (the coefficient sets contiguous, one per class
    label), post transformed, rounded once to float; Y: the label of the highest score. The schema does not
    describe a coefficient count other than one set per label, what multi_class changes, or which label a tie
    (or a transform that reorders the scores, SOFTMAX_ZERO) gives: no value there."""
    x = rows_of(v, inputs["X"])
    which = one_of(attrs, ("classlabels_ints", "classlabels_strings"),
                   v.schema.attributes["classlabels_ints"].description.split(". ")[-1])
    labels = list(attrs[which])
    k = len(labels)
    coefficients, intercepts = attr(attrs, "coefficients", []), attrs.get("intercepts")
    if len(coefficients) != k * x.shape[1] or (intercepts is not None and len(intercepts) != k):
        raise Undefined("coefficients or intercepts other than one set per class label: the schema does not "
                        "describe them")
    if attr(attrs, "multi_class", 0):
        raise Undefined("multi_class: 'Indicates whether to do OvR or multinomial': the schema does not say how "
                        "multinomial changes the scores")
    raw = linear(x, coefficients, intercepts, k)
    rows = post_transformed(v, attrs, raw)
    top = [top_class(r) for r in raw]
    if any(t is None or t != top_class(r) for t, r in zip(top, rows)):
        raise Undefined("tied top scores (or a transform changing which is top): the schema names no label")
    y = np.array([labels[i] for i in top], dtype=object if which == "classlabels_strings" else np.int64)
    return {"Y": y, "Z": rounded([e for r in rows for e in r], "float", (x.shape[0], k))}


def classified(v, t, x, coefficients=COEFFICIENTS, intercepts=INTERCEPTS, post=None):
    """Three classes, one coefficient set each (no two-class special case, which the schema does not
    describe). The data keeps the largest score unique."""
    if post is not None and (t["T1"] not in ("float", "double") or t.suffix):
        return NotApplicable("post transform examples run in float and double with int64 labels; the other "
                             "types are covered by scores and more_rows")
    labels = STRING_LABELS if t["T2"] == "string" else INT_LABELS
    attrs = {"coefficients": floats(coefficients),
             "classlabels_strings" if t["T2"] == "string" else "classlabels_ints": labels}
    if intercepts is not None:
        attrs["intercepts"] = floats(intercepts)
    if post is not None:
        attrs["post_transform"] = post
    tol = transform_tolerance(post or "NONE", "float", x.shape[1] + 1, magnitude(x, coefficients, intercepts, 3))
    return OPERATOR.expect(v, {"X": x}, attrs, tolerance=tol)


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
    return classified(v, t, sample(t, rng))


@OPERATOR.example
def more_rows(v, t, rng):
    return classified(v, t, sample(t, rng, (6, 3)))


@OPERATOR.example
def post_softmax(v, t, rng):
    return classified(v, t, sample(t, rng), post="SOFTMAX")


@OPERATOR.example
def post_logistic(v, t, rng):
    return classified(v, t, sample(t, rng), post="LOGISTIC")


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
            return classified(v, t, x, coefficients, intercepts, post="SOFTMAX_ZERO")
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
            return classified(v, t, x, coefficients, intercepts, post="PROBIT")
    raise ValueError("no untied data")


OPERATOR.reference_differs(r"output 1 dtype double != expected float",
                           "Z is tensor(float) for every T1; the evaluator computes the scores in double for double X")
OPERATOR.reference_differs(r"^post_probit float: ",
                           "PROBIT is the standard normal quantile, sqrt(2) erfinv(2p - 1); the evaluator's erf_inv is "
                           "Winitzki's closed-form approximation (a = 0.147), off by ~2e-4 here")
