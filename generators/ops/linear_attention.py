"""LinearAttention: the doc's linear, gated, delta and gated_delta recurrences, token by token in mpmath (generators/attention_family.py)."""

import math

import mpmath
import numpy as np

from onnx_conformance.generators.attention_family import _mp, _round, f32, linear_attention_examples
from onnx_conformance.generators.case import Operator, type_of
from onnx_conformance.generators.rounding import PREC, decided
from onnx_conformance.generators.semantics import Rejected, attr, remember

OPERATOR = Operator("LinearAttention", primary="T", defaults={"S": lambda v, b: b["T"]})

GQA = "Group-query attention (GQA) is supported: q_num_heads must be a positive multiple of kv_num_heads"


@OPERATOR.semantics
def linear_attention(v, attrs, inputs):
    """Token by token, per kv head, as _exact says. Computed first in float64 with a proven bound on each
    value's error (_fast): where every value within the bound rounds to the same one, that is the
    correctly rounded result; otherwise mpmath at PREC bits (_exact). The tolerance's magnitude, which only
    the examples read, is _exact's, computed when asked for."""
    fast = _fast(v, attrs, inputs)
    if fast is None:
        outs, facts = _exact(v, attrs, inputs)
    else:
        outs, n = fast
        facts = (n, lambda: _exact(v, attrs, inputs)[1][1])
    remember(v, attrs, inputs, facts)
    return outs


def _exact(v, attrs, inputs):
    """Token by token, per kv head (query head h reads kv head h // (q_num_heads / kv_num_heads)): the decay
    exp(g_t) scales the state's rows (a per-key-dimension decay row by row, a per-head decay all of it);
    'linear' adds k (x) v, 'gated' the same to the decayed state, 'delta'/'gated_delta' add
    beta * k (x) (v - S'^T k) with S' the (decayed) state; o_t = scale * q_t^T S_t (scale 1/sqrt(d_k) when 0).
    The state's absolute-value recurrence bounds every sum's terms (the tolerance's magnitude)."""
    query, key, value = (np.asarray(inputs[k]) for k in ("query", "key", "value"))
    past_state, decay, beta = inputs.get("past_state"), inputs.get("decay"), inputs.get("beta")
    Hq, Hkv = attrs["q_num_heads"], attrs["kv_num_heads"]
    if Hkv <= 0 or Hq % Hkv:
        raise Rejected(GQA)
    rule = attr(attrs, "update_rule", "gated_delta")
    scale = attr(attrs, "scale", 0.0)
    with mpmath.workprec(PREC):
        q, k, val = _mp(query), _mp(key), _mp(value)
        B, T, _ = q.shape
        dk = q.shape[2] // Hq
        dv = val.shape[2] // Hkv
        q = q.reshape(B, T, Hq, dk)
        k = k.reshape(B, T, Hkv, dk)
        val = val.reshape(B, T, Hkv, dv)
        zero = mpmath.mpf(0)
        S = _mp(past_state) if past_state is not None else np.full((B, Hkv, dk, dv), zero, dtype=object)
        A = np.vectorize(abs, otypes=[object])(S)  # the absolute-value recurrence
        g = _mp(decay) if decay is not None else None
        be = _mp(beta) if beta is not None else None
        sc = f32(scale) if scale else 1 / mpmath.sqrt(dk)
        out = np.empty((B, T, Hq, dv), dtype=object)
        bound = max((x for x in A.reshape(-1)), default=zero)
        group = Hq // Hkv
        for b in range(B):
            for s in range(T):
                for h in range(Hkv):
                    kk, vv = k[b, s, h], val[b, s, h]
                    if rule in ("gated", "gated_delta"):
                        if g.shape[2] == Hkv * dk:
                            dec = [mpmath.exp(g[b, s, h * dk + i]) for i in range(dk)]
                        else:
                            dec = [mpmath.exp(g[b, s, h])] * dk
                    else:
                        dec = [mpmath.mpf(1)] * dk
                    Sd = np.array([[dec[i] * S[b, h, i, j] for j in range(dv)] for i in range(dk)], dtype=object)
                    Ad = np.array([[dec[i] * A[b, h, i, j] for j in range(dv)] for i in range(dk)], dtype=object)
                    if rule in ("delta", "gated_delta"):
                        bt = be[b, s, h if be.shape[2] == Hkv else 0]
                        sk = [sum(Sd[i, j] * kk[i] for i in range(dk)) for j in range(dv)]
                        ak = [sum(Ad[i, j] * abs(kk[i]) for i in range(dk)) for j in range(dv)]
                        upd = [bt * (vv[j] - sk[j]) for j in range(dv)]
                        aupd = [abs(bt) * (abs(vv[j]) + ak[j]) for j in range(dv)]
                    else:
                        upd = list(vv)
                        aupd = [abs(x) for x in vv]
                    for i in range(dk):
                        for j in range(dv):
                            S[b, h, i, j] = Sd[i, j] + kk[i] * upd[j]
                            A[b, h, i, j] = Ad[i, j] + abs(kk[i]) * aupd[j]
                            bound = max(bound, A[b, h, i, j])
                for hq in range(Hq):
                    h = hq // group
                    for j in range(dv):
                        out[b, s, hq, j] = sc * sum(q[b, s, hq, i] * S[b, h, i, j] for i in range(dk))
                        bound = max(bound, sc * sum(abs(q[b, s, hq, i]) * A[b, h, i, j] for i in range(dk)))
        y = _round(out.reshape(B, T, Hq * dv), type_of(query))
        state = _round(S, type_of(past_state) if past_state is not None else type_of(query))
    return {"output": y, "present_state": state}, (T * (dk + 3), float(bound))


