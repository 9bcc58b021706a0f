"""SVMClassifier (ai.onnx.ml): libsvm's one-vs-one classifier over three classes.

The schema's doc is 'Support Vector Machine classifier': its attributes name libsvm's model fields
(support_vectors, vectors_per_class, coefficients = libsvm's sv_coef, (classes-1) x SVs, rho, prob_a,
prob_b, kernel_type and kernel_params 'gamma, coef0, and degree, in that order') without restating
libsvm's decision rule. The examples use libsvm's documented one-vs-one rule (svm_predict_values):
for classes i < j, the decision value is the sum over class i's support vectors of sv_coef[j-1][s] K(x, sv_s)
plus the sum over class j's of sv_coef[i][s] K(x, sv_s) (minus rho); class i gets the vote when it is
positive, class j otherwise; the label is the class with the most votes, ties to the lower class index.

Left out, and why:
- rho is 0 in every example: libsvm subtracts rho, while onnx's reference implementation and onnxruntime
  both add it (ONNX models from scikit-learn store sklearn's intercept_, which is libsvm's -rho); the schema
  gives rho no description, so its sign is not the spec's.
- two classes: libsvm's binary model (one decision value, its sign flipped by converters) and the
  implementations' extra score columns are not described by the schema.
- more than three classes: Z is 'Class scores (one per class per example)', but libsvm's raw scores (and
  the reference implementation's and onnxruntime's Z) are the k(k-1)/2 pairwise decision values; with three
  classes the two counts agree (3), so Z is [N, 3]: the decision values of the pairs (0,1), (0,2), (1,2),
  as the reference implementation and onnxruntime both return them.
- the linear mode (no support vectors): the schema does not define it.
- prob_a / prob_b: 'If these are provided then output Z are probability estimates', with no formula
  (libsvm's pairwise coupling is an iteration the schema does not state).
- post_transform other than NONE: the schema names the transforms without their formulas or what they
  apply to (pairwise decision values are not class scores).
"""

from fractions import Fraction

import mpmath
import numpy as np

from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.case import Declared, NotApplicable, once_per_version
from onnx_conformance.generators.ml_family import (data, exact_of, f32, floats, ml_operator, one_of, rounded, rows_of,
                                                   svm_kernel, svm_kernel_params)
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.semantics import Undefined, attr

OPERATOR = ml_operator("SVMClassifier", primary="T1")

INT_LABELS = [4, 11, -2]
STRING_LABELS = ["red", "green", "blue"]
VECTORS_PER_CLASS = [2, 1, 2]
SUPPORT_VECTORS = [[1.0, 0.5, -0.5], [0.75, -0.25, 0.25],
                   [-0.5, 1.0, 0.25],
                   [0.25, -1.0, -0.75], [-0.25, -0.5, 1.0]]
# libsvm's sv_coef: row r holds, for each SV, its coefficient against the r-th other class
COEFFICIENTS = [[0.5, 0.75, -1.0, 0.5, -0.25],
                [0.25, 0.5, 0.75, -0.5, -0.75]]
PAIRS = [(0, 1), (0, 2), (1, 2)]
STEPS = {"LINEAR": 0, "POLY": 6, "RBF": 16, "SIGMOID": 16}
LABELS_RULE = "One and only one of the 'classlabels_*' attributes must be defined."


