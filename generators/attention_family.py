"""What Attention, RotaryEmbedding and LinearAttention share: their examples, tolerance rules and mpmath helpers.

Each operator's semantics (the docs' formulas in mpmath, each output rounded once) is in its own module;
the oracles they state:

Attention oracle, per batch b and query head h (kv head h // (q_num_heads / kv_num_heads)):
keys and values are past_key/past_value followed by K/V (present_key/present_value are that
concatenation, exact); score[i, j] = scale * sum_d Q[i, d] * K[j, d] (Q*sqrt(scale) times
(K*sqrt(scale))^T is the same real number), scale = 1/sqrt(head_size) unless given (a FLOAT
attribute: its float32 value); softcap c != 0 gives c * tanh(score / c); the bias adds a float
attn_mask, -inf where a bool attn_mask is False, where the causal rule excludes a key (j > i +
offset, offset = past_sequence_length, or nonpad_kv_seqlen - q_sequence_length per batch with an
external cache), past a batch entry's nonpad_kv_seqlen, past a mask's last dimension when it is
shorter than total_sequence_length (version 24+: 'padded ... with negative infinity'), and outside
the window [p - left_window_size, p + right_window_size] (version 25, p = offset + i); softmax over
the keys, a fully-masked row giving zeros ('produces a zero output row, not NaN'); Y = probs . V.
qk_matmul_output: mode 0 the scores, 1 after softcap, 2 plus the bias, 3 the probabilities.

Tolerance rule (one per case, covering every output): accumulation(T1, n, magnitude, after) with
n = head_size + total_sequence_length (a score's dot product, then the weighted sum of values),
magnitude = max|V| * (1 + 2 * S) + S, S the largest sum of |terms| of any score (scale * |q||k|
over head_size, plus |mask|): an error e in a score moves the probabilities by a relative e, so
Y by e * sum p|v|; after = the budget() steps of exp and of the division (softcap adds tanh's).

RotaryEmbedding oracle (the doc's algorithm): for each token, cos and sin rows from the caches
(indexed by position_ids, or the caches' own [batch, sequence] rows without them); pairs (x1, x2)
are the two halves of the first rotary_embedding_dim elements of a head (or its even and odd
elements when interleaved); x1 * cos - x2 * sin and x1 * sin + x2 * cos replace them exactly, the
rest pass through; rounded once. Tolerance: accumulation(T, 2, magnitude) (two products and a sum),
magnitude the largest |x1 cos| + |x2 sin| over the outputs.

LinearAttention oracle (the doc's recurrences, token by token, per kv head; query head h reads kv
head h // (q_num_heads / kv_num_heads)): the decay exp(g_t) scales the state's rows (a per-key-
dimension decay row by row, a per-head decay all of it), then 'linear' adds k (x) v, 'gated' the
same to the decayed state, 'delta'/'gated_delta' add beta * k (x) (v - S'^T k) with S' the (decayed)
state; o_t = scale * q_t^T S_t, scale = 1/sqrt(d_k) when 0. Tolerance: accumulation(T, n,
magnitude, after) with n = tokens * (d_k + 3), magnitude the largest element of the same recurrence
run on absolute values (a running bound of every sum's |terms|), after = exp's budget.
"""

from __future__ import annotations

import mpmath
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.accuracy import accumulation, budget
from onnx_conformance.generators.case import Declared, NotApplicable
from onnx_conformance.generators.rounding import round_many
from onnx_conformance.generators.semantics import recall
from onnx_conformance.harness.dtypes import numpy_of

NEG_INF = mpmath.mpf("-inf")


def f32(x) -> mpmath.mpf:
    return mpmath.mpf(float(np.float32(x)))


def _mp(x) -> np.ndarray:
    x = np.asarray(x)
    out = np.empty(x.shape, dtype=object)
    for i, e in np.ndenumerate(x):
        out[i] = e if isinstance(e, (bool, np.bool_)) else mpmath.mpf(float(e))
    return out


def _round(r: np.ndarray, type_name: str) -> np.ndarray:
    return round_many(list(r.reshape(-1)), type_name).reshape(r.shape)


def _ulp(fn: str, type_name: str) -> int:
    return (budget(fn, type_name) or {"ulp": 0})["ulp"]