# ---------------------------------------------------------------------------------------------
# The float64 path: the same recurrence on arrays of every batch entry and kv head at once, with E,
# a bound on each state element's error, carried along. U and LIBM as in ops/attention.py: each
# rounded float64 step charged eight units in the last place, numpy's exp 2^-44 relative.

U = 2.0 ** -50
LIBM = 2.0 ** -44
NARROW = ("float", "float16", "bfloat16")


def _fast(v, attrs, inputs):
    """({output, present_state}, n) in float64, decided(); None where the bounds do not cover the inputs
    (a double type, NaN or infinite data, unusual shapes) or do not decide every value."""
    query, key, value = (np.asarray(inputs[k]) for k in ("query", "key", "value"))
    past_state, decay, beta = inputs.get("past_state"), inputs.get("decay"), inputs.get("beta")
    Hq, Hkv = attrs["q_num_heads"], attrs["kv_num_heads"]
    rule = attr(attrs, "update_rule", "gated_delta")
    scale = attr(attrs, "scale", 0.0)
    t_out = type_of(query)
    t_state = type_of(past_state) if past_state is not None else t_out
    if Hkv <= 0 or Hq % Hkv or t_out not in NARROW or t_state not in NARROW:
        return None
    gated, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    if (gated and decay is None) or (delta and beta is None):
        return None
    try:
        q, k, val = (np.asarray(x, dtype=np.float64) for x in (query, key, value))
        if q.ndim != 3 or k.ndim != 3 or val.ndim != 3:
            return None
        B, T, _ = q.shape
        dk = q.shape[2] // Hq
        dv = val.shape[2] // Hkv
        q = q.reshape(B, T, Hq, dk)
        k = k.reshape(B, T, Hkv, dk)
        val = val.reshape(B, T, Hkv, dv)
        S = np.asarray(past_state, dtype=np.float64) if past_state is not None else np.zeros((B, Hkv, dk, dv))
        if S.shape != (B, Hkv, dk, dv):
            return None
        data = [q, k, val, S]
        if gated:
            g = np.asarray(decay, dtype=np.float64)
            if g.ndim != 3 or g.shape[:2] != (B, T):
                return None
            if g.shape[2] == Hkv * dk:
                g = g.reshape(B, T, Hkv, dk)
            elif g.shape[2] >= Hkv:
                g = np.repeat(g[:, :, :Hkv, None], dk, axis=3)
            else:
                return None
            data.append(g)
        if delta:
            be = np.asarray(beta, dtype=np.float64)
            if be.ndim != 3 or be.shape[:2] != (B, T) or be.shape[2] == 0:
                return None
            be = be[:, :, :Hkv] if be.shape[2] == Hkv else np.repeat(be[:, :, :1], Hkv, axis=2)
            data.append(be)
    except (ValueError, IndexError, TypeError):
        return None
    if dk == 0 or not all(np.isfinite(x).all() for x in data):
        return None
    sc = float(np.float32(scale)) if scale else 1 / math.sqrt(dk)
    group = Hq // Hkv
    E = np.zeros_like(S)  # |S - exact S| <= E, element by element
    out = np.empty((B, T, Hq, dv))
    out_err = np.empty((B, T, Hq, dv))
    for s in range(T):
        kk, vv = k[:, s, :, :, None], val[:, s, :, None, :]  # [B, Hkv, dk, 1], [B, Hkv, 1, dv]
        if gated:
            dec = np.exp(g[:, s])[..., None]  # [B, Hkv, dk, 1]
            Sd = dec * S
            Ed = dec * E * (1 + LIBM) + np.abs(Sd) * (LIBM + U)
        else:
            Sd, Ed = S, E
        if delta:
            bt = be[:, s, :, None, None]  # [B, Hkv, 1, 1]
            sk = np.sum(Sd * kk, axis=2, keepdims=True)  # [B, Hkv, 1, dv]
            sk_err = (np.sum(Ed * np.abs(kk), axis=2, keepdims=True)
                      + np.sum(np.abs(Sd * kk), axis=2, keepdims=True) * ((dk + 2) * U))
            diff = vv - sk
            upd = bt * diff
            upd_err = np.abs(bt) * (sk_err + np.abs(diff) * U) + np.abs(upd) * U
        else:
            upd, upd_err = vv, np.zeros_like(vv)
        prod = kk * upd
        S = Sd + prod
        E = Ed + np.abs(kk) * upd_err + (np.abs(prod) + np.abs(S)) * U
        Sg, Eg = np.repeat(S, group, axis=1), np.repeat(E, group, axis=1)  # [B, Hq, dk, dv]
        qs = q[:, s, :, :, None]  # [B, Hq, dk, 1]
        out[:, s] = sc * np.sum(qs * Sg, axis=2)
        out_err[:, s] = abs(sc) * (np.sum(np.abs(qs) * Eg, axis=2)
                                   + np.sum(np.abs(qs * Sg), axis=2) * ((dk + 4) * U))
    y, ok = decided(out.reshape(B, T, Hq * dv), out_err.reshape(B, T, Hq * dv) * 1.01, t_out)
    if not ok.all():
        return None
    state, ok = decided(S, E * 1.01, t_state)
    if not ok.all():
        return None
    return {"output": y, "present_state": state}, T * (dk + 3)


linear_attention_examples(OPERATOR)
