"""Attention: Attention (3D and 4D, GQA, bool and additive masks, is_causal, scale, softcap, past_key/past_value, qk_matmul_output_mode, nonpad_kv_seqlen, windows), LinearAttention, RotaryEmbedding and FlexAttention.

Each drawn node is finished by the function the corpus's examples call (attention_family.attention,
rotary, linear_attention; flex_attention.attention), so its tolerance is the corpus's. Sizes are
bounded by WORK: the tolerance's magnitude runs the mpmath computation on every draw. What the spec
leaves open is not drawn: a mask of an integer type, or a float mask of another type than Q ('a float
mask of the same type as query, key, value'); nonpad_kv_seqlen together with past_key ('This should not
be used together with'); a positive right_window_size with is_causal ('Set is_causal=0 to use a
positive right window'); q_num_heads/kv_num_heads with 4D inputs ('Must be used with 3D inputs');
softmax_precision narrower than T1 (the cast it asks for has no exact value to compare with); a
negative softcap; keys not L2-normalized for LinearAttention's delta rules ('Should be
L2-normalized'), a decay above 0 (exp(g) > 1 grows the state without bound) or a beta outside [0, 1]
('sigmoid output'). Values are moderate (|x| <= 1, with up to 16 drawn ones of at most 64, never an
infinity or NaN except -inf in an additive mask).
"""

from __future__ import annotations

from functools import partial
from importlib import import_module

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.harness.dtypes import numpy_of
from onnx_conformance.harness.strategies.common import Family, Probe, tensors, unidirectional_shape
from onnx_conformance.harness.strategies.recurrent import moderate

WORK = 4000  # multiply-adds of the mpmath computation, at most
SIZES = (1, 2, 3, 4, 5, 7, 8, 16, 17)
PRECISION = {"float": (1, 11), "double": (11,), "float16": (10, 1, 11), "bfloat16": (16, 1, 11)}  # at least T1's width


class Attention(Family):
    name = "attention"
    operators = ("Attention", "LinearAttention", "RotaryEmbedding", "FlexAttention")

    def covers(self, op, v):
        if op.name == "FlexAttention" and op.domain == "ai.onnx.preview":
            return None
        return super().covers(op, v)

    def strategy(self, op, v, t):
        return {"Attention": _attention, "LinearAttention": _linear, "RotaryEmbedding": _rotary,
                "FlexAttention": _flex}[op.name](op, v, t)

    def case(self, op, v, t, probe):
        from onnx_conformance.generators import attention_family as af
        from onnx_conformance.generators.ops import snake

        module = import_module(f"onnx_conformance.generators.ops.{snake(op.name)}")
        if op.name == "FlexAttention":
            make = module.attention
        else:
            helper = {"Attention": af.attention, "LinearAttention": af.linear_attention, "RotaryEmbedding": af.rotary}
            make = partial(helper[op.name], module.OPERATOR)
        return make(v, t, *probe.extra["args"], **probe.extra["attrs"])


def _size(limit: int):
    return st.one_of(st.integers(1, max(1, min(4, limit))), st.sampled_from([s for s in SIZES if s <= limit] or [1]))


def _t(draw, type_name, shape, label, operand, bits=6):
    return draw(moderate(type_name, tuple(shape), bits, operand, label), label=label)