def attention(operator, v, t, Q, K, V, attn_mask=None, past_key=None, past_value=None, nonpad_kv_seqlen=None, *,
              q_num_heads=None, kv_num_heads=None, scale=None, is_causal=None, softcap=None,
              qk_matmul_output_mode=None, left_window_size=None, right_window_size=None,
              softmax_precision=None, want=("Y",)):
    """The Case for one Attention node; `want` names the outputs asked for."""
    attrs = {}
    for key, x in (("q_num_heads", q_num_heads), ("kv_num_heads", kv_num_heads), ("scale", scale),
                   ("is_causal", is_causal), ("softcap", softcap), ("qk_matmul_output_mode", qk_matmul_output_mode),
                   ("left_window_size", left_window_size), ("right_window_size", right_window_size),
                   ("softmax_precision", softmax_precision)):
        if x is not None:
            attrs[key] = x
    inputs = {"Q": Q, "K": K, "V": V, "attn_mask": attn_mask, "past_key": past_key, "past_value": past_value}
    if v.has_input("nonpad_kv_seqlen"):
        inputs["nonpad_kv_seqlen"] = None if nonpad_kv_seqlen is None else np.asarray(nonpad_kv_seqlen, np.int64)
    names = [n if n in want else None for n in ("Y", "present_key", "present_value", "qk_matmul_output")]
    case = operator.expect(v, inputs, attrs, outputs=names)
    D, T, magnitude, capped = recall(v, attrs, inputs)
    if callable(magnitude):  # the semantics' float64 path leaves it to be computed when asked for
        magnitude = magnitude()
    t1 = t["T1"]
    after = _ulp("exp", t1) + _ulp("div", t1) + (_ulp("tanh", t1) if capped else 0)
    case.tolerance = accumulation(t1, D + T, magnitude, after=after)
    return case


# ---------------------------------------------------------------------------------------------
# Attention examples: onnx's documented ones by name (their data is random: ours from the case's
# rng, same shapes and attributes), then the rules each version adds.

BASIC = ("4d", "4d_gqa", "4d_diff_heads_sizes", "3d", "3d_gqa", "4d_attn_mask", "4d_causal")
MIXED = ("4d", "3d_gqa")  # the examples run with V of another type than Q
ATTRIBUTE_TYPES = ("float", "float16")


def rand(type_name, shape, rng):
    """Uniform [0, 1) data, as onnx's examples draw it (np.random.rand), in the type."""
    return rng.random(size=shape).astype(np.float32).astype(numpy_of(type_name))


def attention_example(operator, name, *, three_d=False, B=2, Hq=3, Hkv=3, Sq=4, Skv=6, D=8, Dv=8, P=0,
                      mask=None, mask_shape=None, neg_inf_mask=False, full_masked_row=False,
                      nonpad=None, since=23, want=("Y",), **attrs):
    """An example function; `mask` is None, 'float' or 'bool', mask_shape its shape (T for total length)."""

    def example(v, t, rng):
        if v.since_version < since:
            return NotApplicable(f"Attention-{v.since_version} lacks what this example uses "
                                 f"(nonpad_kv_seqlen, a short mask: version 24; left/right_window_size: version 25)")
        t1 = t["T1"]
        if t["T2"] != t1 and name not in MIXED:
            return NotApplicable(f"examples with V of another type than Q (T2 != T1) are {', '.join(MIXED)}; "
                                 "the others run with T2 = T1")
        if values.is_int(t["U"]):
            return NotApplicable("attn_mask: 'Two types of masks are supported: a boolean mask ... or a float mask "
                                 "of the same type as query, key, value'; an integer mask has no stated meaning")
        if t["U"] == "bool" and mask != "bool":
            return NotApplicable("U binds only attn_mask: the bool binding runs the bool-mask examples")
        if t["U"] not in ("bool", t1):
            return NotApplicable("attn_mask: 'a float mask of the same type as query, key, value'; "
                                 f"a {t['U']} mask with {t1} Q has no stated meaning")
        if mask == "bool" and t["U"] != "bool":
            return NotApplicable("bool-mask examples run in the binding U = bool")
        if name not in BASIC and t1 not in ATTRIBUTE_TYPES and mask != "bool":
            return NotApplicable(f"attribute examples run in {', '.join(ATTRIBUTE_TYPES)}; {t1} is covered "
                                 f"by {', '.join(BASIC)}")
        T = P + Skv
        Q = rand(t1, (B, Sq, Hq * D) if three_d else (B, Hq, Sq, D), rng)
        K = rand(t1, (B, Skv, Hkv * D) if three_d else (B, Hkv, Skv, D), rng)
        V = rand(t["T2"], (B, Skv, Hkv * Dv) if three_d else (B, Hkv, Skv, Dv), rng)
        m = None
        if mask:
            shape = tuple(T if s == "T" else s for s in (mask_shape or (Sq, "T")))
            if mask == "bool":
                m = rng.random(size=shape) < 0.7
                m[..., 0] = True  # no row fully masked unless asked
                if full_masked_row:
                    m[..., 1, :] = False
            else:
                m = rand(t1, shape, rng)
                if neg_inf_mask:
                    flat = m.reshape(-1)
                    flat[::5] = -np.inf
                    m = flat.reshape(shape)
                    m[..., 0] = 0
        pk = rand(t1, (B, Hkv, P, D), rng) if P else None
        pv = rand(t["T2"], (B, Hkv, P, Dv), rng) if P else None
        heads = dict(q_num_heads=Hq, kv_num_heads=Hkv) if three_d else {}
        outs = want
        if P and "present_key" not in outs:
            outs = outs + ("present_key", "present_value")
        return attention(operator, v, t, Q, K, V, m, pk, pv, nonpad, want=outs, **heads, **attrs)

    example.__name__ = name
    return example


