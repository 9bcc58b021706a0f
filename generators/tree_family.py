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
from onnx_conformance.generators.semantics import Rejected, Undefined
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
    """A threshold or weight as the attribute holds it: rounded to `type_name` (float for FLOATS); a Fraction
    (a value read back from a model's attribute) is held already."""
    if isinstance(x, Fraction):
        return x
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


# ---------------------------------------------------------------------------------------------
# trees read back from a node's attributes (the semantics functions' side)


def exact_values(values) -> list:
    """Attribute numbers (a FLOATS list holds float32; a tensor its own type) as exact values, NaN kept a float."""
    return [held(float(e), "double") for e in np.asarray(values, dtype=np.float64).reshape(-1)]


def attribute_values(attrs: dict, name: str) -> list | None:
    """A FLOATS attribute or its '<name>_as_tensor' twin ('can be used instead of the same parameter without the
    suffix if the element type is double'), exactly; None where neither is given."""
    tensor = attrs.get(f"{name}_as_tensor")
    if tensor is not None:
        return exact_values(numpy_helper.to_array(tensor))
    given = attrs.get(name)
    return None if given is None else exact_values(np.asarray(given, np.float32))


def legacy_trees(v, attrs: dict, prefix: str) -> list:
    """The trees of TreeEnsembleRegressor/Classifier-1/3: 'All args with nodes_ are fields of a tuple of tree nodes'
    (a node by (tree id, node id), 'Each node id can appear only once for each tree id'; a tree's root is its node
    no other node names as a child), and '<prefix>_*' the votes at the leaves ('A leaf may have multiple votes')."""
    tree_ids, node_ids = list(attr_list(attrs, "nodes_treeids")), list(attr_list(attrs, "nodes_nodeids"))
    n = len(node_ids)
    fields = {"nodes_featureids": attr_list(attrs, "nodes_featureids"), "nodes_modes": attr_list(attrs, "nodes_modes"),
              "nodes_truenodeids": attr_list(attrs, "nodes_truenodeids"),
              "nodes_falsenodeids": attr_list(attrs, "nodes_falsenodeids"),
              "nodes_missing_value_tracks_true": attr_list(attrs, "nodes_missing_value_tracks_true") or [0] * n,
              "nodes_values": attribute_values(attrs, "nodes_values") or [Fraction(0)] * n}
    if len(tree_ids) != n or any(len(f) != n for f in fields.values()):
        raise Rejected(v.sentence(r"same length") or "the nodes_* attributes must have the same length")
    at = {}
    for i, key in enumerate(zip(tree_ids, node_ids)):
        if key in at:
            raise Rejected(v.sentence(r"Each node id can appear only once") or
                           f"node {key} given twice: each node id can appear only once for each tree id")
        at[key] = i
    votes = {}
    weights = attribute_values(attrs, f"{prefix}_weights") or []
    ids = [attr_list(attrs, f"{prefix}_{field}") for field in ("treeids", "nodeids", "ids")]
    if any(len(f) != len(weights) for f in ids):
        raise Rejected(f"the {prefix}_* attributes are tuples of votes: they must have the same length")
    for tid, nid, target, w in zip(*ids, weights):
        votes.setdefault((tid, nid), []).append((int(target), w))
    modes, feats = fields["nodes_modes"], fields["nodes_featureids"]
    trues, falses = fields["nodes_truenodeids"], fields["nodes_falsenodeids"]

    def build(i, depth=0):
        if depth > n:
            raise Rejected(f"tree {tree_ids[i]} is not a tree: its branches form a cycle")
        tid = tree_ids[i]
        if modes[i] == "LEAF":
            return Leaf(votes.get((tid, node_ids[i]), []))
        if modes[i] not in MODES[:-1]:
            raise Rejected(f"nodes_modes: {v.schema.attributes['nodes_modes'].description} (given {modes[i]!r})")
        branch = []
        for child in (trues[i], falses[i]):
            if (tid, child) not in at:
                raise Rejected(f"tree {tid}: node {node_ids[i]} branches to node {child}, which tree {tid} lacks")
            branch.append(build(at[(tid, child)], depth + 1))
        return Node(feats[i], modes[i], fields["nodes_values"][i], *branch,
                    missing_true=fields["nodes_missing_value_tracks_true"][i])

    trees = []
    for tid in dict.fromkeys(tree_ids):
        children = {(tid, c) for i in range(n) if tree_ids[i] == tid and modes[i] != "LEAF"
                    for c in (trues[i], falses[i])}
        roots = [i for i in range(n) if tree_ids[i] == tid and (tid, node_ids[i]) not in children]
        if len(roots) != 1:
            raise Rejected(f"tree {tid} has {len(roots)} nodes no other node branches to: one root is needed")
        trees.append(build(roots[0]))
    return trees


