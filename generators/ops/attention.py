"""Attention: scaled dot-product attention as the doc defines it, in mpmath (generators/attention_family.py)."""

import math

import mpmath
import numpy as np

from onnx_conformance.generators.attention_family import NEG_INF, _mp, _round, attention_examples, f32
from onnx_conformance.generators.case import Operator, type_of
from onnx_conformance.generators.rounding import PREC, decided, round_f64
from onnx_conformance.generators.semantics import Rejected, attr, remember, rule

OPERATOR = Operator("Attention", primary="T1",
                    defaults={"T2": lambda v, b: b["T1"], "U": lambda v, b: b["T1"]})

GQA = "Group-query Attention (GQA): 'q_num_heads > kv_num_heads', 'q_num_heads % kv_num_heads == 0'"


@OPERATOR.semantics
def attention(v, attrs, inputs):
    """Per batch b and query head h (kv head h // (q_num_heads / kv_num_heads)): as _exact says. Computed
    first in float64 with a proven bound on each value's error (_fast): where every value within the bound
    rounds to the same one, that is the correctly rounded result; otherwise mpmath at PREC bits (_exact).
    The tolerance's magnitude, which only the examples read, is _exact's, computed when asked for."""
    fast = _fast(v, attrs, inputs)
    if fast is None:
        outs, facts = _exact(v, attrs, inputs)
    else:
        outs, (D, T, capped) = fast
        facts = (D, T, lambda: _exact(v, attrs, inputs)[1][2], capped)
    remember(v, attrs, inputs, facts)
    return outs


def _exact(v, attrs, inputs):
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
            m = _mp(whole(v, attn_mask, T))
            width = m.shape[-1]
            full = np.empty(m.shape[:-1] + (T,), dtype=object)
            full[..., :width] = m
            pad = False if np.asarray(attn_mask).dtype == np.bool_ else NEG_INF
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
    return outs, (D, T, magnitude, cap is not None)


# ---------------------------------------------------------------------------------------------
# The float64 path and its error bounds. U is eight units in the last place of a double: every
# rounded float64 step (a product, a sum, a division, a BLAS dot product's terms in any order) is
# charged U where a correct bound needs one unit, so the bounds hold with room for second-order
# terms. LIBM: numpy's exp and tanh (libm or SIMD: a few ULP at most) are charged 2^-44 relative.
# A bound this loose only sends more rows to mpmath: a float32 value is undecided when the exact
# one lies within about 2^-20 of its rounding boundary's spacing.

U = 2.0 ** -50
LIBM = 2.0 ** -44
TINY = 2.0 ** -1000  # an exp below this is charged as absolute error (it may have underflowed)
NARROW = ("float", "float16", "bfloat16")


def whole(v, attn_mask, T: int) -> np.ndarray:
    """attn_mask with a last dimension: a rank-0 mask ('broadcastable to (batch_size, q_num_heads,
    q_sequence_length, total_sequence_length)', as a scalar is) spread over all T keys, never padded.
    Attention-23 has no padding sentence: a last dimension of 1 broadcasts, any other short one is refused."""
    m = np.asarray(attn_mask)
    if m.ndim == 0:
        return np.broadcast_to(m, (T,))
    if v.since_version < 24 and m.shape[-1] != T:
        if m.shape[-1] != 1:
            raise Rejected(rule(v, r"broadcastable", "attn_mask"))
        return np.broadcast_to(m, m.shape[:-1] + (T,))
    return m


