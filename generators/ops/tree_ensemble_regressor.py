"""TreeEnsembleRegressor (ai.onnx.ml): the leaves each row reaches, aggregated per target, plus base values,
post transformed; Y is float."""

import numpy as np
from onnx import numpy_helper

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.ml_family import floats, ml_operator, post_transformed, rounded, rows_of
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.generators.tree_family import (Leaf, Node, attribute_values, evaluate, legacy_attrs, legacy_trees,
                                                     mode_tree, split_data, two_trees)

OPERATOR = ml_operator("TreeEnsembleRegressor")

FLOAT_ONLY = ("float", "double")


@OPERATOR.semantics
def tree_regress(v, attrs, inputs):
    """Per row and target, the votes of the leaves the row reaches in each tree, aggregated ('One of 'AVERAGE,'
    'SUM,' 'MIN,' 'MAX.''), plus the base value ('added to final prediction after applying aggregate_function'),
    post transformed, rounded once to float."""
    x = rows_of(v, inputs["X"])
    aggregate = attr(attrs, "aggregate_function", "SUM")
    if aggregate not in ("AVERAGE", "SUM", "MIN", "MAX"):
        raise Rejected(f"aggregate_function: {v.schema.attributes['aggregate_function'].description}")
    k = attr(attrs, "n_targets", 1)
    raw = evaluate(legacy_trees(v, attrs, "target"), x, k, aggregate, attribute_values(attrs, "base_values"))
    rows = post_transformed(v, attrs, raw)
    return {"Y": rounded([e for r in rows for e in r], "float", (x.shape[0], k))}


def regressed(v, t, trees, x, n_targets=1, aggregate=None, base=None, post=None, as_tensor=False):
    if as_tensor and v.since_version < 3:
        return NotApplicable("the *_as_tensor attributes are TreeEnsembleRegressor-3's")
    attrs = legacy_attrs(trees, "target", as_tensor)
    attrs["n_targets"] = n_targets
    if aggregate:
        attrs["aggregate_function"] = aggregate
    if base is not None:
        if as_tensor:
            attrs["base_values_as_tensor"] = numpy_helper.from_array(np.array(base, np.float64), "base_values_as_tensor")
        else:
            attrs["base_values"] = floats(base)
    if post:
        attrs["post_transform"] = post
    # a few exact votes summed in float (any order) and one division or transform
    tol = {"ulp": 2} if (post or "NONE") == "NONE" else {"ulp": 2 + budget("composite", "float")["ulp"]}
    if post == "PROBIT":
        tol["atol"] = 1e-6
    return OPERATOR.expect(v, {"X": x}, attrs, tolerance=tol)


def float_only(t):
    if t.dtype not in FLOAT_ONLY:
        return NotApplicable("attribute examples run in float and double; the integer types are covered by "
                             "sum and the branch modes")
    return None


@OPERATOR.example
def sum(v, t, rng):
    return regressed(v, t, two_trees(), split_data(t.dtype, (5, 3), rng))


@OPERATOR.example
def average(v, t, rng):
    return float_only(t) or regressed(v, t, two_trees(2), split_data(t.dtype, (4, 3), rng), 2, "AVERAGE")


@OPERATOR.example
def min(v, t, rng):
    return float_only(t) or regressed(v, t, two_trees(2), split_data(t.dtype, (4, 3), rng), 2, "MIN")


@OPERATOR.example
def max(v, t, rng):
    return float_only(t) or regressed(v, t, two_trees(2), split_data(t.dtype, (4, 3), rng), 2, "MAX")


@OPERATOR.example
def base_values(v, t, rng):
    return float_only(t) or regressed(v, t, two_trees(2), split_data(t.dtype, (4, 3), rng), 2, base=[0.5, -1.75])


@OPERATOR.example
def as_tensor(v, t, rng):
    """nodes_values_as_tensor, target_weights_as_tensor and base_values_as_tensor (double) instead of the
    FLOATS: 'can be used instead of the same parameter without the suffix if the element type is double'."""
    if t.dtype != "double":
        return NotApplicable(v.sentence(r"_as_tensor") or "the *_as_tensor attributes are for double")
    return regressed(v, t, two_trees(2), split_data(t.dtype, (4, 3), rng), 2,
                                      base=[0.5, -1.75], as_tensor=True)


def post_example(kind):
    def example(v, t, rng):
        if kind == "PROBIT":
            trees = [Node(0, "BRANCH_LEQ", 0.5, Leaf([(0, 0.25), (1, 0.625)]), Leaf([(0, 0.875), (1, 0.125)]))]
            return float_only(t) or regressed(v, t, trees, split_data(t.dtype, (4, 3), rng), 2, post=kind)
        if kind == "SOFTMAX_ZERO":
            trees = [Node(0, "BRANCH_LEQ", 0.5, Leaf([(0, 1.5), (1, 0.0)]), Leaf([(0, 0.0), (1, -0.75)]))]
            return float_only(t) or regressed(v, t, trees, split_data(t.dtype, (4, 3), rng), 2, post=kind)
        return float_only(t) or regressed(v, t, two_trees(2), split_data(t.dtype, (4, 3), rng), 2, post=kind)
    return example


for _kind in ("SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"):
    OPERATOR.example(post_example(_kind), name=f"post_{_kind.lower()}")


def mode_example(mode):
    def example(v, t, rng):
        return regressed(v, t, mode_tree(mode), split_data(t.dtype, (6, 1), rng))
    return example


for _mode in ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"):
    OPERATOR.example(mode_example(_mode), name=_mode.lower())


def missing(track):
    def example(v, t, rng):
        if t.dtype not in FLOAT_ONLY:
            return NotApplicable("a missing value is a NaN: float and double inputs only")
        x = split_data(t.dtype, (4, 1), rng)
        x[2, 0] = np.nan
        trees = [Node(0, "BRANCH_LEQ", 1.0, Leaf([(0, 10.0)]), Leaf([(0, -3.0)]), missing_true=track)]
        return regressed(v, t, trees, x)
    return example


OPERATOR.example(missing(1), name="missing_tracks_true")
OPERATOR.example(missing(0), name="missing_tracks_false")


OPERATOR.reference_differs(r"dtype (double|int32|int64) != expected float",
                           "TreeEnsembleRegressor's Y is tensor(float) for every T; the evaluator returns X's type")
OPERATOR.reference_differs(r"^as_tensor .*Issues with types",
                           "the evaluator reads base_values, not base_values_as_tensor (it adds None)")
OPERATOR.reference_differs(r"^missing_tracks_false .*Issues with types",
                           "nodes_missing_value_tracks_true 'may be left undefined and the default value is false "
                           "(0) for all nodes'; the evaluator indexes the absent attribute when it meets a NaN")
OPERATOR.reference_differs(r"post_transform='\w+' not implemented",
                           "the evaluator's tree regressor implements post_transform NONE only")
