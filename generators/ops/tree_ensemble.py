"""TreeEnsemble (ai.onnx.ml, version 5): interior nodes and leaves in separate attribute lists; per target,
the aggregated leaf weights of the leaves each row reaches, post transformed; Y is X's type T."""

import numpy as np

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.ml_family import ml_operator, post_transformed, rounded, rows_of
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.generators.tree_family import (Leaf, Node, ensemble5_attrs, ensemble5_trees, evaluate, mode_tree,
                                                     split_data, two_trees)
from onnx_conformance.harness.dtypes import name_of_numpy, numpy_of

OPERATOR = ml_operator("TreeEnsemble")

AGGREGATE = {"AVERAGE": 0, "SUM": 1, "MIN": 2, "MAX": 3}
POST = {"NONE": 0, "SOFTMAX": 1, "LOGISTIC": 2, "SOFTMAX_ZERO": 3, "PROBIT": 4}


@OPERATOR.semantics
def tree_ensemble(v, attrs, inputs):
    """Per row and target, the weights of the leaves the row reaches, aggregated ('AVERAGE' (0) 'SUM' (1) 'MIN' (2)
    'MAX (3)', default SUM), post transformed ('NONE' (0), 'SOFTMAX' (1), 'LOGISTIC' (2), 'SOFTMAX_ZERO' (3) or
    'PROBIT' (4)), rounded once to X's type."""
    x = rows_of(v, inputs["X"])
    aggregate, post = attr(attrs, "aggregate_function", 1), attr(attrs, "post_transform", 0)
    if aggregate not in AGGREGATE.values():
        raise Rejected(f"aggregate_function: {v.schema.attributes['aggregate_function'].description}")
    if post not in POST.values():
        raise Rejected(f"post_transform: {v.schema.attributes['post_transform'].description}")
    k = attr(attrs, "n_targets", 1)
    raw = evaluate(ensemble5_trees(v, attrs), x, k, list(AGGREGATE)[aggregate], None)
    rows = post_transformed(v, {"post_transform": list(POST)[post]}, raw)
    return {"Y": rounded([e for r in rows for e in r], name_of_numpy(x.dtype), (x.shape[0], k))}


def ensemble(v, t, trees, x, n_targets=1, aggregate=None, post=None):
    attrs = ensemble5_attrs(trees, t.dtype)
    attrs["n_targets"] = n_targets
    if aggregate:
        attrs["aggregate_function"] = AGGREGATE[aggregate]
    if post:
        attrs["post_transform"] = POST[post]
    tol = {"ulp": 2} if not post else {"ulp": 2 + budget("composite", t.dtype)["ulp"]}
    if post == "PROBIT":
        tol["atol"] = 1e-6 if t.dtype != "float16" else 2e-3
    return OPERATOR.expect(v, {"X": x}, attrs, tolerance=tol)


@OPERATOR.example
def single_tree(v, t, rng):
    """onnx's documented example: one tree of three LEQ nodes on feature 0, four leaves over two targets."""
    trees = [Node(0, "BRANCH_LEQ", 3.14,
                  Node(0, "BRANCH_LEQ", 1.2, Leaf([(0, 5.23)]), Leaf([(0, -12.23)])),
                  Node(0, "BRANCH_LEQ", 4.2, Leaf([(1, 12.12)]), Leaf([(1, 7.21)])))]
    x = np.array([1.2, 3.4, -0.12, 1.66, 4.14, 1.77], numpy_of(t.dtype)).reshape(3, 2)
    return ensemble(v, t, trees, x, 2, "SUM", "NONE")


@OPERATOR.example
def set_membership(v, t, rng):
    """onnx's documented example: BRANCH_MEMBER nodes with the sets {1.2, 3.7, 8, 9} and {12, 7}; the NaN
    row takes the false branch (nodes_missing_value_tracks_true left undefined: false)."""
    trees = [Node(0, "BRANCH_LEQ", 11.0,
                  Node(0, "BRANCH_MEMBER", [1.2, 3.7, 8, 9], Leaf([(0, 1.0)]),
                       Node(0, "BRANCH_MEMBER", [12, 7], Leaf([(1, 10.0)]), Leaf([(3, 100.0)]))),
                  Leaf([(2, 1000.0)]))]
    x = np.array([1.2, 3.4, -0.12, np.nan, 12, 7], numpy_of(t.dtype)).reshape(-1, 1)
    return ensemble(v, t, trees, x, 4, "SUM", "NONE")