def _fast(v, attrs, inputs):
    """(outputs, (D, T, capped)) computed in float64, every output decided by decided(); None where
    anything is outside what the bounds cover (a double T1, NaN or infinite data, unusual shapes,
    an undecided value): _exact then answers, raising what it raises."""
    Q, K, V = (np.asarray(inputs[k]) for k in ("Q", "K", "V"))
    attn_mask, past_key, past_value = inputs.get("attn_mask"), inputs.get("past_key"), inputs.get("past_value")
    nonpad = inputs.get("nonpad_kv_seqlen")
    t1, t2 = type_of(Q), type_of(V)
    if t1 not in NARROW or type_of(K) != t1 or t2 not in NARROW + ("double",) or Q.ndim not in (3, 4):
        return None
    if (past_key is None) != (past_value is None):
        return None
    if past_key is not None and (type_of(past_key) != t1 or type_of(past_value) != t2):
        return None
    q_heads, kv_heads = attrs.get("q_num_heads"), attrs.get("kv_num_heads")
    scale, softcap = attrs.get("scale"), attr(attrs, "softcap", 0.0)
    is_causal, mode = attr(attrs, "is_causal", 0), attr(attrs, "qk_matmul_output_mode", 0)
    left, right = attrs.get("left_window_size"), attrs.get("right_window_size")
    if mode not in (0, 1, 2, 3):
        return None
    three_d = Q.ndim == 3
    try:
        q, k, val = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
        if three_d:
            if not q_heads or not kv_heads:
                return None
            B, Sq, _ = q.shape
            q = q.reshape(B, Sq, q_heads, -1).transpose(0, 2, 1, 3)
            k = k.reshape(B, k.shape[1], kv_heads, -1).transpose(0, 2, 1, 3)
            val = val.reshape(B, val.shape[1], kv_heads, -1).transpose(0, 2, 1, 3)
        if q.ndim != 4 or k.ndim != 4 or val.ndim != 4:
            return None
        B, Hq, Sq, D = q.shape
        Hkv, Skv = k.shape[1], k.shape[2]
        if D == 0 or Hkv == 0 or Hq % Hkv or k.shape[0] != B or k.shape[3] != D or val.shape[:3] != k.shape[:3]:
            return None
        Dv = val.shape[3]
        P = 0
        if past_key is not None:
            k = np.concatenate([np.asarray(past_key, dtype=np.float64), k], axis=2)
            val = np.concatenate([np.asarray(past_value, dtype=np.float64), val], axis=2)
            P = np.asarray(past_key).shape[2]
        T = P + Skv
        if not (np.isfinite(q).all() and np.isfinite(k).all() and np.isfinite(val).all()):
            return None
        group = Hq // Hkv
        kg = np.repeat(k, group, axis=1)
        vg = np.repeat(val, group, axis=1)

        # the bias: the mask's value (-inf where a bool mask is False, or past a short mask), plus -inf
        # where the causal rule, nonpad_kv_seqlen or the window excludes a key
        bias = np.zeros((B, Hq, Sq, T))
        if attn_mask is not None:
            m = whole(v, attn_mask, T)
            if m.size == 0 or m.shape[-1] > T:
                return None
            if m.dtype == np.bool_:
                mb = np.where(m, 0.0, -np.inf)
            else:
                if type_of(m) != t1:
                    return None
                mb = m.astype(np.float64)
                if np.isnan(mb).any() or (mb == np.inf).any():
                    return None
            full = np.full(m.shape[:-1] + (T,), -np.inf)
            full[..., :m.shape[-1]] = mb
            bias = bias + np.broadcast_to(full, (B, Hq, Sq, T))
        jj = np.arange(T)[None, :]
        excluded = np.zeros((B, 1, Sq, T), dtype=bool)
        for b in range(B):
            if nonpad is not None:
                valid = int(nonpad[b])
                offset = valid - Sq if past_key is None else P
            else:
                valid, offset = T, P
            p = offset + np.arange(Sq)[:, None]
            ex = jj >= valid
            if is_causal:
                ex = ex | (jj > p)
            if left is not None and left >= 0:
                ex = ex | (jj < p - left)
            if right is not None and right >= 0:
                ex = ex | (jj > p + right)
            excluded[b, 0] = ex
        bias = np.where(excluded, -np.inf, bias)
    except (ValueError, IndexError, TypeError):
        return None

    # scores: scale * Q.K, each a D-term dot product (any order); 1/sqrt(D) is two roundings off
    sc = float(np.float32(scale)) if scale is not None else 1 / math.sqrt(D)
    s0 = sc * np.matmul(q, kg.swapaxes(-1, -2))
    err0 = abs(sc) * np.matmul(np.abs(q), np.abs(kg).swapaxes(-1, -2)) * ((D + 4) * U)
    s1, err1 = s0, err0
    cap = float(np.float32(softcap)) if softcap else None
    if cap is not None:
        if cap == 0 or not math.isfinite(cap):
            return None
        # c * tanh(s / c) moves by at most as much as s does (its slope is at most 1)
        s1 = cap * np.tanh(s0 / cap)
        err1 = err0 + np.abs(s0) * U + np.abs(s1) * LIBM
    finite = np.isfinite(bias)
    with np.errstate(invalid="ignore"):
        s2 = np.where(finite, s1 + bias, -np.inf)
    err2 = np.where(finite, err1 + np.abs(np.where(finite, s2, 0.0)) * U, 0.0)

    # softmax over the finite scores, shifted by their computed maximum (an exact float64: the
    # probabilities do not depend on the shift); a row with none gives zeros
    row = finite.any(axis=-1)
    top = np.where(row, np.where(finite, s2, -np.inf).max(axis=-1), 0.0)[..., None]
    x = np.where(finite, s2 - top, 0.0)
    dx = np.where(finite, err2 + np.abs(x) * U, 0.0)
    if dx.max(initial=0.0) > 2.0 ** -20:
        return None
    e = np.where(finite, np.exp(x), 0.0)
    big = e >= TINY
    eta = np.where(big, 1.001 * dx + LIBM, 0.0)  # each exp's relative error
    small = (finite & ~big).sum(axis=-1, keepdims=True)  # each off by at most 2 * TINY absolute
    tot = e.sum(axis=-1, keepdims=True)  # >= 1: exp(0) at the maximum
    tot = np.where(row[..., None], tot, 1.0)
    zeta = eta.max(axis=-1, keepdims=True) + small * 2 * TINY + T * U
    probs = e / tot
    rho = np.where(big, 1.001 * (eta + zeta) + U, 0.0)
    perr = np.where(big, probs * rho, np.where(finite, 4 * TINY, 0.0))
    Y = np.matmul(probs, vg)
    Y = np.where(row[..., None], Y, 0.0)  # a fully masked row: exactly +0
    vmax = float(np.abs(val).max(initial=0.0))
    errY = ((rho.max(axis=-1, keepdims=True) + (T + 2) * U) * np.matmul(probs, np.abs(vg)) * 1.01
            + (small * 4 * TINY * vmax + TINY))
    errY = np.where(row[..., None], errY, 0.0)

    if three_d:
        Y = Y.transpose(0, 2, 1, 3).reshape(B, Sq, Hq * Dv)
        errY = errY.transpose(0, 2, 1, 3).reshape(B, Sq, Hq * Dv)
    y, ok = decided(Y, errY, t1)
    if not ok.all():
        return None
    if mode == 3:
        qk, ok = decided(probs, perr, t1, positive=finite)
    else:
        value, err = ((s0, err0), (s1, err1), (s2, err2))[mode]
        masked = np.isneginf(value)  # exactly -inf: the bias excludes it
        qk, ok = decided(np.where(masked, 0.0, value), err, t1)
        qk = np.where(masked, round_f64(np.array(-np.inf), t1), qk).astype(qk.dtype)
        ok = ok | masked
    if not ok.all():
        return None
    # present_key/present_value: the keys and values, exact (mpmath has no -0: a zero is +0)
    outs = {"Y": y, "present_key": round_f64(np.where(k == 0, 0.0, k), t1),
            "present_value": round_f64(np.where(val == 0, 0.0, val), t2), "qk_matmul_output": qk}
    return outs, (D, T, cap is not None)


attention_examples(OPERATOR)
