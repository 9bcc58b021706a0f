"""FlexAttention (ai.onnx.preview): softmax((Q K^T) * scale, with optional score_mod) V, prob_mod after the
softmax; grouped query heads share K/V heads."""

import mpmath
import numpy as np
from onnx import TensorProto, helper

from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.case import Case, Operator
from onnx_conformance.generators.rounding import PREC, exact, round_to
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = Operator("FlexAttention", domain="ai.onnx.preview")

NODES_OPSET = 26  # the ai.onnx opset onnx's own FlexAttention tests import (subgraph and function body)


def mpf(x):
    q = exact(float(x))
    return mpmath.mpf(q.numerator) / q.denominator


def attention(t, q, k, v, scale=None, bias=None, prob_scale=None):
    """The schema's computation: Scores = (Q @ K^T) * scale (default 1/sqrt(head_size)); score_mod;
    Probs = Softmax(Scores, axis=-1); prob_mod; Y = Probs @ V; query head h uses K/V head
    floor(h / group_size). Evaluated at PREC bits, rounded once (the softmax_precision
    intermediate is the spec's; its rounding is covered by the tolerance)."""
    b, hq, L, e = q.shape
    hkv, s, ev = k.shape[1], k.shape[2], v.shape[3]
    group = hq // hkv
    wide = "double" if t.dtype == "double" else "float"
    with mpmath.workprec(PREC):
        sc = mpf(np.array(scale, np.float32)) if scale is not None else 1 / mpmath.sqrt(e)
        bi = mpf(np.array(bias, numpy_of(wide))) if bias is not None else 0
        ps = mpf(np.array(prob_scale, numpy_of(wide))) if prob_scale is not None else 1
        y = np.empty((b, hq, L, ev), dtype=object)
        for bb in range(b):
            for h in range(hq):
                kh = h // group
                for i in range(L):
                    scores = [sum(mpf(q[bb, h, i, c]) * mpf(k[bb, kh, j, c]) for c in range(e)) * sc + bi
                              for j in range(s)]
                    top = max(scores)
                    ex = [mpmath.exp(x - top) for x in scores]
                    tot = sum(ex)
                    probs = [x / tot * ps for x in ex]
                    for c in range(ev):
                        y[bb, h, i, c] = sum(p * mpf(v[bb, kh, j, c]) for j, p in enumerate(probs))
    out = np.array([round_to(x, t.dtype) for x in y.reshape(-1)], numpy_of(t.dtype)).reshape(y.shape)
    attrs = {}
    if scale is not None:
        attrs["scale"] = scale
    if t.dtype in ("float16", "bfloat16"):
        attrs["softmax_precision"] = TensorProto.FLOAT
    if bias is not None:
        attrs["score_mod"] = modifier("score_mod", "scores", "Add", bias, wide)
    if prob_scale is not None:
        attrs["prob_mod"] = modifier("prob_mod", "probs", "Mul", prob_scale, wide)
    mag = float(np.max(np.abs(v.astype(np.float64)))) * (prob_scale or 1)
    tol = accumulation(t.dtype, max(e, s), mag, after=16 if t.dtype in ("float", "double") else 0)
    return Case({"Q": q, "K": k, "V": v}, {"Y": out}, attrs, tolerance=tol, nodes_opset=NODES_OPSET)


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
    return attention(t, rand(t, (2, 2, 3, 4), rng), rand(t, (2, 2, 3, 4), rng), rand(t, (2, 2, 3, 4), rng))


@OPERATOR.example
def scaled(v, t, rng):
    """onnx's test_flexattention_scaled: scale 0.1."""
    return attention(t, rand(t, (1, 2, 3, 4), rng), rand(t, (1, 2, 3, 4), rng), rand(t, (1, 2, 3, 4), rng), scale=0.1)


@OPERATOR.example
def gqa(v, t, rng):
    """onnx's test_flexattention_gqa: four query heads over two K/V heads."""
    return attention(t, rand(t, (1, 4, 3, 4), rng), rand(t, (1, 2, 5, 4), rng), rand(t, (1, 2, 5, 4), rng))


@OPERATOR.example
def diff_head_sizes(v, t, rng):
    """onnx's test_flexattention_diff_head_sizes: v_head_size differs from head_size."""
    return attention(t, rand(t, (1, 2, 3, 4), rng), rand(t, (1, 2, 5, 4), rng), rand(t, (1, 2, 5, 2), rng))


@OPERATOR.example
def score_mod(v, t, rng):
    """onnx's test_flexattention_score_mod: score_mod adds a constant (a softmax leaves it out: Y as without)."""
    return attention(t, rand(t, (1, 2, 3, 4), rng), rand(t, (1, 2, 4, 4), rng), rand(t, (1, 2, 4, 4), rng), bias=0.5)


@OPERATOR.example
def prob_mod(v, t, rng):
    """onnx's test_flexattention_prob_mod: prob_mod scales the probabilities by 0.5."""
    return attention(t, rand(t, (1, 2, 3, 4), rng), rand(t, (1, 2, 4, 4), rng), rand(t, (1, 2, 4, 4), rng),
                     prob_scale=0.5)


OPERATOR.reference_differs(r"^\w+ double: .*max abs err [0-9.]+e-(09|10)",
                           "softmax_precision is double for double inputs; the evaluator's double result is off by "
                           "~3e-9 relative (an intermediate held below double precision), while the computation in "
                           "double throughout (numpy) reproduces our value to 1e-16")