def decisions(x, kind, params, svs=SUPPORT_VECTORS, coef=COEFFICIENTS, per_class=VECTORS_PER_CLASS):
    """Per row: the three pairwise decision values (rho 0), and each term's magnitude bound. `params` (gamma,
    coef0, degree), the support vectors (one list each) and libsvm's sv_coef rows as the attributes write them."""
    gamma, coef0, degree = params
    g, c0 = f32(gamma), f32(coef0)
    svs = [[f32(e) for e in sv] for sv in svs]
    coef = [[f32(e) for e in row] for row in coef]
    start = [sum(per_class[:c]) for c in range(3)]
    members = [range(start[c], start[c] + per_class[c]) for c in range(3)]
    n, f = x.shape
    ex = exact_of(x)
    rows, mags = [], []
    with mpmath.workprec(PREC):
        for r in range(n):
            xr = ex[r * f:(r + 1) * f]
            k = [svm_kernel(kind, xr, sv, g, c0, int(degree)) for sv in svs]
            # each kernel's own sum of |terms| (the dot product's), 1 bounding RBF's and SIGMOID's values
            ka = [svm_kernel(kind, [abs(a) for a in xr], [abs(b) for b in sv], abs(g), abs(c0), int(degree))
                  if kind in ("LINEAR", "POLY") else 1 for sv in svs]
            row, mag = [], []
            for i, j in PAIRS:
                terms = [coef[j - 1][s] * k[s] for s in members[i]] + [coef[i][s] * k[s] for s in members[j]]
                row.append(sum(terms))
                mag.append(sum(abs(coef[j - 1][s]) * ka[s] for s in members[i])
                           + sum(abs(coef[i][s]) * ka[s] for s in members[j]))
            rows.append(row)
            mags.append(max(mag))
    return rows, max((float(m) for m in mags), default=0.0)


@OPERATOR.semantics
def svm_classify(v, attrs, inputs):
    """libsvm's one-vs-one rule over three classes (the module's docstring): Z the pairwise decision values of
    (0,1), (0,2), (1,2), rounded once to float; Y the label with the most votes, the lower class index on a tie.
    The schema states no formula for a nonzero rho (its sign), two or more than three classes, the linear mode (no
    support vectors), prob_a / prob_b, or a post_transform other than NONE: no value there."""
    x = rows_of(v, inputs["X"])
    which = one_of(attrs, ("classlabels_ints", "classlabels_strings"), LABELS_RULE)
    labels = list(attrs[which])
    per_class = list(attr(attrs, "vectors_per_class", []))
    if (len(labels) != 3 or len(per_class) != 3 or any(attr(attrs, "rho", [])) or attrs.get("prob_a")
            or attrs.get("prob_b") or attr(attrs, "post_transform", "NONE") != "NONE"):
        raise Undefined("SVMClassifier beyond three classes with support vectors, rho 0, no prob_a / prob_b and "
                        "post_transform NONE: the schema ('Support Vector Machine classifier') states no formula")
    kind, g, c0, degree = svm_kernel_params(v, attrs)
    f, total = x.shape[1], sum(per_class)
    flat_sv, flat_coef = list(attr(attrs, "support_vectors", [])), list(attr(attrs, "coefficients", []))
    if len(flat_sv) != total * f or len(flat_coef) != 2 * total:
        raise Undefined("support_vectors or coefficients of another size than vectors_per_class gives: the schema "
                        "does not describe them")
    svs = [flat_sv[s * f:(s + 1) * f] for s in range(total)]
    rows, _ = decisions(x, kind, (g, c0, degree), svs, [flat_coef[:total], flat_coef[total:]], per_class)
    y = np.array([labels[label_of(r)[0]] for r in rows], dtype=object if which == "classlabels_strings" else np.int64)
    return {"Y": y, "Z": rounded([d for r in rows for d in r], "float", (x.shape[0], 3))}


def label_of(row):
    """One vote per pair: to i when the decision value is positive, else to j; most votes, lowest index on a tie."""
    votes = [0, 0, 0]
    for (i, j), d in zip(PAIRS, row):
        votes[i if d > 0 else j] += 1
    return votes.index(max(votes)), votes


def clear(rows, margin=Fraction(1, 16)):
    """Every decision value away from 0, so the votes do not hang on the last bit of a float kernel."""
    return all(abs(d) >= margin for row in rows for d in row)


def classified(v, t, x, kind="LINEAR", params=(0.0, 0.0, 0), kernel_params=True):
    _, mag = decisions(x, kind, params)
    labels = STRING_LABELS if t["T2"] == "string" else INT_LABELS
    attrs = {"classlabels_strings" if t["T2"] == "string" else "classlabels_ints": labels,
             "coefficients": floats(sum(COEFFICIENTS, [])), "support_vectors": floats(sum(SUPPORT_VECTORS, [])),
             "vectors_per_class": VECTORS_PER_CLASS, "rho": [0.0, 0.0, 0.0], "kernel_type": kind}
    if kernel_params:
        attrs["kernel_params"] = floats(params)
    tol = accumulation("float", x.shape[1] * sum(VECTORS_PER_CLASS), mag, after=STEPS[kind])
    return OPERATOR.expect(v, {"X": x}, attrs, tolerance=tol)


