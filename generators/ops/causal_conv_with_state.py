"""CausalConvWithState: depthwise causal 1-D convolution over [past_state (or zeros), input], optional SiLU; present_state the last k - 1 positions."""

import math

import mpmath
import numpy as np

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.activation_family import mp
from onnx_conformance.generators.case import Case, Declared, Operator
from onnx_conformance.generators.conv_family import add_bias, convolve, exact, magnitude, operand, specials, tolerance
from onnx_conformance.generators.linalg_family import to_type
from onnx_conformance.generators.rounding import PREC, round_to
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = Operator("CausalConvWithState")


def silu(q):
    """q * sigmoid(q) = q / (1 + exp(-q)) for an exact q, in mpmath at PREC bits (inf -> inf; NaN -> NaN)."""
    if isinstance(q, float):
        if math.isnan(q) or q > 0:
            return q
        raise ValueError("silu(-inf) is -inf * 0: keep -inf out of SiLU cases")
    return mp(q) / (1 + mpmath.exp(-mp(q)))


def causal(v, t, x, w, b=None, past=None, activation=None):
    """The case. The padded sequence is past_state (or k - 1 zeros: 'If not provided, padding is zero') then
    input; output[t] = sum_j weight[c, 0, j] * padded[t + j] (+ bias[c]), then the activation; present_state
    'Contains the last (k - 1) values of the effective padded/concatenated sequence'."""
    batch, channels, _ = x.shape
    k = w.shape[2]
    head = exact(past) if past is not None else np.full((batch, channels, k - 1), 0, dtype=object)
    padded = np.concatenate([head, exact(x)], axis=2)
    y = add_bias(convolve(padded, w, group=channels), b)
    after = 0
    if activation in ("silu", "swish"):
        with mpmath.workprec(PREC):
            flat = [round_to(silu(q), t.dtype) for q in y.reshape(-1)]
        out = np.array(flat, dtype=numpy_of(t.dtype)).reshape(y.shape)
        after = (budget("composite", t.dtype) or {}).get("ulp", 0)
    else:
        out = to_type(y, t.dtype)
    state = to_type(padded[:, :, padded.shape[2] - (k - 1):], t.dtype)
    tol = tolerance(t, k, magnitude(padded, w, b, group=channels), after=after)
    attrs = {"activation": activation} if activation is not None else {}
    return Case({"input": x, "weight": w, "bias": b, "past_state": past},
                {"output": out, "present_state": state}, attrs, tolerance=tol)


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


def rejected(v, t, x, w, error, past=None, **attrs):
    return Case({"input": x, "weight": w, "bias": None, "past_state": past},
                {"output": Declared(t.dtype, [None] * 3), "present_state": Declared(t.dtype, [None] * 3)},
                attrs, error=error)


@OPERATOR.rejection
def weight_not_depthwise(v, t, rng):
    """weight (4, 2, 3): the middle dimension must be 1."""
    return rejected(v, t, operand(t, (1, 4, 5), rng), operand(t, (4, 2, 3), rng),
                    "weight: 'Depthwise convolution kernel with shape (channels, 1, k)'")


@OPERATOR.rejection
def weight_channels_mismatch(v, t, rng):
    """3 weight channels for 4 input channels."""
    return rejected(v, t, operand(t, (1, 4, 5), rng), operand(t, (3, 1, 3), rng),
                    "weight: 'Depthwise convolution kernel with shape (channels, 1, k)'")


@OPERATOR.rejection
def past_state_wrong_length(v, t, rng):
    """past_state of length 3 for k = 3 (k - 1 = 2 wanted)."""
    return rejected(v, t, operand(t, (1, 2, 5), rng), operand(t, (2, 1, 3), rng),
                    "past_state: 'Carry state from previous step with shape (batch_size, channels, k - 1)'",
                    past=operand(t, (1, 2, 3), rng))


@OPERATOR.rejection
def unknown_activation(v, t, rng):
    return rejected(v, t, operand(t, (1, 2, 5), rng), operand(t, (2, 1, 3), rng),
                    "activation: 'One of: 'silu', 'swish', 'none'.'", activation="relu")


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^past_state_wrong_length .*returned outputs",
    "the evaluator concatenates a past_state of any length without checking it is k - 1",
)
