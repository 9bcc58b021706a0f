"""LinearAttention: the doc's linear, gated, delta and gated_delta recurrences, token by token in mpmath (generators/attention_family.py)."""

import mpmath
import numpy as np

from onnx_conformance.generators.attention_family import _mp, _round, f32, linear_attention_examples
from onnx_conformance.generators.case import Operator, type_of
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.semantics import Rejected, attr, remember

OPERATOR = Operator("LinearAttention", primary="T", defaults={"S": lambda v, b: b["T"]})

GQA = "Group-query attention (GQA) is supported: q_num_heads must be a positive multiple of kv_num_heads"


@OPERATOR.semantics
def linear_attention(v, attrs, inputs):
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
    remember(v, attrs, inputs, (T * (dk + 3), float(bound)))
    return {"output": y, "present_state": state}


linear_attention_examples(OPERATOR)
