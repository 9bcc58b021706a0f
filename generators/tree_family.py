"""What the tree ensembles share (TreeEnsembleRegressor, TreeEnsembleClassifier, TreeEnsemble): trees as
nested Python values, evaluated exactly on each row, aggregated, offset by base values, post transformed,
and encoded in each operator's attribute layout.

A tree is a Leaf or a Node. A Node compares one feature with its threshold (or set, BRANCH_MEMBER) and
goes to `true` or `false`; a NaN feature goes where `missing_true` says ('use the 'true' or 'false'
branch based on the value in this array', default false). A Leaf carries (target or class, weight) votes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from onnx import numpy_helper

from onnx_conformance.generators.ml_family import exact_of, transform_row
from onnx_conformance.harness.dtypes import numpy_of

MODES = ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ", "BRANCH_MEMBER")


@dataclass
class Leaf:
    votes: list  # [(target, weight)]


@dataclass
class Node:
    feature: int
    mode: str
    value: float | list  # a threshold, or the members of BRANCH_MEMBER
    true: "Node | Leaf"
    false: "Node | Leaf"
    missing_true: int = 0


def held(x: float, type_name: str) -> Fraction | float:
    """A threshold or weight as the attribute holds it: rounded to `type_name` (float for FLOATS)."""
    v = float(np.array(x).astype(numpy_of(type_name)))
    return v if math.isnan(v) else Fraction(v)


def goes_true(node: Node, x, value_type: str) -> bool:
    if isinstance(x, float) and math.isnan(x):
        return bool(node.missing_true)
    if node.mode == "BRANCH_MEMBER":
        return any(x == held(m, value_type) for m in node.value)
    v = held(node.value, value_type)
    return {"BRANCH_LEQ": x <= v, "BRANCH_LT": x < v, "BRANCH_GTE": x >= v, "BRANCH_GT": x > v,
            "BRANCH_EQ": x == v, "BRANCH_NEQ": x != v}[node.mode]


def leaf_of(tree, row, value_type: str) -> Leaf:
    while isinstance(tree, Node):
        tree = tree.true if goes_true(tree, row[tree.feature], value_type) else tree.false
    return tree


def predict(trees, x: np.ndarray, n_targets: int, aggregate: str = "SUM", base=None, post: str = "NONE",
            value_type: str = "float", weight_type: str = "float") -> list[list]:
    """Per row: each target's votes over the trees, aggregated (SUM, AVERAGE over the trees, MIN, MAX
    over the votes), plus the base value ('added to final prediction after applying
    aggregate_function'), then the post transform over the targets."""
    n, c = x.shape
    ex = exact_of(x)
    out = []
    for r in range(n):
        row = ex[r * c:(r + 1) * c]
        votes = [[] for _ in range(n_targets)]
        for tree in trees:
            for target, w in leaf_of(tree, row, value_type).votes:
                votes[target].append(held(w, weight_type))
        scores = []
        for k in range(n_targets):
            vs = votes[k]
            if aggregate == "SUM":
                s = sum(vs, Fraction(0))
            elif aggregate == "AVERAGE":
                s = sum(vs, Fraction(0)) / len(trees)
            elif aggregate == "MIN":
                s = min(vs) if vs else Fraction(0)
            else:
                s = max(vs) if vs else Fraction(0)
            if base:
                s += held(base[k], weight_type)
            scores.append(s)
        out.append(transform_row(scores, post))
    return out


def flat_nodes(trees):
    """(tree id, node id, node) in preorder, node ids restarting at 0 for each tree."""
    out = []
    for tid, tree in enumerate(trees):
        counter = [0]

        def visit(node):
            nid = counter[0]
            counter[0] += 1
            entry = [tid, nid, node, None, None]
            out.append(entry)
            if isinstance(node, Node):
                entry[3] = visit(node.true)
                entry[4] = visit(node.false)
            return nid

        visit(tree)
    return out


def legacy_attrs(trees, prefix: str, as_tensor: bool = False) -> dict:
    """TreeEnsembleRegressor/Classifier-1/3's attributes: nodes_* (leaves are mode LEAF) and
    <prefix>_treeids/_nodeids/_ids/_weights ('target' or 'class'); with as_tensor (version 3),
    nodes_values_as_tensor and <prefix>_weights_as_tensor in double."""
    rows = flat_nodes(trees)
    a = {"nodes_treeids": [], "nodes_nodeids": [], "nodes_featureids": [], "nodes_modes": [], "nodes_values": [],
         "nodes_truenodeids": [], "nodes_falsenodeids": [], "nodes_missing_value_tracks_true": []}
    votes = {f"{prefix}_treeids": [], f"{prefix}_nodeids": [], f"{prefix}_ids": [], f"{prefix}_weights": []}
    for tid, nid, node, t, f in rows:
        a["nodes_treeids"].append(tid)
        a["nodes_nodeids"].append(nid)
        leaf = isinstance(node, Leaf)
        a["nodes_featureids"].append(0 if leaf else node.feature)
        a["nodes_modes"].append("LEAF" if leaf else node.mode)
        a["nodes_values"].append(0.0 if leaf else float(node.value))
        a["nodes_truenodeids"].append(0 if leaf else t)
        a["nodes_falsenodeids"].append(0 if leaf else f)
        a["nodes_missing_value_tracks_true"].append(0 if leaf else node.missing_true)
        if leaf:
            for target, w in node.votes:
                votes[f"{prefix}_treeids"].append(tid)
                votes[f"{prefix}_nodeids"].append(nid)
                votes[f"{prefix}_ids"].append(target)
                votes[f"{prefix}_weights"].append(float(w))
    a.update(votes)
    if not any(a["nodes_missing_value_tracks_true"]):
        del a["nodes_missing_value_tracks_true"]
    if as_tensor:
        a["nodes_values_as_tensor"] = numpy_helper.from_array(np.array(a.pop("nodes_values"), np.float64),
                                                              "nodes_values_as_tensor")
        w = a.pop(f"{prefix}_weights")
        a[f"{prefix}_weights_as_tensor"] = numpy_helper.from_array(np.array(w, np.float64),
                                                                   f"{prefix}_weights_as_tensor")
    return a


def ensemble5_attrs(trees, type_name: str) -> dict:
    """TreeEnsemble-5's attributes: interior nodes (nodes_*, with nodes_trueleafs/falseleafs saying
    whether a branch index points at a leaf), leaves (leaf_targetids, leaf_weights, one vote each),
    tree_roots, and the BRANCH_MEMBER sets in membership_values, NaN-delimited. A tree that is one
    leaf is a node whose branches both reach that leaf."""
    dt = numpy_of(type_name)
    nodes, leaves, roots, members = [], [], [], []

    def leaf_index(leaf: Leaf) -> int:
        (target, w), = leaf.votes  # one vote per TreeEnsemble leaf
        leaves.append((target, w))
        return len(leaves) - 1

    def visit(node) -> tuple[int, int]:
        """(is leaf, index)"""
        if isinstance(node, Leaf):
            return 1, leaf_index(node)
        entry = {}
        nodes.append(entry)
        entry["node"] = node
        entry["true"] = visit(node.true)
        entry["false"] = visit(node.false)
        return 0, nodes.index(entry)

    for tree in trees:
        if isinstance(tree, Leaf):
            i = leaf_index(tree)
            nodes.append({"node": Node(0, "BRANCH_LEQ", 0.0, tree, tree), "true": (1, i), "false": (1, i)})
            roots.append(len(nodes) - 1)
        else:
            roots.append(len(nodes))
            visit(tree)
    modes = [MODES.index(e["node"].mode) for e in nodes]
    splits = []
    for e in nodes:
        n = e["node"]
        if n.mode == "BRANCH_MEMBER":
            splits.append(float("nan"))
            members += list(n.value) + [float("nan")]
        else:
            splits.append(float(n.value))
    a = {
        "tree_roots": roots,
        "nodes_featureids": [e["node"].feature for e in nodes],
        "nodes_modes": numpy_helper.from_array(np.array(modes, np.uint8), "nodes_modes"),
        "nodes_splits": numpy_helper.from_array(np.array(splits, dt), "nodes_splits"),
        "nodes_truenodeids": [e["true"][1] for e in nodes],
        "nodes_trueleafs": [e["true"][0] for e in nodes],
        "nodes_falsenodeids": [e["false"][1] for e in nodes],
        "nodes_falseleafs": [e["false"][0] for e in nodes],
        "leaf_targetids": [t for t, _ in leaves],
        "leaf_weights": numpy_helper.from_array(np.array([w for _, w in leaves], dt), "leaf_weights"),
    }
    if any(e["node"].missing_true for e in nodes):
        a["nodes_missing_value_tracks_true"] = [e["node"].missing_true for e in nodes]
    if members:
        a["membership_values"] = numpy_helper.from_array(np.array(members, dt), "membership_values")
    return a


# ---------------------------------------------------------------------------------------------
# trees the examples share (thresholds and weights on a grid of eighths: exact in every type)


def stump(feature, mode, value, left, right, missing_true=0) -> Node:
    return Node(feature, mode, value, left, right, missing_true)


def two_trees(n_targets: int = 1, one_vote: bool = False):
    """Two depth-2 trees over features 0..2; each leaf votes for every target (or, one_vote, for
    target 0 only: TreeEnsemble's leaves carry one vote)."""
    def votes(*ws):
        return [(0, ws[0])] if one_vote else [(k, ws[k % len(ws)] + k * 0.5) for k in range(n_targets)]

    t0 = Node(0, "BRANCH_LEQ", 0.5,
              Node(1, "BRANCH_LT", -1.25, Leaf(votes(1.5)), Leaf(votes(-2.25))),
              Node(2, "BRANCH_GTE", 2.0, Leaf(votes(3.125)), Leaf(votes(0.375))))
    t1 = Node(1, "BRANCH_GT", 0.75,
              Leaf(votes(-0.625)),
              Node(0, "BRANCH_LEQ", -2.5, Leaf(votes(4.0)), Leaf(votes(1.25))))
    return [t0, t1]


def mode_tree(mode: str, one_vote: bool = True):
    """One split in `mode` on feature 0 at 1.0 (or the set {1.0, -2.0, 3.5}): weights 10 and -3."""
    value = [1.0, -2.0, 3.5] if mode == "BRANCH_MEMBER" else 1.0
    return [Node(0, mode, value, Leaf([(0, 10.0)]), Leaf([(0, -3.0)]))]


def split_data(type_name: str, shape, rng) -> np.ndarray:
    """Rows on the grid of halves in [-4, 4], with 1.0 and -2.0 (the split points) present."""
    x = (rng.integers(-8, 9, size=shape) / 2)
    x.reshape(-1)[:2] = [1.0, -2.0]
    return x.astype(numpy_of(type_name))