def attention_examples(operator) -> None:
    def E(*a, **k):
        return attention_example(operator, *a, **k)
    QK = ("Y", "present_key", "present_value", "qk_matmul_output")
    table = {
        "4d": E("4d"),
        "4d_gqa": E("4d_gqa", Hq=9, Hkv=3),
        "4d_diff_heads_sizes": E("4d_diff_heads_sizes", Dv=10),
        "4d_scaled": E("4d_scaled", scale=0.1),
        "4d_gqa_scaled": E("4d_gqa_scaled", Hq=9, Hkv=3, scale=0.1),
        "4d_causal": E("4d_causal", is_causal=1),
        "4d_gqa_causal": E("4d_gqa_causal", Hq=9, Hkv=3, is_causal=1),
        "4d_attn_mask": E("4d_attn_mask", mask="float"),
        "4d_attn_mask_3d": E("4d_attn_mask_3d", mask="float", mask_shape=(3, 4, "T")),
        "4d_attn_mask_3d_causal": E("4d_attn_mask_3d_causal", mask="float", mask_shape=(3, 4, "T"), is_causal=1),
        "4d_attn_mask_4d": E("4d_attn_mask_4d", mask="float", mask_shape=(2, 3, 4, "T")),
        "4d_attn_mask_4d_causal": E("4d_attn_mask_4d_causal", mask="float", mask_shape=(2, 3, 4, "T"), is_causal=1),
        "4d_attn_mask_bool": E("4d_attn_mask_bool", mask="bool"),
        "4d_attn_mask_bool_4d": E("4d_attn_mask_bool_4d", mask="bool", mask_shape=(2, 3, 4, "T")),
        "4d_gqa_attn_mask": E("4d_gqa_attn_mask", Hq=9, Hkv=3, mask="float"),
        "4d_with_past_and_present": E("4d_with_past_and_present", P=5, mask="float"),
        "4d_gqa_with_past_and_present": E("4d_gqa_with_past_and_present", Hq=9, Hkv=3, P=5, mask="float"),
        "4d_diff_heads_with_past_and_present": E("4d_diff_heads_with_past_and_present", Dv=10, P=5, mask="float"),
        "4d_causal_with_past_and_present": E("4d_causal_with_past_and_present", P=5, is_causal=1),
        "4d_softcap": E("4d_softcap", softcap=2.0),
        "4d_softcap_neginf_mask": E("4d_softcap_neginf_mask", softcap=2.0, mask="float", neg_inf_mask=True),
        "4d_with_qk_matmul": E("4d_with_qk_matmul", want=("Y", "qk_matmul_output")),
        "4d_with_qk_matmul_softcap": E("4d_with_qk_matmul_softcap", softcap=2.0, qk_matmul_output_mode=1,
                                       want=("Y", "qk_matmul_output")),
        "4d_with_qk_matmul_bias": E("4d_with_qk_matmul_bias", mask="float", qk_matmul_output_mode=2,
                                    want=("Y", "qk_matmul_output")),
        "4d_with_qk_matmul_softmax": E("4d_with_qk_matmul_softmax", mask="float", qk_matmul_output_mode=3,
                                       want=("Y", "qk_matmul_output")),
        "4d_with_past_and_present_qk_matmul_bias_4d_mask_causal": E(
            "4d_with_past_and_present_qk_matmul_bias_4d_mask_causal", P=5, mask="float",
            mask_shape=(2, 3, 4, "T"), is_causal=1, qk_matmul_output_mode=2, want=QK),
        "3d": E("3d", three_d=True),
        "3d_gqa": E("3d_gqa", three_d=True, Hq=9, Hkv=3),
        "3d_diff_heads_sizes": E("3d_diff_heads_sizes", three_d=True, Dv=10),
        "3d_causal": E("3d_causal", three_d=True, is_causal=1),
        "3d_attn_mask": E("3d_attn_mask", three_d=True, mask="float"),
        "3d_softcap": E("3d_softcap", three_d=True, softcap=3.0),
        "3d_with_past_and_present": E("3d_with_past_and_present", three_d=True, P=5, mask="float"),
        "3d_with_past_and_present_qk_matmul_softmax": E(
            "3d_with_past_and_present_qk_matmul_softmax", three_d=True, P=5, mask="float",
            qk_matmul_output_mode=3, want=QK),
        # softmax_precision = 1 (FLOAT): the weights go to float for the softmax and back; the value
        # asked is the exact one (within the tolerance), as without the attribute
        "4d_softmax_precision_float": E("4d_softmax_precision_float", mask="float", softmax_precision=1),
        "4d_with_qk_matmul_softmax_precision_float": E("4d_with_qk_matmul_softmax_precision_float",
                                                       softmax_precision=1, qk_matmul_output_mode=3,
                                                       want=("Y", "qk_matmul_output")),
        "boolmask_fullymasked_row": E("boolmask_fullymasked_row", mask="bool", full_masked_row=True),
        "fullymasked_qk_matmul_output_mode3_zero": E(
            "fullymasked_qk_matmul_output_mode3_zero", mask="bool", full_masked_row=True,
            qk_matmul_output_mode=3, want=("Y", "qk_matmul_output")),
        # version 24: external cache (nonpad_kv_seqlen), masks shorter than the total length
        "4d_diff_heads_mask4d_padded_kv": E("4d_diff_heads_mask4d_padded_kv", since=24, Dv=10, mask="float",
                                            mask_shape=(2, 3, 4, 4), nonpad=[4, 4]),
        "4d_gqa_causal_nonpad_decode": E("4d_gqa_causal_nonpad_decode", since=24, Hq=9, Hkv=3, Sq=1,
                                         nonpad=[3, 6], is_causal=1),
        "4d_causal_nonpad_continued_prefill": E("4d_causal_nonpad_continued_prefill", since=24, Sq=2,
                                                nonpad=[4, 6], is_causal=1),
        "4d_causal_nonpad_negative_offset_structural_empty": E(
            "4d_causal_nonpad_negative_offset_structural_empty", since=24, Sq=4, nonpad=[2, 5], is_causal=1),
        "4d_causal_nonpad_attn_mask_composition": E("4d_causal_nonpad_attn_mask_composition", since=24,
                                                    Sq=2, nonpad=[5, 3], is_causal=1, mask="float"),
        "4d_padded_mask_shorter": E("4d_padded_mask_shorter", since=24, mask="float", mask_shape=(4, 3)),
        # version 25: sliding windows
        "local_window": E("local_window", since=25, is_causal=1, left_window_size=2),
        "bidirectional_window": E("bidirectional_window", since=25, left_window_size=2, right_window_size=1),
        "local_window_with_past": E("local_window_with_past", since=25, P=3, is_causal=1, left_window_size=2),
        "local_window_ext_cache": E("local_window_ext_cache", since=25, Sq=2, nonpad=[5, 6], is_causal=1,
                                    left_window_size=1),
        "3d_local_window": E("3d_local_window", since=25, three_d=True, is_causal=1, left_window_size=1),
        "local_window_bool_mask": E("local_window_bool_mask", since=25, mask="bool", left_window_size=1,
                                    right_window_size=2),
    }
    for name, fn in table.items():
        operator.example(fn, name=name)

    @operator.rejection(name="3d_heads_not_dividing")
    def heads_not_dividing(v, t, rng):
        """q_num_heads = 3, kv_num_heads = 2: GQA needs 'q_num_heads % kv_num_heads == 0'."""
        Q = rand(t["T1"], (1, 2, 3 * 4), rng)
        K = rand(t["T1"], (1, 3, 2 * 4), rng)
        V = rand(t["T2"], (1, 3, 2 * 4), rng)
        return operator.reject(v, {"Q": Q, "K": K, "V": V}, {"q_num_heads": 3, "kv_num_heads": 2},
                               {"Y": Declared(t["T1"], (1, 2, 12)), "present_key": None, "present_value": None,
                                "qk_matmul_output": None})