@st.composite
def _heads(draw, limit: int = 4):
    """(q heads, kv heads): kv heads dividing q heads ('q_num_heads % kv_num_heads == 0')."""
    kv = draw(st.integers(1, 3), label="kv heads")
    group = draw(st.integers(1, max(1, min(3, limit // kv))), label="group")
    return kv * group, kv


@st.composite
def _attention(draw, op, v, t):
    t1, t2, u = t["T1"], t["T2"], t["U"]
    hq, hkv = draw(_heads(), label="heads")
    batch = draw(st.integers(1, 2), label="batch")
    three_d = draw(st.booleans(), label="3D")
    d = draw(_size(16), label="head_size")
    dv = d if draw(st.booleans(), label="v head size = head size") else draw(_size(16), label="v_head_size")
    room = max(1, WORK // (batch * hq * (d + dv)))
    sq = draw(_size(max(1, min(17, room))), label="q_sequence_length")
    room = max(1, room // sq)
    skv = draw(_size(max(1, min(17, room))), label="kv_sequence_length")
    past = draw(st.integers(0, max(0, min(5, room - skv))), label="past length") if draw(st.booleans()) else 0
    total = past + skv
    if three_d:
        q, k, val = (batch, sq, hq * d), (batch, skv, hkv * d), (batch, skv, hkv * dv)
    else:
        q, k, val = (batch, hq, sq, d), (batch, hkv, skv, d), (batch, hkv, skv, dv)
    args = [_t(draw, t1, q, "Q", 0), _t(draw, t1, k, "K", 1), _t(draw, t2, val, "V", 2)]
    attrs = {"q_num_heads": hq, "kv_num_heads": hkv} if three_d else {}
    # the mask: bool, or additive in T1 ('a float mask of the same type as query, key, value')
    mask = None
    if (u == "bool" or u == t1) and draw(st.booleans(), label="give attn_mask"):
        shape = list(draw(unidirectional_shape((batch, hq, sq, total)), label="mask shape"))
        if not shape:  # a scalar mask broadcasts too, but the semantics reads its last dimension
            shape = [total]
        if v.since_version >= 24 and draw(st.booleans(), label="mask shorter than the total"):
            shape[-1] = draw(st.integers(1, total), label="mask width")  # 'padded ... with negative infinity'
        if u == "bool":
            mask = draw(tensors("bool", tuple(shape)), label="mask values")
            if len(shape) >= 2 and shape[-2] > 1 and draw(st.booleans(), label="a row all False"):
                mask[..., draw(st.integers(0, shape[-2] - 1), label="row"), :] = False  # 'a zero output row'
        else:
            mask = _t(draw, t1, shape, "attn_mask", 3, bits=4)
            if mask.size and draw(st.booleans(), label="-inf in the mask"):
                flat = mask.reshape(-1)
                for i in draw(st.lists(st.integers(0, flat.size - 1), max_size=4), label="-inf at"):
                    flat[i] = -np.inf
    args.append(mask)
    pk = pv = None
    if past:
        pk = _t(draw, t1, (batch, hkv, past, d), "past_key", 4)
        pv = _t(draw, t2, (batch, hkv, past, dv), "past_value", 5)
    args += [pk, pv]
    nonpad = None
    if v.has_input("nonpad_kv_seqlen") and not past and draw(st.booleans(), label="give nonpad_kv_seqlen"):
        nonpad = [draw(st.integers(0, skv), label="nonpad") for _ in range(batch)]
    args.append(nonpad)
    causal = draw(st.booleans(), label="is_causal")
    if causal or draw(st.booleans(), label="spell is_causal=0"):
        attrs["is_causal"] = int(causal)
    if draw(st.booleans(), label="give scale"):
        attrs["scale"] = draw(st.sampled_from([0.1, 0.5, 1.0, 2.0, -1.0, 0.125, 3.0]), label="scale")
    if draw(st.booleans(), label="give softcap"):
        attrs["softcap"] = draw(st.sampled_from([0.0, 1.0, 2.0, 0.5, 30.0]), label="softcap")
    if v.has_attribute("softmax_precision") and draw(st.booleans(), label="give softmax_precision"):
        attrs["softmax_precision"] = draw(st.sampled_from(PRECISION[t1]), label="softmax_precision")
    if v.has_attribute("left_window_size") and draw(st.booleans(), label="give windows"):
        attrs["left_window_size"] = draw(st.integers(-1, total), label="left_window_size")
        if draw(st.booleans(), label="give right_window_size"):
            attrs["right_window_size"] = draw(st.integers(-1, 0 if causal else total), label="right_window_size")
    want = ["Y"]
    if past or (nonpad is None and draw(st.booleans(), label="ask present")):  # nor with present_key/present_value
        want += ["present_key", "present_value"]
    if draw(st.booleans(), label="ask qk_matmul_output"):
        want.append("qk_matmul_output")
        mode = draw(st.sampled_from([None, 0, 1, 2, 3]), label="qk_matmul_output_mode")
        if mode is not None:
            attrs["qk_matmul_output_mode"] = mode
    attrs["want"] = tuple(want)
    return Probe({"Q": args[0]}, extra={"args": args, "attrs": attrs})


@st.composite
def _rotary(draw, op, v, t):
    batch, seq = draw(st.integers(1, 3), label="batch"), draw(_size(17), label="sequence_length")
    heads = draw(st.integers(1, 4), label="num_heads")
    half = draw(_size(16), label="head_size / 2")
    d = 2 * half
    rotary = None
    if draw(st.booleans(), label="partial rotation"):
        rotary = 2 * draw(st.integers(1, half), label="rotary_embedding_dim / 2")
    width = (rotary or d) // 2
    three_d = draw(st.booleans(), label="3D")
    x = _t(draw, t.dtype, (batch, seq, heads * d) if three_d else (batch, heads, seq, d), "X", 0)
    positions = None
    if draw(st.booleans(), label="give position_ids"):
        cache_rows = draw(st.integers(1, 64), label="max_position_id_plus_1")
        ids = [draw(st.integers(0, cache_rows - 1), label="position") for _ in range(batch * seq)]
        positions = np.array(ids, np.int64).reshape(batch, seq)
        cache = (cache_rows, width)
    else:
        cache = (batch, seq, width)
    cos, sin = _t(draw, t.dtype, cache, "cos_cache", 1), _t(draw, t.dtype, cache, "sin_cache", 2)
    attrs = {}
    if three_d:
        attrs["num_heads"] = heads
    if rotary is not None:
        attrs["rotary_embedding_dim"] = rotary
    elif draw(st.booleans(), label="spell rotary_embedding_dim=0"):
        attrs["rotary_embedding_dim"] = 0
    interleaved = draw(st.sampled_from([None, 1, 0]), label="interleaved")
    if interleaved is not None:
        attrs["interleaved"] = interleaved
    return Probe({"X": x}, extra={"args": [x, cos, sin, positions], "attrs": attrs})


def _l2(x: np.ndarray, heads: int, type_name: str) -> np.ndarray:
    """Each head's key divided by its norm (in float32, then the type), a zero key left as it is."""
    b, n, hd = x.shape
    x4 = x.astype(np.float32).reshape(b, n, heads, hd // heads)
    norm = np.linalg.norm(x4, axis=-1, keepdims=True)
    x4 = np.where(norm > 0, x4 / np.where(norm > 0, norm, 1), x4)
    return x4.reshape(x.shape).astype(numpy_of(type_name))


@st.composite
def _linear(draw, op, v, t):
    tt, s = t["T"], t["S"]
    hq, hkv = draw(_heads(8), label="heads")
    batch = draw(st.integers(1, 2), label="batch")
    dk, dv = draw(_size(16), label="d_k"), draw(_size(16), label="d_v")
    steps = draw(st.integers(1, max(1, min(9, WORK // (batch * (hq + 3 * hkv) * dk * dv)))), label="tokens")
    rule = draw(st.sampled_from(["gated_delta", "linear", "gated", "delta"]), label="update_rule")
    query = _t(draw, tt, (batch, steps, hq * dk), "query", 0)
    key = _t(draw, tt, (batch, steps, hkv * dk), "key", 1)
    if rule in ("delta", "gated_delta"):
        key = _l2(key, hkv, tt)  # 'Should be L2-normalized for delta/gated_delta modes'
    value = _t(draw, tt, (batch, steps, hkv * dv), "value", 2)
    past = None
    if s != tt or draw(st.booleans(), label="give past_state"):  # without it, S is inferred as T
        past = _t(draw, s, (batch, hkv, dk, dv), "past_state", 3, bits=8)
    decay = beta = None
    if rule in ("gated", "gated_delta"):  # 'Required for 'gated' and 'gated_delta' modes'
        width = hkv * dk if draw(st.booleans(), label="decay per key dimension") else hkv
        decay = -np.abs(_t(draw, tt, (batch, steps, width), "decay", 4, bits=7))
    if rule in ("delta", "gated_delta"):
        width = hkv if draw(st.booleans(), label="beta per head") else 1
        beta = np.abs(_t(draw, tt, (batch, steps, width), "beta", 5, bits=6))
        beta = np.where(beta > 1, 1, beta).astype(beta.dtype)  # 'Update rate (sigmoid output)'
    attrs = {"q_num_heads": hq, "kv_num_heads": hkv}
    if rule != "gated_delta" or draw(st.booleans(), label="spell update_rule"):
        attrs["update_rule"] = rule
    if draw(st.booleans(), label="give scale"):
        attrs["scale"] = draw(st.sampled_from([0.0, 0.25, 1.0, 0.5, 2.0]), label="scale")
    if draw(st.booleans(), label="give chunk_size"):  # 'does not affect output correctness'
        attrs["chunk_size"] = draw(st.sampled_from([1, 2, 3, 64, 5]), label="chunk_size")
    return Probe({"query": query}, extra={"args": [query, key, value, past, decay, beta], "attrs": attrs})


@st.composite
def _flex(draw, op, v, t):
    hq, hkv = draw(_heads(), label="heads")
    batch = draw(st.integers(1, 2), label="batch")
    e = draw(_size(16), label="head_size")
    ev = e if draw(st.booleans(), label="v head size = head size") else draw(_size(16), label="v_head_size")
    room = max(1, WORK // (batch * hq * (e + ev)))
    length = draw(_size(max(1, min(17, room))), label="L")
    s = draw(_size(max(1, min(17, room // length))), label="S")
    q = _t(draw, t.dtype, (batch, hq, length, e), "Q", 0)
    k = _t(draw, t.dtype, (batch, hkv, s, e), "K", 1)
    val = _t(draw, t.dtype, (batch, hkv, s, ev), "V", 2)
    attrs = {}
    if draw(st.booleans(), label="give scale"):
        attrs["scale"] = draw(st.sampled_from([0.1, 0.5, 1.0, 2.0, -1.0]), label="scale")
    if draw(st.booleans(), label="give score_mod"):
        attrs["bias"] = draw(st.sampled_from([0.5, -1.0, 2.0, 0.0]), label="score_mod's constant")
    if draw(st.booleans(), label="give prob_mod"):
        attrs["prob_scale"] = draw(st.sampled_from([0.5, 2.0, 1.0, 0.0]), label="prob_mod's factor")
    return Probe({"Q": q}, extra={"args": [q, k, val], "attrs": attrs})
