"""TreeEnsembleClassifier (ai.onnx.ml): per class, the summed votes of the leaves each row reaches plus the
base values, post transformed (Z); the label of the highest score (Y)."""

import numpy as np
from onnx import numpy_helper

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.ml_family import (floats, ml_operator, one_of, post_transformed, rounded, rows_of,
                                                   top_class)
from onnx_conformance.generators.semantics import Undefined
from onnx_conformance.generators.tree_family import (Leaf, Node, attribute_values, evaluate, legacy_attrs, legacy_trees,
                                                     predict, split_data)

OPERATOR = ml_operator("TreeEnsembleClassifier", primary="T1")

INT_LABELS = [4, 1, 8]
STRING_LABELS = ["low", "mid", "high"]


def three_class_trees():
    """Two trees; every leaf votes for all three classes (so no class is left to an implementation's default)."""
    def v(a, b, c):
        return Leaf([(0, a), (1, b), (2, c)])
    t0 = Node(0, "BRANCH_LEQ", 0.5, Node(1, "BRANCH_LT", -1.25, v(1.5, 0.25, -0.5), v(-0.75, 2.0, 0.125)),
              v(0.375, -1.0, 1.75))
    t1 = Node(1, "BRANCH_GT", 0.75, v(0.5, 0.625, -0.25), Node(2, "BRANCH_GTE", 2.0, v(-1.5, 0.0, 1.0),
                                                                  v(2.25, -0.5, 0.0)))
    return [t0, t1]


@OPERATOR.semantics
def tree_classify(v, attrs, inputs):
    """Z: per row and class, the summed votes of the leaves the row reaches ('The class_ids are indices into this
    list'), plus the base value ('added to final class score'), post transformed, rounded once to float; Y: the
    label of the top class. No label is stated for tied top scores, or where the transform reorders them."""
    x = rows_of(v, inputs["X"])
    which = one_of(attrs, ("classlabels_strings", "classlabels_int64s"),
                   v.schema.attributes["classlabels_strings"].description.split("<br>")[-1])
    labels = list(attrs[which])
    raw = evaluate(legacy_trees(v, attrs, "class"), x, len(labels), "SUM", attribute_values(attrs, "base_values"))
    rows = post_transformed(v, attrs, raw)
    top = [top_class(r) for r in raw]
    if any(t is None or t != top_class(r) for t, r in zip(top, rows)):
        raise Undefined("tied top class scores (or a transform changing which is top): the schema names no class")
    y = np.array([labels[i] for i in top], dtype=object if which == "classlabels_strings" else np.int64)
    return {"Y": y, "Z": rounded([e for r in rows for e in r], "float", (x.shape[0], len(labels)))}


def classified(v, t, x, trees=None, base=None, post=None, as_tensor=False):
    trees = trees or three_class_trees()
    if post is not None and (t["T1"] not in ("float", "double") or t.suffix):
        return NotApplicable("post transform examples run in float and double with int64 labels; the other "
                             "types are covered by scores")
    if as_tensor and (v.since_version < 3 or t["T1"] != "double"):
        return NotApplicable("the *_as_tensor attributes are TreeEnsembleClassifier-3's, for double")
    labels = STRING_LABELS if t["T2"] == "string" else INT_LABELS
    attrs = legacy_attrs(trees, "class", as_tensor)
    attrs["classlabels_strings" if t["T2"] == "string" else "classlabels_int64s"] = labels
    if base is not None:
        if as_tensor:
            attrs["base_values_as_tensor"] = numpy_helper.from_array(np.array(base, np.float64), "base_values_as_tensor")
        else:
            attrs["base_values"] = floats(base)
    if post:
        attrs["post_transform"] = post
    tol = {"ulp": 2} if not post else {"ulp": 2 + budget("composite", "float")["ulp"]}
    if post == "PROBIT":
        tol["atol"] = 1e-6
    return OPERATOR.expect(v, {"X": x}, attrs, tolerance=tol)


def untied(t, rng, shape, trees=None, base=None):
    for _ in range(200):
        x = split_data(t["T1"], shape, rng)
        if all(sorted(r)[-1] != sorted(r)[-2] for r in predict(trees or three_class_trees(), x, 3, "SUM", base)):
            return x
    raise ValueError("no untied data")


@OPERATOR.example
def scores(v, t, rng):
    return classified(v, t, untied(t, rng, (5, 3)))


@OPERATOR.example
def base_values(v, t, rng):
    base = [0.25, -0.5, 1.0]
    return classified(v, t, untied(t, rng, (4, 3), base=base), base=base)


@OPERATOR.example
def as_tensor(v, t, rng):
    base = [0.25, -0.5, 1.0]
    return classified(v, t, untied(t, rng, (4, 3), base=base), base=base, as_tensor=True)


@OPERATOR.example
def post_softmax(v, t, rng):
    return classified(v, t, untied(t, rng, (4, 3)), post="SOFTMAX")


@OPERATOR.example
def post_logistic(v, t, rng):
    return classified(v, t, untied(t, rng, (4, 3)), post="LOGISTIC")


@OPERATOR.example
def post_softmax_zero(v, t, rng):
    """Class 2 always scores 0: SOFTMAX_ZERO leaves it 0."""
    trees = [Node(0, "BRANCH_LEQ", 0.5, Leaf([(0, 1.5), (1, 0.25), (2, 0.0)]), Leaf([(0, -0.5), (1, 0.75), (2, 0.0)]))]
    return classified(v, t, untied(t, rng, (4, 3), trees), trees, post="SOFTMAX_ZERO")


@OPERATOR.example
def post_probit(v, t, rng):
    """Scores inside (0, 1), where the probit is finite."""
    trees = [Node(0, "BRANCH_LEQ", 0.5, Leaf([(0, 0.25), (1, 0.625), (2, 0.125)]),
                  Leaf([(0, 0.875), (1, 0.375), (2, 0.5)]))]
    return classified(v, t, untied(t, rng, (4, 3), trees), trees, post="PROBIT")


@OPERATOR.example
def missing_tracks_true(v, t, rng):
    if t["T1"] not in ("float", "double") or t.suffix:
        return NotApplicable("a missing value is a NaN: float and double inputs only")
    trees = [Node(0, "BRANCH_LEQ", 0.5, Leaf([(0, 1.5), (1, 0.25), (2, -1.0)]),
                  Leaf([(0, -0.5), (1, 0.75), (2, 0.125)]), missing_true=1)]
    x = untied(t, rng, (4, 3), trees)
    x[1, 0] = np.nan
    return classified(v, t, x, trees)


OPERATOR.reference_differs(r"output 1 dtype double != expected float",
                           "Z is tensor(float) for every T1; the evaluator returns double scores for double X")
OPERATOR.reference_differs(r"^post_probit ", __import__("onnx_conformance.generators.ml_family", fromlist=["x"]).PROBIT_REASON)
OPERATOR.reference_differs(r"^as_tensor .*Issues with types",
                           "the evaluator reads base_values, not base_values_as_tensor (it adds None)")
