"""FlexAttention (ai.onnx.preview): softmax((Q K^T) * scale, with optional score_mod) V, prob_mod after the
softmax; grouped query heads share K/V heads."""

import mpmath
import numpy as np
from onnx import TensorProto, helper

from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.case import Operator, type_of
from onnx_conformance.generators.rounding import PREC, exact, round_to
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.harness.dtypes import name_of, numpy_of

OPERATOR = Operator("FlexAttention", domain="ai.onnx.preview")

NODES_OPSET = 26  # the ai.onnx opset onnx's own FlexAttention tests import (subgraph and function body)


def mpf(x):
    """An element's exact value in mpmath (infinities and NaN as they are: a score_mod may mask with -inf)."""
    q = exact(float(x))
    if isinstance(q, float):
        return mpmath.mpf(q)
    return mpmath.mpf(q.numerator) / q.denominator


@OPERATOR.semantics
def flex_attention(v, attrs, inputs):
    """The schema's computation: Scores = (Q @ K^T) * scale (default 1/sqrt(head_size)); score_mod;
    Probs = Softmax(Scores, axis=-1); prob_mod; Y = Probs @ V; query head h uses K/V head
    floor(h / group_size). Evaluated at PREC bits, rounded once; a modifier subgraph is run on the
    tensor it is defined on (softmax_precision's type, to which the exact values are rounded once) and
    its output taken as it is."""
    q, k, val = (np.asarray(inputs[n]) for n in ("Q", "K", "V"))
    if q.ndim != 4 or k.ndim != 4 or val.ndim != 4:
        raise Rejected("Input Shapes (MUST be rank-4 tensors)")
    b, hq, L, e = q.shape
    hkv, s, ev = k.shape[1], k.shape[2], val.shape[3]
    if hq % hkv:
        raise Rejected("`q_num_heads` must be a multiple of `kv_num_heads`.")
    group = hq // hkv
    dtype = type_of(q)
    precision = attrs.get("softmax_precision")
    wide = name_of(precision) if precision else ("double" if dtype == "double" else "float")
    score_mod, prob_mod = attrs.get("score_mod"), attrs.get("prob_mod")
    with mpmath.workprec(PREC):
        scale = attrs.get("scale")
        sc = mpf(np.array(scale, np.float32)) if scale is not None else 1 / mpmath.sqrt(e)
        scores = np.empty((b, hq, L, s), dtype=object)
        for bb, h, i, j in np.ndindex(b, hq, L, s):
            scores[bb, h, i, j] = sum(mpf(q[bb, h, i, c]) * mpf(k[bb, h // group, j, c]) for c in range(e)) * sc
        if score_mod is not None:
            scores = _modified(score_mod, scores, wide)
        probs = np.empty_like(scores)
        for bb, h, i in np.ndindex(b, hq, L):
            row = list(scores[bb, h, i])
            top = max(row)
            ex = [mpmath.exp(x - top) for x in row]
            tot = sum(ex)
            probs[bb, h, i] = [x / tot for x in ex]
        if prob_mod is not None:
            probs = _modified(prob_mod, probs, wide)
        y = np.empty((b, hq, L, ev), dtype=object)
        for bb, h, i, c in np.ndindex(b, hq, L, ev):
            y[bb, h, i, c] = sum(p * mpf(val[bb, h // group, j, c]) for j, p in enumerate(probs[bb, h, i]))
    out = np.array([round_to(x, dtype) for x in y.reshape(-1)], numpy_of(dtype)).reshape(y.shape)
    return {"Y": out}


def _modified(graph, exact_values: np.ndarray, wide: str) -> np.ndarray:
    """A modifier subgraph on the exact values rounded once to softmax_precision's type; its output exactly."""
    typed = np.array([round_to(x, wide) for x in exact_values.reshape(-1)], numpy_of(wide)).reshape(exact_values.shape)
    (result,) = graph(typed)
    return np.array([mpf(x) for x in np.asarray(result).reshape(-1)], dtype=object).reshape(exact_values.shape)


def attention(v, t, q, k, val, scale=None, bias=None, prob_scale=None):
    """The example: the node's attributes (score_mod adds `bias`, prob_mod multiplies by `prob_scale`,
    both in softmax_precision's type), its expected Y from the semantics and its tolerance."""
    e, s = q.shape[3], k.shape[2]
    wide = "double" if t.dtype == "double" else "float"
    attrs = {}
    if scale is not None:
        attrs["scale"] = scale
    if t.dtype in ("float16", "bfloat16"):
        attrs["softmax_precision"] = TensorProto.FLOAT
    if bias is not None:
        attrs["score_mod"] = modifier("score_mod", "scores", "Add", bias, wide)
    if prob_scale is not None:
        attrs["prob_mod"] = modifier("prob_mod", "probs", "Mul", prob_scale, wide)
    mag = float(np.max(np.abs(val.astype(np.float64)))) * (prob_scale or 1)
    tol = accumulation(t.dtype, max(e, s), mag, after=16 if t.dtype in ("float", "double") else 0)
    return OPERATOR.expect(v, {"Q": q, "K": k, "V": val}, attrs, tolerance=tol, nodes_opset=NODES_OPSET)


def modifier(name, formal, op, constant, wide):
    """A one-node subgraph over the rank-4 tensor of softmax_precision's type: formal (op) constant."""
    elem = TensorProto.DOUBLE if wide == "double" else TensorProto.FLOAT
    inp = helper.make_tensor_value_info(formal, elem, ["B", "H", "L", "S"])
    out = helper.make_tensor_value_info(f"{formal}_out", elem, ["B", "H", "L", "S"])
    const = helper.make_tensor("c", elem, [], [constant])
    return helper.make_graph([helper.make_node(op, [formal, "c"], [f"{formal}_out"])], name, [inp], [out], [const])


def rand(t, shape, rng):
    """Values in [0, 1) on a grid of 1/16 (exact in every allowed type)."""
    return (rng.integers(0, 16, size=shape) / 16).astype(numpy_of(t.dtype))


@OPERATOR.example
def default(v, t, rng):
    """onnx's test_flexattention, smaller: default scale 1/sqrt(head_size)."""
    return attention(v, t, rand(t, (2, 2, 3, 4), rng), rand(t, (2, 2, 3, 4), rng), rand(t, (2, 2, 3, 4), rng))


@OPERATOR.example
def scaled(v, t, rng):
    """onnx's test_flexattention_scaled: scale 0.1."""
    return attention(v, t, rand(t, (1, 2, 3, 4), rng), rand(t, (1, 2, 3, 4), rng), rand(t, (1, 2, 3, 4), rng), scale=0.1)


@OPERATOR.example
def gqa(v, t, rng):
    """onnx's test_flexattention_gqa: four query heads over two K/V heads."""
    return attention(v, t, rand(t, (1, 4, 3, 4), rng), rand(t, (1, 2, 5, 4), rng), rand(t, (1, 2, 5, 4), rng))


@OPERATOR.example
def diff_head_sizes(v, t, rng):
    """onnx's test_flexattention_diff_head_sizes: v_head_size differs from head_size."""
    return attention(v, t, rand(t, (1, 2, 3, 4), rng), rand(t, (1, 2, 5, 4), rng), rand(t, (1, 2, 5, 2), rng))


@OPERATOR.example
def score_mod(v, t, rng):
    """onnx's test_flexattention_score_mod: score_mod adds a constant (a softmax leaves it out: Y as without)."""
    return attention(v, t, rand(t, (1, 2, 3, 4), rng), rand(t, (1, 2, 4, 4), rng), rand(t, (1, 2, 4, 4), rng), bias=0.5)


@OPERATOR.example
def prob_mod(v, t, rng):
    """onnx's test_flexattention_prob_mod: prob_mod scales the probabilities by 0.5."""
    return attention(v, t, rand(t, (1, 2, 3, 4), rng), rand(t, (1, 2, 4, 4), rng), rand(t, (1, 2, 4, 4), rng),
                     prob_scale=0.5)


OPERATOR.reference_differs(r"^\w+ double: .*max abs err [0-9.]+e-(09|10)",
                           "softmax_precision is double for double inputs; the evaluator's double result is off by "
                           "~3e-9 relative (an intermediate held below double precision), while the computation in "
                           "double throughout (numpy) reproduces our value to 1e-16")
