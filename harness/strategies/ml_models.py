"""Classical ML strategies for the models: scalers and normalizers, linear and SVM models, and small random tree
ensembles (the draws ml.py's family dispatches to)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.harness.strategies.common import Probe, shapes
from onnx_conformance.harness.strategies.ml_values import (
    GRID,
    KERNELS,
    MAX_DEPTH,
    MAX_TREES,
    as_float32,
    as_rows,
    class_labels,
    clear_of_ties,
    drawn_post,
    feature_rows,
    features,
    score_tolerance,
    tie_margin,
    weight_values,
)


# ---------------------------------------------------------------------------------------------
# scalers and linear models


@st.composite
def draw_scaler(draw, op, v, t):
    x = draw(features(t.dtype, draw(shapes(1, 3, 1024), label="X shape")), label="X")
    f = x.shape[-1]
    attrs = {}
    for name in ("offset", "scale"):
        n = f if f > 1 and draw(st.booleans(), label=f"{name} per feature") else 1
        attrs[name] = draw(weight_values(n), label=name)
    # (X - offset) * scale: two float operations, each rounded (the corpus's examples allow one step)
    return Probe({"X": x}, attrs, extra={"tolerance": {"ulp": 2}})


@st.composite
def draw_normalizer(draw, op, v, t):
    from onnx_conformance.generators.accuracy import accumulation

    norm = draw(st.sampled_from(["MAX", "L1", "L2"]), label="norm")
    x = draw(feature_rows(t.dtype), label="X")
    if norm != "MAX":  # a row with a negative element has no stated L1 or L2 (the module's docstring)
        x = np.abs(x)
    if draw(st.booleans(), label="a zero row"):  # 'if the divisor is zero, Y == X'
        as_rows(x)[0] = 0
    c = x.shape[-1]
    tol = {"MAX": {"ulp": 2}, "L1": accumulation("float", c, 1.0, after=2),
           "L2": accumulation("float", c, 1.0, after=6)}
    attrs = {"norm": norm} if norm != "MAX" or draw(st.booleans(), label="write MAX") else {}
    return Probe({"X": x}, attrs, extra={"tolerance": tol[norm]})


def _linear_magnitude(x, coefficients, intercepts, k) -> float:
    from onnx_conformance.generators.ml_family import magnitude

    rows = as_rows(x)
    return magnitude(rows, coefficients, intercepts, k) if rows.shape[0] else 0.0


@st.composite
def draw_linear_regressor(draw, op, v, t):
    x = draw(feature_rows(t.dtype), label="X")
    c = x.shape[-1]
    k = draw(st.integers(1, 4), label="targets")
    coefficients = draw(weight_values(k * c), label="coefficients")
    attrs = {"coefficients": coefficients}
    intercepts = draw(weight_values(k), label="intercepts") if draw(st.booleans(), label="give intercepts") else None
    if intercepts is not None:
        attrs["intercepts"] = intercepts
    if k != 1 or draw(st.booleans(), label="write targets"):
        attrs["targets"] = k
    post = drawn_post(draw, v)
    if post != "NONE" or draw(st.booleans(), label="write NONE"):
        attrs["post_transform"] = post
    tol = score_tolerance(post, c + 1, _linear_magnitude(x, coefficients, intercepts, k))
    return Probe({"X": x}, attrs, extra={"tolerance": tol})


@st.composite
def draw_linear_classifier(draw, op, v, t):
    from onnx_conformance.generators.ml_family import linear

    x = draw(feature_rows(t["T1"]), label="X")
    c = x.shape[-1]
    # one coefficient set a label, 3 or more: the schema describes no two-class special case (onnxruntime's
    # follows scikit-learn: class 1 when its score is above 0)
    k = draw(st.integers(3, 5), label="classes")
    strings = t["T2"] == "string"
    labels = draw(class_labels(strings, k), label="labels")
    coefficients = draw(weight_values(k * c), label="coefficients")
    attrs = {"coefficients": coefficients, "classlabels_strings" if strings else "classlabels_ints": labels}
    # always given: onnx's shape inference takes the class count from intercepts (none: 0 classes) and its
    # checker refuses the model without them, though 'intercepts' is optional in the schema
    # each class's intercept a quarter above the last's: the plainest draw (every weight alike) has no tie
    intercepts = [as_float32(b + i / 4) for i, b in enumerate(draw(weight_values(k), label="intercepts"))]
    attrs["intercepts"] = intercepts
    raw = linear(as_rows(x), coefficients, intercepts, k)
    post = draw(st.sampled_from(_keeping_top(raw)), label="post_transform")
    if post != "NONE" or draw(st.booleans(), label="write NONE"):
        attrs["post_transform"] = post
    if draw(st.booleans(), label="write multi_class 0"):
        attrs["multi_class"] = 0  # 1 (multinomial) is not described: no value
    tol = score_tolerance(post, c + 1, _linear_magnitude(x, coefficients, intercepts, k))
    extra = {"tolerance": tol}
    if not clear_of_ties(raw, tie_margin(tol, raw)):
        extra["discard"] = "the top scores are within the tolerance of a tie: the label hangs on rounding"
    return Probe({"X": x}, attrs, outputs=["Y", "Z"], extra=extra)


def _keeping_top(raw) -> list[str]:
    """The post transforms under which each row's top class stays top ('tied ... or a transform changing which
    is top: no label'): SOFTMAX_ZERO where the top score is above 0 (a zero score stays 0), PROBIT where
    every score is a probability."""
    out = ["NONE", "SOFTMAX", "LOGISTIC"]
    if all(max(r) > 0 for r in raw):
        out.append("SOFTMAX_ZERO")
    if all(0 <= e <= 1 for r in raw for e in r):
        out.append("PROBIT")
    return out


@st.composite
def _kernel(draw, v):
    kind = draw(st.sampled_from(KERNELS), label="kernel_type")
    gamma = draw(st.sampled_from([0.5, 0.25, 1.0, 0.125, 2.0]), label="gamma")
    coef0 = draw(st.sampled_from([0.0, 0.25, -0.5, 1.0]), label="coef0")
    degree = draw(st.integers(1, 4), label="degree") if kind == "POLY" else 0
    return kind, [gamma, coef0, float(degree)]


def _kernel_bound(kind, x_abs, sv_abs, gamma, coef0, degree) -> float:
    """A bound on |K(x, sv)|: the dot product's terms in magnitude (LINEAR, POLY), 1 (RBF, SIGMOID)."""
    if kind in ("RBF", "SIGMOID"):
        return 1.0
    dot = float(np.dot(x_abs, sv_abs))
    return dot if kind == "LINEAR" else (abs(gamma) * dot + abs(coef0)) ** degree