@OPERATOR.example
def sum(v, t, rng):
    return ensemble(v, t, two_trees(one_vote=True), split_data(t.dtype, (5, 3), rng), 1, "SUM")


@OPERATOR.example
def average(v, t, rng):
    return ensemble(v, t, two_trees(one_vote=True), split_data(t.dtype, (4, 3), rng), 1, "AVERAGE")


@OPERATOR.example
def min(v, t, rng):
    return ensemble(v, t, two_trees(one_vote=True), split_data(t.dtype, (4, 3), rng), 1, "MIN")


@OPERATOR.example
def max(v, t, rng):
    return ensemble(v, t, two_trees(one_vote=True), split_data(t.dtype, (4, 3), rng), 1, "MAX")


@OPERATOR.example
def default_aggregate(v, t, rng):
    """No aggregate_function: SUM."""
    return ensemble(v, t, two_trees(one_vote=True), split_data(t.dtype, (3, 3), rng), 1)


def two_target_trees(w0=(1.5, -0.75), w1=(0.5, 2.25)):
    return [Node(0, "BRANCH_LEQ", 0.5, Leaf([(0, w0[0])]), Leaf([(0, w0[1])])),
            Node(1, "BRANCH_GT", -1.0, Leaf([(1, w1[0])]), Leaf([(1, w1[1])]))]


@OPERATOR.example
def multi_target(v, t, rng):
    trees = two_target_trees() + [Node(2, "BRANCH_LT", 0.0, Leaf([(2, -1.25)]), Leaf([(2, 0.375)]))]
    return ensemble(v, t, trees, split_data(t.dtype, (4, 3), rng), 3)


@OPERATOR.example
def single_leaf_tree(v, t, rng):
    """A tree that is one leaf: 'a single nodes_* entry with true and false branches referencing the same leaf_* entry'."""
    return ensemble(v, t, [Leaf([(0, 2.5)]), Node(0, "BRANCH_LEQ", 0.5, Leaf([(0, 1.0)]), Leaf([(0, -1.0)]))],
                    split_data(t.dtype, (3, 3), rng))


def post_example(kind):
    def example(v, t, rng):
        if kind == "PROBIT":
            trees = two_target_trees((0.25, 0.625), (0.125, 0.375))
        elif kind == "SOFTMAX_ZERO":
            trees = two_target_trees((1.5, 0.0), (-0.75, 0.5))
        else:
            trees = two_target_trees()
        return ensemble(v, t, trees, split_data(t.dtype, (4, 3), rng), 2, "SUM", kind)
    return example


for _kind in ("SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"):
    OPERATOR.example(post_example(_kind), name=f"post_{_kind.lower()}")


def mode_example(mode):
    def example(v, t, rng):
        return ensemble(v, t, mode_tree(mode), split_data(t.dtype, (6, 1), rng))
    return example


for _mode in ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ", "BRANCH_MEMBER"):
    OPERATOR.example(mode_example(_mode), name=_mode.lower())


def missing(track):
    def example(v, t, rng):
        x = split_data(t.dtype, (4, 1), rng)
        x[2, 0] = np.nan
        trees = [Node(0, "BRANCH_LEQ", 1.0, Leaf([(0, 10.0)]), Leaf([(0, -3.0)]), missing_true=track)]
        return ensemble(v, t, trees, x)
    return example


OPERATOR.example(missing(1), name="missing_tracks_true")
OPERATOR.example(missing(0), name="missing_tracks_false")

OPERATOR.reference_differs(r"^post_(softmax|logistic|softmax_zero|probit) ",
                           "the evaluator's TreeEnsemble (1.23) applies no post_transform: it returns the raw sums")