# ---------------------------------------------------------------------------------------------
# RotaryEmbedding


def rotary(operator, v, t, X, cos_cache, sin_cache, position_ids=None, *, interleaved=None,
           rotary_embedding_dim=None, num_heads=None):
    attrs = {k: a for k, a in (("interleaved", interleaved), ("rotary_embedding_dim", rotary_embedding_dim),
                               ("num_heads", num_heads)) if a is not None}
    inputs = {"X": X, "cos_cache": cos_cache, "sin_cache": sin_cache,
              "position_ids": None if position_ids is None else np.asarray(position_ids, np.int64)}
    case = operator.expect(v, inputs, attrs)
    case.tolerance = accumulation(t.dtype, 2, recall(v, attrs, inputs))
    return case


def rotary_examples(operator) -> None:
    """onnx's documented examples (random data: ours from the case's rng, same shapes and attributes)."""

    def make(shape=(2, 4, 3, 8), cache=(50, 4), positions=True, **attrs):
        def example(v, t, rng):
            X = rand(t.dtype, shape, rng)
            B, S = shape[0], (shape[1] if len(shape) == 3 else shape[2])
            c_shape = cache if positions else (B, S, cache[-1])
            cos = rand(t.dtype, c_shape, rng)
            sin = rand(t.dtype, c_shape, rng)
            pos = rng.integers(0, cache[0], size=(B, S)).astype(np.int64) if positions else None
            return rotary(operator, v, t, X, cos, sin, pos, **attrs)
        return example

    table = {
        "default": make(),
        "3d_input": make(shape=(2, 3, 32), num_heads=4),
        "interleaved": make(interleaved=1),
        "with_rotary_dim": make(cache=(50, 2), rotary_embedding_dim=4),
        "with_interleaved_rotary_dim": make(cache=(50, 2), rotary_embedding_dim=4, interleaved=1),
        "no_position_ids": make(positions=False),
        "no_position_ids_interleaved": make(positions=False, interleaved=1),
        "no_position_ids_rotary_dim": make(cache=(50, 2), positions=False, rotary_embedding_dim=4),
        "3d_input_interleaved_rotary_dim": make(shape=(2, 3, 24), cache=(20, 2), num_heads=2,
                                                interleaved=1, rotary_embedding_dim=4),
        "position_ids_repeated_and_last": make(shape=(1, 2, 5, 6), cache=(5, 3)),
    }
    for name, fn in table.items():
        operator.example(fn, name=name)