@st.composite
def draw_svm_regressor(draw, op, v, t):
    from onnx_conformance.generators.accuracy import accumulation, budget

    x = draw(feature_rows(t.dtype, max_features=8, max_rows=16, small=True), label="X")
    c = x.shape[-1]
    n = draw(st.integers(1, 6), label="n_supports")
    kind, params = draw(_kernel(v), label="kernel")
    svs = draw(weight_values(n * c, wide=False), label="support_vectors")
    coefficients = draw(weight_values(n, wide=False), label="coefficients")
    attrs = {"n_supports": n, "support_vectors": svs, "coefficients": coefficients, "rho": [0.0],
             "kernel_type": kind, "kernel_params": params}
    if kind == "LINEAR" and draw(st.booleans(), label="leave kernel_params and kernel_type out"):
        del attrs["kernel_params"], attrs["kernel_type"]
    post = drawn_post(draw, v)
    if post != "NONE":
        attrs["post_transform"] = post
    rows = np.abs(as_rows(x).astype(np.float64))
    sv = np.abs(np.array(svs, np.float64).reshape(n, c))
    mag = max((sum(abs(cf) * _kernel_bound(kind, r, s, *params) for cf, s in zip(coefficients, sv)) for r in rows),
              default=0.0)
    steps = {"POLY": 3 * int(params[2]), "RBF": 16, "SIGMOID": 16}.get(kind, 0)
    tol = accumulation("float", c * n, mag, after=steps) or {}
    if post != "NONE":
        tol = {**tol, "ulp": tol.get("ulp", 0) + budget("composite", "float")["ulp"]}
        if post == "PROBIT":
            tol["atol"] = tol.get("atol", 0.0) * 10
    return Probe({"X": x}, attrs, extra={"tolerance": tol or None})


