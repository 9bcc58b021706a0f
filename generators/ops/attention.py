"""Attention: scaled dot-product attention as the doc defines it, in mpmath (generators/attention_family.py)."""

import mpmath
import numpy as np

from onnx_conformance.generators.attention_family import NEG_INF, _mp, _round, attention_examples, f32
from onnx_conformance.generators.case import Operator, type_of
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.semantics import Rejected, attr, remember

OPERATOR = Operator("Attention", primary="T1",
                    defaults={"T2": lambda v, b: b["T1"], "U": lambda v, b: b["T1"]})

GQA = "Group-query Attention (GQA): 'q_num_heads > kv_num_heads', 'q_num_heads % kv_num_heads == 0'"


@OPERATOR.semantics
def attention(v, attrs, inputs):
    """Per batch b and query head h (kv head h // (q_num_heads / kv_num_heads)): keys and values are
    past_key/past_value followed by K/V (present_key/present_value); score = scale * Q.K (scale 1/sqrt(head
    size) unless given), softcap c * tanh(score / c); the bias adds a float mask, -inf where a bool mask is
    False, where the causal rule (offset: the past length, or nonpad_kv_seqlen - q length with an external
    cache), nonpad_kv_seqlen, a short mask's padding (version 24) or the window (version 25) excludes a key;
    softmax over the keys (a fully masked row gives zeros); Y = probs . V. qk_matmul_output: mode 0 the
    scores, 1 after softcap, 2 plus the bias, 3 the probabilities."""
    Q, K, V = (np.asarray(inputs[k]) for k in ("Q", "K", "V"))
    attn_mask, past_key, past_value = inputs.get("attn_mask"), inputs.get("past_key"), inputs.get("past_value")
    nonpad = inputs.get("nonpad_kv_seqlen")
    q_heads, kv_heads = attrs.get("q_num_heads"), attrs.get("kv_num_heads")
    scale, softcap = attrs.get("scale"), attr(attrs, "softcap", 0.0)
    is_causal, mode = attr(attrs, "is_causal", 0), attr(attrs, "qk_matmul_output_mode", 0)
    left, right = attrs.get("left_window_size"), attrs.get("right_window_size")
    three_d = Q.ndim == 3
    if three_d and (not q_heads or not kv_heads):
        raise Rejected(v.sentence(r"q_num_heads") or "3D inputs need q_num_heads and kv_num_heads")
    with mpmath.workprec(PREC):
        q, k, val = _mp(Q), _mp(K), _mp(V)
        if three_d:
            B, Sq, _ = q.shape
            q = q.reshape(B, Sq, q_heads, -1).transpose(0, 2, 1, 3)
            k = k.reshape(B, k.shape[1], kv_heads, -1).transpose(0, 2, 1, 3)
            val = val.reshape(B, val.shape[1], kv_heads, -1).transpose(0, 2, 1, 3)
        B, Hq, Sq, D = q.shape
        Hkv, Skv = k.shape[1], k.shape[2]
        if Hq % Hkv:
            raise Rejected(GQA)
        Dv = val.shape[3]
        P = 0
        if past_key is not None:
            k = np.concatenate([_mp(past_key), k], axis=2)
            val = np.concatenate([_mp(past_value), val], axis=2)
            P = np.asarray(past_key).shape[2]
        T = P + Skv
        sc = f32(scale) if scale is not None else 1 / mpmath.sqrt(D)
        cap = f32(softcap) if softcap else None
        mask = None
        if attn_mask is not None:
            m = _mp(attn_mask)
            width = m.shape[-1]
            full = np.empty(m.shape[:-1] + (T,), dtype=object)
            full[..., :width] = m
            pad = False if m.dtype == object and isinstance(m.reshape(-1)[0], (bool, np.bool_)) else NEG_INF
            full[..., width:] = pad
            mask = np.broadcast_to(full, (B, Hq, Sq, T))
        is_bool = attn_mask is not None and np.asarray(attn_mask).dtype == np.bool_
        group = Hq // Hkv
        Y = np.empty((B, Hq, Sq, Dv), dtype=object)
        qk = {m_: np.empty((B, Hq, Sq, T), dtype=object) for m_ in range(4)}
        S_max = mpmath.mpf(0)
        for b in range(B):
            if nonpad is not None:
                valid = int(nonpad[b])
                offset = valid - Sq if past_key is None else P
            else:
                valid = T
                offset = P
            for h in range(Hq):
                g = h // group
                for i in range(Sq):
                    row = []
                    for j in range(T):
                        terms = [sc * q[b, h, i, d] * k[b, g, j, d] for d in range(D)]
                        s = sum(terms)
                        mag = sum(abs(e) for e in terms)
                        qk[0][b, h, i, j] = s
                        if cap is not None:
                            s = cap * mpmath.tanh(s / cap)
                        qk[1][b, h, i, j] = s
                        bias = mpmath.mpf(0)
                        if mask is not None:
                            mv = mask[b, h, i, j]
                            if is_bool:
                                bias += 0 if mv else NEG_INF
                            else:
                                bias += mv
                                if mpmath.isfinite(mv):
                                    mag += abs(mv)
                        p = offset + i
                        if is_causal and j > p:
                            bias += NEG_INF
                        if j >= valid:
                            bias += NEG_INF
                        if left is not None and left >= 0 and j < p - left:
                            bias += NEG_INF
                        if right is not None and right >= 0 and j > p + right:
                            bias += NEG_INF
                        S_max = max(S_max, mag)
                        row.append(s + bias)
                        qk[2][b, h, i, j] = s + bias
                    finite = [x for x in row if mpmath.isfinite(x)]
                    if not finite:
                        probs = [mpmath.mpf(0)] * T
                    else:
                        top = max(finite)
                        e = [mpmath.exp(x - top) if mpmath.isfinite(x) else mpmath.mpf(0) for x in row]
                        tot = sum(e)
                        probs = [x / tot for x in e]
                    qk[3][b, h, i] = probs
                    for c in range(Dv):
                        Y[b, h, i, c] = sum(probs[j] * val[b, g, j, c] for j in range(T))
        if three_d:
            Y = Y.transpose(0, 2, 1, 3).reshape(B, Sq, Hq * Dv)
        t1, t2 = type_of(Q), type_of(V)
        outs = {"Y": _round(Y, t1), "present_key": _round(k, t1), "present_value": _round(val, t2),
                "qk_matmul_output": _round(qk[mode], t1)}
        vmax = max((abs(x) for x in val.reshape(-1)), default=mpmath.mpf(0))
        magnitude = float(vmax * (1 + 2 * S_max) + S_max)
    remember(v, attrs, inputs, (D, T, magnitude, cap is not None))
    return outs


attention_examples(OPERATOR)
