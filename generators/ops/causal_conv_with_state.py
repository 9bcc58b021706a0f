"""CausalConvWithState: depthwise causal 1-D convolution over [past_state (or zeros), input], optional SiLU; present_state the last k - 1 positions."""

import math

import mpmath
import numpy as np

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.activation_family import mp
from onnx_conformance.generators.case import Declared, Operator
from onnx_conformance.generators.conv_family import add_bias, convolve, exact, magnitude, operand, specials, tolerance
from onnx_conformance.generators.linalg_family import to_type
from onnx_conformance.generators.rounding import PREC, round_to
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.harness.dtypes import name_of_numpy, numpy_of

OPERATOR = Operator("CausalConvWithState")


ACTIVATION = "activation: 'One of: 'silu', 'swish', 'none'.'"
WEIGHT = "weight: 'Depthwise convolution kernel with shape (channels, 1, k)'"
PAST_STATE = "past_state: 'Carry state from previous step with shape (batch_size, channels, k - 1)'"


def silu(q):
    """q * sigmoid(q) = q / (1 + exp(-q)) for an exact q, in mpmath at PREC bits (inf -> inf; NaN -> NaN).
    -inf has no value: the formula gives -inf * 0 (NaN), its limit -0."""
    if isinstance(q, float):
        if math.isnan(q) or q > 0:
            return q
        raise Undefined("silu(-inf) is -inf * sigmoid(-inf) = -inf * 0: the spec's 'silu' gives no value there")
    return mp(q) / (1 + mpmath.exp(-mp(q)))


def padded(x, w, past):
    """past_state (or k - 1 zeros: 'If not provided, padding is zero') then input, exact, along the causal axis."""
    k = w.shape[2]
    head = exact(past) if past is not None else np.full((x.shape[0], x.shape[1], k - 1), 0, dtype=object)
    return np.concatenate([head, exact(x)], axis=2)


@OPERATOR.semantics
def causal_conv_with_state(v, attrs, inputs):
    """output[c, t] = sum_j weight[c, 0, j] * padded[c, t + j] (+ bias[c]), then the activation ('silu' and
    'swish': q * sigmoid(q)), each exact and rounded once; present_state 'Contains the last (k - 1) values
    of the effective padded/concatenated sequence'."""
    x, w, b, past = inputs["input"], inputs["weight"], inputs.get("bias"), inputs.get("past_state")
    activation = attr(attrs, "activation", "none")
    if activation not in ("silu", "swish", "none"):
        raise Rejected(ACTIVATION)
    if x.ndim != 3:
        raise Rejected("input: 'Input tensor with shape (batch_size, channels, length).'")
    batch, channels, _ = x.shape
    if w.ndim != 3 or w.shape[:2] != (channels, 1) or w.shape[2] < 1:
        raise Rejected(WEIGHT)
    k = w.shape[2]
    if past is not None and past.shape != (batch, channels, k - 1):
        raise Rejected(PAST_STATE)
    if b is not None and b.shape != (channels,):
        raise Rejected("bias: 'Optional per-channel bias with shape (channels).'")
    type_name = name_of_numpy(x.dtype)
    seq = padded(x, w, past)
    y = add_bias(convolve(seq, w, group=channels), b) if x.size else np.empty(x.shape, dtype=object)
    if activation in ("silu", "swish"):
        with mpmath.workprec(PREC):
            flat = [round_to(silu(q), type_name) for q in y.reshape(-1)]
        out = np.array(flat, dtype=numpy_of(type_name)).reshape(y.shape)
    else:
        out = to_type(y, type_name)
    return {"output": out, "present_state": to_type(seq[:, :, seq.shape[2] - (k - 1):], type_name)}


def causal(v, t, x, w, b=None, past=None, activation=None):
    """The case: the semantics' outputs, the accumulation tolerance of k terms (plus SiLU's budget); an empty
    input has an empty output, whose sums have no magnitude."""
    after = (budget("composite", t.dtype) or {}).get("ulp", 0) if activation in ("silu", "swish") else 0
    mag = magnitude(padded(x, w, past), w, b, group=x.shape[1]) if x.size else 0.0
    tol = tolerance(t, w.shape[2], mag, after=after)
    attrs = {"activation": activation} if activation is not None else {}
    return OPERATOR.expect(v, {"input": x, "weight": w, "bias": b, "past_state": past}, attrs, tolerance=tol)


# ---------------------------------------------------------------------------------------------
# onnx's documented examples (test_causal_conv_with_state_*), shapes and attributes as documented,
# our own data (theirs is unseeded random); each in every type (their fp16 / silu_fp16 are basic / silu in float16)