@st.composite
def draw_svm_classifier(draw, op, v, t):
    from onnx_conformance.generators.accuracy import accumulation
    from onnx_conformance.generators.ops.svm_classifier import STEPS, decisions

    x = draw(feature_rows(t["T1"], max_features=8, max_rows=16, small=True), label="X")
    c = x.shape[-1]
    # three classes, rho 0, no prob_a / prob_b, post_transform NONE: what svm_classifier.py's docstring
    # says the schema describes (libsvm's one-vs-one rule)
    per_class = [draw(st.integers(1, 3), label="vectors_per_class") for _ in range(3)]
    total = sum(per_class)
    kind, params = draw(_kernel(v), label="kernel")
    svs = draw(weight_values(total * c, wide=False), label="support_vectors")
    coefficients = draw(weight_values(2 * total, wide=False), label="coefficients")
    strings = t["T2"] == "string"
    labels = draw(class_labels(strings, 3), label="labels")
    attrs = {"classlabels_strings" if strings else "classlabels_ints": labels, "vectors_per_class": per_class,
             "support_vectors": svs, "coefficients": coefficients, "kernel_type": kind, "kernel_params": params}
    if draw(st.booleans(), label="write rho"):
        attrs["rho"] = [0.0, 0.0, 0.0]
    rows = as_rows(x)
    decided, mag = decisions(rows, kind, params, [svs[s * c:(s + 1) * c] for s in range(total)],
                             [coefficients[:total], coefficients[total:]], per_class)
    tol = accumulation("float", c * total, mag, after=STEPS[kind])
    extra = {"tolerance": tol}
    margin = tie_margin(tol, [[abs(float(d))] for r in decided for d in r])
    if any(abs(float(d)) <= margin for r in decided for d in r):
        extra["discard"] = "a decision value within the tolerance of 0: the vote hangs on rounding"
    return Probe({"X": x}, attrs, outputs=["Y", "Z"], extra=extra)


# ---------------------------------------------------------------------------------------------
# tree ensembles


def _tree(draw, depth: int, x_rows, modes, member: bool, targets, missing: bool):
    """A tree of exactly `depth` levels below its root (one branch reaches it; the other is a leaf or,
    drawn, a subtree); split points from the features' own values (equality is met) or the grid. Drawn
    with plain draws, not a strategy per node: a deep tree has a hundred nodes."""
    from onnx_conformance.generators.tree_family import Leaf, Node

    if depth == 0:
        return Leaf(list(zip(targets, draw(_votes(len(targets)), label="leaf"))))
    c = x_rows.shape[1]
    feature = draw(st.integers(0, c - 1), label="feature")
    column = [float(e) for e in x_rows[:16, feature] if math.isfinite(float(e))]
    points = column + GRID
    pick = draw(st.integers(0, len(modes) - 1 + member), label="mode")
    mode = modes[pick] if pick < len(modes) else "BRANCH_MEMBER"
    if mode == "BRANCH_MEMBER":
        count = draw(st.integers(1, 4), label="members")
        value = [points[draw(st.integers(0, len(points) - 1), label="member")] for _ in range(count)]
    else:
        value = points[draw(st.integers(0, len(points) - 1), label="split")]
    deeper = draw(st.booleans(), label="deep side true")
    both = draw(st.integers(0, 2), label="both sides deep") == 0
    true = _tree(draw, depth - 1 if deeper or both else 0, x_rows, modes, member, targets, missing)
    false = _tree(draw, depth - 1 if not deeper or both else 0, x_rows, modes, member, targets, missing)
    track = draw(st.integers(0, 1), label="missing_value_tracks_true") if missing else 0
    return Node(feature, mode, value, true, false, missing_true=track)


VOTE = st.one_of(st.sampled_from(GRID), st.floats(-100, 100, width=32).map(as_float32))


@lru_cache(maxsize=None)
def _votes(n: int):
    """n leaf weights: eighths in [-4, 4], or any float32 in [-100, 100]."""
    return st.lists(VOTE, min_size=n, max_size=n)


@st.composite
def _forest(draw, x, k: int, member: bool, one_vote: bool, value_type: str):
    """1 to MAX_TREES trees (at least k), tree i voting for target i mod k (every target for a legacy leaf)."""
    from onnx_conformance.generators.tree_family import MODES

    rows = as_rows(x)
    rows = rows if rows.shape[0] else np.zeros((1, rows.shape[1]))
    count = draw(st.integers(max(1, k), max(MAX_TREES, k)), label="trees")
    missing = value_type in ("float", "double", "float16") and draw(st.booleans(), label="missing values")
    trees = []
    for i in range(count):
        depth = draw(st.integers(0, MAX_DEPTH), label="depth")
        targets = [i % k] if one_vote else list(range(k))
        trees.append(_tree(draw, depth, rows, MODES[:-1], member, targets, missing))
    return trees, missing