# ---------------------------------------------------------------------------------------------
# LinearAttention


def linear_attention(operator, v, t, query, key, value, past_state=None, decay=None, beta=None, *, q_num_heads,
                     kv_num_heads, update_rule=None, scale=None, chunk_size=None):
    attrs = {"q_num_heads": q_num_heads, "kv_num_heads": kv_num_heads}
    for key_, x in (("update_rule", update_rule), ("scale", scale), ("chunk_size", chunk_size)):
        if x is not None:
            attrs[key_] = x
    inputs = {"query": query, "key": key, "value": value, "past_state": past_state, "decay": decay, "beta": beta}
    case = operator.expect(v, inputs, attrs)
    n, bound = recall(v, attrs, inputs)
    if callable(bound):  # the semantics' float64 path leaves it to be computed when asked for
        bound = bound()
    # one tolerance for both outputs: that of the narrower type where T or S is 16-bit
    tol_type = next((x for x in (t["T"], t["S"]) if x in ("float16", "bfloat16")), t["T"])
    case.tolerance = accumulation(tol_type, n, bound, after=_ulp("exp", tol_type))
    return case


def randn(type_name, shape, rng, scale=1.0):
    return (rng.standard_normal(size=shape) * scale).astype(np.float32).astype(numpy_of(type_name))