def sample(t, rng, kind="LINEAR", params=(0.0, 0.0, 0), shape=(4, 3), want=None, low=-2, high=2):
    """Rows whose decision values are all clear of 0 (redrawn until they are); `want(rows)` may ask more."""
    for _ in range(2000):
        x = data(t["T1"], shape, rng, low, high)
        rows, _ = decisions(x, kind, params)
        if clear(rows) and (want is None or want(rows)):
            return x
    raise ValueError("no suitable data")


def kernels_only(t):
    if t["T1"] not in ("float", "double") or t.suffix:
        return NotApplicable("kernel examples run in float and double with int64 labels; the other types are "
                             "covered by linear")
    return None


def three_labels(rows):
    """Rows that together reach every class."""
    return {label_of(r)[0] for r in rows} == {0, 1, 2}


@OPERATOR.example
def linear(v, t, rng):
    """LINEAR kernel (kernel_params zero, 'Zero if unused for the kernel'), rows reaching all three classes."""
    return classified(v, t, sample(t, rng, shape=(6, 3), want=three_labels))


@OPERATOR.example
def poly(v, t, rng):
    params = (0.5, 0.25, 2)
    return kernels_only(t) or classified(v, t, sample(t, rng, "POLY", params), "POLY", params)


@OPERATOR.example
def poly_cubic(v, t, rng):
    params = (0.25, -0.5, 3)
    return kernels_only(t) or classified(v, t, sample(t, rng, "POLY", params), "POLY", params)


@OPERATOR.example
def rbf(v, t, rng):
    params = (0.5, 0.0, 0)
    return kernels_only(t) or classified(v, t, sample(t, rng, "RBF", params), "RBF", params)


@OPERATOR.example
def sigmoid(v, t, rng):
    params = (0.25, 0.125, 0)
    return kernels_only(t) or classified(v, t, sample(t, rng, "SIGMOID", params), "SIGMOID", params)


@OPERATOR.example
def vote_tie(v, t, rng):
    """Rows whose three pairwise votes go one to each class: the label is the lowest class index's."""
    if t["T1"] not in ("float", "int64") or t.suffix:
        return NotApplicable("the tie example runs in float and int64 with int64 labels; the types are covered "
                             "by linear")
    tie = (lambda rows: max(label_of(rows[0])[1]) == 1)
    x = np.concatenate([sample(t, rng, shape=(1, 3), want=tie, low=-4, high=4) for _ in range(3)])
    return classified(v, t, x)


@OPERATOR.example
def one_row(v, t, rng):
    """A batch of one: Y [1], Z [1, 3]."""
    if t["T1"] != "float":
        return NotApplicable("the batch-of-one example runs in float; the types are covered by linear")
    return classified(v, t, sample(t, rng, shape=(1, 3)))


@OPERATOR.example
def no_kernel_params(v, t, rng):
    """LINEAR with kernel_params left out: the attribute is optional and unused by the LINEAR kernel."""
    if t["T1"] != "float" or t.suffix:
        return NotApplicable("the kernel_params-absent example runs in float; the types are covered by linear")
    return classified(v, t, sample(t, rng), kernel_params=False)


@OPERATOR.rejection
def both_label_kinds(v, t, rng):
    """'One and only one of the 'classlabels_*' attributes must be defined.': both are. Y is declared with the
    string type onnx's type inference takes when both are set: the model breaks only the rule."""
    if once_per_version(v, t):
        return once_per_version(v, t)
    case = classified(v, t, sample(t, rng, shape=(2, 3)))
    case.attrs["classlabels_strings"] = STRING_LABELS
    return OPERATOR.reject(v, case.inputs, case.attrs, {"Y": Declared("string", (2,)), "Z": Declared("float", (2, 3))})


OPERATOR.reference_differs(r"output 1 dtype (double|int32|int64) != expected float",
                           "Z is tensor(float) for every T1; the evaluator computes the scores in X's type (double)")
