"""Mutants of the recurrent and attention operators: flags, clips, layouts and directions not honoured,
optional inputs (peepholes, initial state, past state) not read, and scales defaulted wrongly."""

from __future__ import annotations

from onnx_conformance.harness.mutants._shared import Mutant, default, ignored, with_inputs

FAMILY = "Recurrent and attention"

CLIP = "Cell clip threshold."
DIRECTION = "Specify if the RNN is forward, reverse, or bidirectional."


def _without(k: int):
    """Optional input k not read, as if absent."""
    return with_inputs(lambda *xs, **_: xs[:k] + (None,) * (len(xs) > k) + xs[k + 1:])


MUTANTS = [
    Mutant("Attention.ignores_is_causal", "Attention", "ignored attributes",
           "If set to `1`, causal masking is applied.", ignored("is_causal")),
    Mutant("Attention.ignores_softcap", "Attention", "ignored attributes",
           "Soft cap for attention logits, applied as `softcap * tanh(logits / softcap)`.", ignored("softcap")),
    Mutant("Attention.ignores_scale", "Attention", "ignored attributes",
           "Scaling factor applied to $Q*K^T$.", ignored("scale")),
    Mutant("Attention.unscaled_by_default", "Attention", "wrong defaults",
           "Default value is `1/sqrt(head_size)`.", default("scale", 1.0)),
    Mutant("GRU.ignores_linear_before_reset", "GRU", "ignored attributes",
           "When computing the output of the hidden gate, apply the linear transformation before multiplying by the "
           "output of the reset gate.", ignored("linear_before_reset"), since=(3, None)),
    Mutant("GRU.ignores_direction", "GRU", "ignored attributes", DIRECTION, ignored("direction")),
    Mutant("GRU.ignores_sequence_lens", "GRU", "ignored attributes",
           "Optional tensor specifying lengths of the sequences in a batch.", _without(4)),
    Mutant("LSTM.ignores_input_forget", "LSTM", "ignored attributes", "Couple the input and forget gates if 1.",
           ignored("input_forget")),
    Mutant("LSTM.ignores_clip", "LSTM", "ignored attributes", CLIP, ignored("clip")),
    Mutant("LSTM.ignores_peepholes", "LSTM", "ignored attributes", "The weight tensor for peepholes.", _without(7)),
    Mutant("RNN.ignores_clip", "RNN", "ignored attributes", CLIP, ignored("clip")),
    Mutant("RNN.ignores_layout", "RNN", "layout modes",
           "The shape format of inputs X, initial_h and outputs Y, Y_h.", ignored("layout"), since=(14, None)),
    Mutant("RNN.ignores_initial_h", "RNN", "ignored attributes",
           "Optional initial value of the hidden. If not specified - assumed to be 0.", _without(5)),
    Mutant("LinearAttention.linear_by_default", "LinearAttention", "wrong defaults",
           "Default is 'gated_delta'.", default("update_rule", "linear")),
    Mutant("LinearAttention.ignores_scale", "LinearAttention", "ignored attributes",
           "Set explicitly to override.", ignored("scale")),
    Mutant("LinearAttention.ignores_past_state", "LinearAttention", "ignored attributes",
           "Recurrent state from previous step with shape (B, H_kv, d_k, d_v).", _without(3)),
    Mutant("RotaryEmbedding.ignores_interleaved", "RotaryEmbedding", "layout modes",
           "Rotate using interleaved pattern.", ignored("interleaved")),
    Mutant("RotaryEmbedding.ignores_rotary_embedding_dim", "RotaryEmbedding", "ignored attributes",
           "Rotary embedding dimension used to apply partial rotary embeddings.", ignored("rotary_embedding_dim")),
]