def l2_normalized(type_name, shape, heads, rng):
    """Keys normalized per head in float32 ('Should be L2-normalized for delta/gated_delta modes'), then the type."""
    x = rng.standard_normal(size=shape).astype(np.float32)
    b, t_, hd = shape
    x4 = x.reshape(b, t_, heads, hd // heads)
    x4 = x4 / np.maximum(np.linalg.norm(x4, axis=-1, keepdims=True), np.float32(1e-6))
    return x4.reshape(shape).astype(np.float32).astype(numpy_of(type_name))


def linear_attention_examples(operator) -> None:
    """onnx's documented examples (random data: ours from the case's rng, same shapes and attributes)."""

    def make(rule=None, B=2, T=4, Hq=4, Hkv=4, dk=8, dv=8, past=None, decay="key", beta="head", attr_types=False,
             **attrs):
        def example(v, t, rng):
            if t["S"] != t["T"] and (attr_types or past is None):
                return NotApplicable("a state type S other than T needs past_state (without it, S is inferred "
                                     "as T): it runs in decode_step and prefill_with_past")
            if attr_types and t["T"] != "float":
                return NotApplicable("edge-case examples run in float; every type is covered by the update-rule examples")
            r = rule or "gated_delta"
            T_ = t["T"]
            query = randn(T_, (B, T, Hq * dk), rng)
            if r in ("delta", "gated_delta"):
                key = l2_normalized(T_, (B, T, Hkv * dk), Hkv, rng)
            else:
                key = randn(T_, (B, T, Hkv * dk), rng)
            value = randn(T_, (B, T, Hkv * dv), rng)
            ps = None
            if past == "random":
                ps = randn(t["S"], (B, Hkv, dk, dv), rng, 0.1)
            elif past == "zeros":
                ps = np.zeros((B, Hkv, dk, dv), numpy_of(t["S"]))
            dc = None
            if r in ("gated", "gated_delta"):
                width = Hkv * dk if decay == "key" else Hkv
                dc = (-np.abs(rng.standard_normal(size=(B, T, width))) * 0.1).astype(np.float32).astype(numpy_of(T_))
            bt = None
            if r in ("delta", "gated_delta"):
                bt = rand(T_, (B, T, Hkv if beta == "head" else 1), rng)
            return linear_attention(operator, v, t, query, key, value, ps, dc, bt, q_num_heads=Hq, kv_num_heads=Hkv,
                                    update_rule=rule, **attrs)
        return example

    table = {
        "linear": make("linear"),
        "gated": make("gated"),
        "gated_per_head_decay": make("gated", decay="head"),
        "delta": make("delta"),
        "gated_delta": make(),
        "gated_delta_beta_scalar": make(beta="scalar"),
        "gated_delta_gqa": make(Hq=8, Hkv=4),
        "gated_delta_mqa": make(Hq=4, Hkv=1),
        "decode_step": make(T=1, past="random"),
        "prefill_with_past": make(past="random"),
        "no_past_explicit_zeros": make(past="zeros", attr_types=True),
        "explicit_scale": make(scale=0.25, attr_types=True),
        "linear_t1_no_past": make("linear", T=1, attr_types=True),
        "chunk_size_one": make(chunk_size=1, past="random", attr_types=True),
        "gated_delta_per_head_decay_gqa": make(Hq=4, Hkv=2, decay="head", past="random", attr_types=True),
    }
    for name, fn in table.items():
        operator.example(fn, name=name)

    @operator.rejection(name="heads_not_dividing")
    def heads_not_dividing(v, t, rng):
        """q_num_heads = 3, kv_num_heads = 2: 'q_num_heads must be a positive multiple of kv_num_heads'."""
        T_ = t["T"]
        return operator.reject(v, {"query": randn(T_, (1, 2, 3 * 4), rng), "key": randn(T_, (1, 2, 2 * 4), rng),
                                   "value": randn(T_, (1, 2, 2 * 4), rng), "past_state": None, "decay": None,
                                   "beta": None},
                               {"q_num_heads": 3, "kv_num_heads": 2, "update_rule": "linear"},
                               {"output": Declared(T_, (1, 2, 12)), "present_state": Declared(t["S"], (1, 2, 4, 4))})