def ensemble5_trees(v, attrs: dict) -> list:
    """The trees of TreeEnsemble-5: from each of tree_roots, interior nodes by position in nodes_*, a branch to a
    leaf where nodes_trueleafs / nodes_falseleafs say 1 (an index into leaf_*, one vote each); the BRANCH_MEMBER
    sets taken in order from membership_values, 'delimited by NaNs'."""
    modes = [int(m) for m in numpy_helper.to_array(attrs["nodes_modes"]).reshape(-1)]
    n = len(modes)
    splits = exact_values(numpy_helper.to_array(attrs["nodes_splits"])) if "nodes_splits" in attrs else [0] * n
    feats = list(attr_list(attrs, "nodes_featureids"))
    trues, falses = attr_list(attrs, "nodes_truenodeids"), attr_list(attrs, "nodes_falsenodeids")
    true_leaf, false_leaf = attr_list(attrs, "nodes_trueleafs"), attr_list(attrs, "nodes_falseleafs")
    missing = attr_list(attrs, "nodes_missing_value_tracks_true") or [0] * n
    if any(len(f) != n for f in (splits, feats, trues, falses, true_leaf, false_leaf, missing)):
        raise Rejected(v.sentence(r"must all have the same length"))
    targets = attr_list(attrs, "leaf_targetids")
    weights = exact_values(numpy_helper.to_array(attrs["leaf_weights"]))
    if len(targets) != len(weights):
        raise Rejected(v.sentence(r"must have identical length"))
    if any(not 0 <= t < attrs.get("n_targets", 1) for t in targets):
        raise Rejected(f"leaf_targetids: {v.schema.attributes['leaf_targetids'].description}")
    members, current = {}, []
    flat = exact_values(numpy_helper.to_array(attrs["membership_values"])) if "membership_values" in attrs else []
    sets = []
    for e in flat:
        if isinstance(e, float) and math.isnan(e):
            sets.append(current)
            current = []
        else:
            current.append(e)
    member_nodes = [i for i, m in enumerate(modes) if m == MODES.index("BRANCH_MEMBER")]
    if len(sets) != len(member_nodes):
        raise Rejected(f"membership_values: {v.schema.attributes['membership_values'].description}")
    members = dict(zip(member_nodes, sets))

    def branch(index, is_leaf, depth):
        if is_leaf:
            if not 0 <= index < len(weights):
                raise Rejected(f"a branch to leaf {index} of {len(weights)}")
            return Leaf([(int(targets[index]), weights[index])])
        return build(index, depth + 1)

    def build(i, depth=0):
        if not 0 <= i < n or depth > n:
            raise Rejected(f"a branch to node {i} of {n} (or a cycle)")
        if not 0 <= modes[i] < len(MODES):
            raise Rejected(f"nodes_modes: {v.schema.attributes['nodes_modes'].description}")
        mode = MODES[modes[i]]
        value = members[i] if mode == "BRANCH_MEMBER" else splits[i]
        return Node(feats[i], mode, value, branch(trues[i], true_leaf[i], depth),
                    branch(falses[i], false_leaf[i], depth), missing_true=missing[i])

    return [build(r) for r in attr_list(attrs, "tree_roots")]


def evaluate(trees, x: np.ndarray, n_targets: int, aggregate: str, base) -> list[list]:
    """predict() on trees read from attributes, untransformed; base values 'the size must be the same as the
    classes or can be left unassigned (assumed 0)'. A split on a feature X lacks has no value."""
    if base is not None and len(base) != n_targets:
        raise Rejected(f"base_values: the size must be the same as the classes or can be left unassigned "
                       f"(given {len(base)} for {n_targets})")

    def features(t):
        return [] if isinstance(t, Leaf) else [t.feature] + features(t.true) + features(t.false)

    used = [f for t in trees for f in features(t)]
    if used and not 0 <= min(used) <= max(used) < x.shape[1]:
        raise Undefined(f"a split on feature {max(used)} of X's {x.shape[1]} features")
    if any(not 0 <= target < n_targets for t in trees for target in votes_of(t)):
        raise Undefined(f"a vote for a target or class outside [0, {n_targets})")
    return predict(trees, x, n_targets, aggregate, base)


def votes_of(tree) -> list:
    """The targets a tree's leaves vote for."""
    if isinstance(tree, Leaf):
        return [t for t, _ in tree.votes]
    return votes_of(tree.true) + votes_of(tree.false)


def attr_list(attrs: dict, name: str) -> list:
    """A list attribute, [] where the node leaves it out."""
    return list(attrs.get(name) or [])


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