def _tree_tolerance(trees, k: int, aggregate: str, post: str, base, type_name: str) -> dict:
    """A sum over the trees' votes (any order: accumulation over them with their largest sum of
    |votes|), one division for AVERAGE, the transform's budget."""
    from onnx_conformance.generators.accuracy import accumulation, budget
    from onnx_conformance.generators.tree_family import Leaf

    def largest(tree):
        if isinstance(tree, Leaf):
            return max((abs(float(w)) for _, w in tree.votes), default=0.0)
        return max(largest(tree.true), largest(tree.false))

    mag = sum(largest(tr) for tr in trees) + max((abs(b) for b in base or []), default=0.0)
    tol = dict(accumulation(type_name, len(trees) + 1, mag) or {"ulp": 0})
    tol["ulp"] = max(tol["ulp"], 2) + (1 if aggregate == "AVERAGE" else 0)
    if post != "NONE":
        tol["ulp"] += budget("composite", type_name)["ulp"]
        tol["atol"] = tol.get("atol", 0.0) * (10 if post == "PROBIT" else 1)
        if post == "PROBIT":
            tol["atol"] = max(tol["atol"], 1e-6 if type_name != "float16" else 2e-3)
    return tol


@st.composite
def draw_legacy_ensemble(draw, op, v, t, classifier: bool):
    from onnx_conformance.generators.tree_family import legacy_attrs, predict

    type_name = t["T1"] if classifier else t.dtype
    x = draw(feature_rows(type_name, nan=type_name in ("float", "double"), max_rows=32, one_row=False), label="X")
    # classes: 3 or 4, as for LinearClassifier (no two-class special case is described)
    k = draw(st.integers(3, 4) if classifier else st.integers(1, 3), label="targets")
    trees, _ = draw(_forest(x, k, False, False, type_name), label="forest")
    as_tensor = v.since_version >= 3 and type_name == "double" and draw(st.booleans(), label="as tensors")
    prefix = "class" if classifier else "target"
    attrs = legacy_attrs(trees, prefix, as_tensor)
    aggregate = "SUM" if classifier else draw(st.sampled_from(["SUM", "AVERAGE", "MIN", "MAX"]), label="aggregate")
    if not classifier:
        attrs["n_targets"] = k
        if aggregate != "SUM" or draw(st.booleans(), label="write SUM"):
            attrs["aggregate_function"] = aggregate
    base = draw(weight_values(k), label="base_values") if draw(st.booleans(), label="give base_values") else None
    if base is not None:
        if as_tensor:
            from onnx import numpy_helper

            attrs["base_values_as_tensor"] = numpy_helper.from_array(np.array(base, np.float64),
                                                                     "base_values_as_tensor")
        else:
            attrs["base_values"] = base
    post = drawn_post(draw, v)
    if post != "NONE" or draw(st.booleans(), label="write NONE"):
        attrs["post_transform"] = post
    tol = _tree_tolerance(trees, k, aggregate, post, base, "float")
    extra = {"tolerance": tol, "trees": trees}
    outputs = None
    if classifier:
        strings = t["T2"] == "string"
        labels = draw(class_labels(strings, k), label="labels")
        attrs["classlabels_strings" if strings else "classlabels_int64s"] = labels
        raw = predict(trees, as_rows(x), k, "SUM", base, value_type="double" if as_tensor else "float",
                      weight_type="double" if as_tensor else "float")
        if not clear_of_ties(raw, tie_margin(tol, raw)):
            extra["discard"] = "the top class scores are within the tolerance of a tie: the label hangs on rounding"
        outputs = ["Y", "Z"]
    return Probe({"X": x}, attrs, outputs=outputs, extra=extra)


@st.composite
def draw_tree_ensemble(draw, op, v, t):
    from onnx_conformance.generators.ops.tree_ensemble import AGGREGATE, POST
    from onnx_conformance.generators.tree_family import ensemble5_attrs

    x = draw(feature_rows(t.dtype, nan=True, max_rows=32, one_row=False), label="X")
    k = draw(st.integers(1, 3), label="n_targets")
    trees, _ = draw(_forest(x, k, True, True, t.dtype), label="forest")
    attrs = ensemble5_attrs(trees, t.dtype)
    attrs["n_targets"] = k
    aggregate = draw(st.sampled_from(list(AGGREGATE)), label="aggregate")
    if aggregate != "SUM" or draw(st.booleans(), label="write SUM"):
        attrs["aggregate_function"] = AGGREGATE[aggregate]
    post = drawn_post(draw, v)
    if post != "NONE" or draw(st.booleans(), label="write NONE"):
        attrs["post_transform"] = POST[post]
    return Probe({"X": x}, attrs, extra={"tolerance": _tree_tolerance(trees, k, aggregate, post, None, t.dtype),
                                         "trees": trees})