@OPERATOR.example
def basic(v, t, rng):
    return causal(v, t, operand(t, (2, 4, 8), rng), operand(t, (4, 1, 4), rng))


@OPERATOR.example
def with_bias(v, t, rng):
    return causal(v, t, operand(t, (2, 4, 8), rng), operand(t, (4, 1, 4), rng), operand(t, (4,), rng))


@OPERATOR.example
def with_past_state(v, t, rng):
    return causal(v, t, operand(t, (2, 4, 8), rng), operand(t, (4, 1, 4), rng), None, operand(t, (2, 4, 3), rng))


@OPERATOR.example(name="silu")
def silu_activation(v, t, rng):
    return causal(v, t, operand(t, (2, 4, 8), rng), operand(t, (4, 1, 4), rng), activation="silu")


@OPERATOR.example
def swish_alias(v, t, rng):
    """'swish' names the same SiLU."""
    return causal(v, t, operand(t, (2, 4, 8), rng), operand(t, (4, 1, 4), rng), activation="swish")


@OPERATOR.example
def decode_step(v, t, rng):
    """One new position (length 1) with bias and past_state: present_state shifts by one."""
    return causal(v, t, operand(t, (2, 4, 1), rng), operand(t, (4, 1, 4), rng), operand(t, (4,), rng),
                  operand(t, (2, 4, 3), rng))


@OPERATOR.example
def kernel_size_one(v, t, rng):
    """k = 1: no carry, present_state of shape (2, 4, 0)."""
    return causal(v, t, operand(t, (2, 4, 8), rng), operand(t, (4, 1, 1), rng))


@OPERATOR.example
def with_bias_and_past_state(v, t, rng):
    return causal(v, t, operand(t, (2, 4, 8), rng), operand(t, (4, 1, 4), rng), operand(t, (4,), rng),
                  operand(t, (2, 4, 3), rng))


@OPERATOR.example
def silu_with_past_state(v, t, rng):
    return causal(v, t, operand(t, (2, 4, 8), rng), operand(t, (4, 1, 4), rng), None, operand(t, (2, 4, 3), rng),
                  activation="silu")


@OPERATOR.example
def b1_c1_degenerate(v, t, rng):
    return causal(v, t, operand(t, (1, 1, 6), rng), operand(t, (1, 1, 4), rng))


@OPERATOR.example
def short_input_no_past_state(v, t, rng):
    """Length 2 < k - 1 = 4: present_state holds two of the zero padding, then the input."""
    return causal(v, t, operand(t, (2, 4, 2), rng), operand(t, (4, 1, 5), rng))


@OPERATOR.example
def activation_none(v, t, rng):
    """activation 'none' written out: the default."""
    return causal(v, t, operand(t, (1, 2, 5), rng), operand(t, (2, 1, 3), rng), activation="none")


@OPERATOR.example
def ieee_specials(v, t, rng):
    """NaN, inf and -inf in the input and past_state: they reach the outputs of their k windows, and
    present_state as they are."""
    return causal(v, t, specials(t, (1, 3, 6), rng), operand(t, (3, 1, 3), rng), None, specials(t, (1, 3, 2), rng))


# ---------------------------------------------------------------------------------------------
# what the spec rules out


def rejected(v, t, x, w, past=None, **attrs):
    """An expect-error case: the semantics' rejection of input, weight and past_state with these attributes."""
    return OPERATOR.reject(v, {"input": x, "weight": w, "bias": None, "past_state": past}, attrs,
                           {"output": Declared(t.dtype, [None] * 3), "present_state": Declared(t.dtype, [None] * 3)})


@OPERATOR.rejection
def weight_not_depthwise(v, t, rng):
    """weight (4, 2, 3): the middle dimension must be 1."""
    return rejected(v, t, operand(t, (1, 4, 5), rng), operand(t, (4, 2, 3), rng))


@OPERATOR.rejection
def weight_channels_mismatch(v, t, rng):
    """3 weight channels for 4 input channels."""
    return rejected(v, t, operand(t, (1, 4, 5), rng), operand(t, (3, 1, 3), rng))


@OPERATOR.rejection
def past_state_wrong_length(v, t, rng):
    """past_state of length 3 for k = 3 (k - 1 = 2 wanted)."""
    return rejected(v, t, operand(t, (1, 2, 5), rng), operand(t, (2, 1, 3), rng), past=operand(t, (1, 2, 3), rng))


@OPERATOR.rejection
def unknown_activation(v, t, rng):
    return rejected(v, t, operand(t, (1, 2, 5), rng), operand(t, (2, 1, 3), rng), activation="relu")


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^past_state_wrong_length .*returned outputs",
    "the evaluator concatenates a past_state of any length without checking it is k - 1",
)
