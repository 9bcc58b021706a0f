"""A sequence tagger: an LSTM (or GRU) over a short sequence, a Gemm over every step's hidden state, and
ArgMax picking each step's tag.

What runtimes do with it: run the recurrence in their own fused kernels (onnxruntime's DeepCPU LSTM and
GRU, OpenVINO's LSTMSequence / GRUSequence and its TensorIterator unrolling), with gates packed in their
own order, and fold the reshapes around the classifier. `lstm_forward` is the plain case;
`lstm_bidirectional` concatenates both directions' states per step (Transpose + Reshape), so a runtime
mixing up the direction axis or the gate order of the reverse direction is off; `gru_sequence_lens`
gives the second sequence 3 of 5 steps (its padded steps' states are zeros, so their tags come from the
bias alone) and sets linear_before_reset; `lstm_batch_first` uses layout 1 (batch first, opset 14) with
initial states. Each output is the logits and the tags: the tags are integers and compared exactly, so
the classifier's weights are large enough that no two logits of a step are near each other."""

import numpy as np

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.models._weights import activations, bias, dense, ints, node

FAMILY = GraphFamily("RecurrentTagger", "model", targets=(
    "LSTM, GRU, Squeeze, Transpose, Reshape, Gemm, ArgMax",
    "onnxruntime: DeepCPU LSTM/GRU kernels; OpenVINO: LSTMSequence/GRUSequence, TensorIterator",
), types=FLOATS)

SEQ, BATCH, IN, HIDDEN, TAGS = 5, 2, 4, 3, 4
GATES = {"LSTM": 4, "GRU": 3}


def _recurrent(t, rng, op, directions=1):
    g = GATES[op]
    return {"W": dense(t, rng, (directions, g * HIDDEN, IN), fan_in=IN) * cast_to(2.0, t),
            "R": dense(t, rng, (directions, g * HIDDEN, HIDDEN), fan_in=HIDDEN),
            "B": bias(t, rng, (directions, 2 * g * HIDDEN), scale=0.5)}


def _head(t, rng, width, states, nodes, weights):
    """states (any layout) -> Reshape (-1, width) -> Gemm -> logits (SEQ * BATCH, TAGS) -> ArgMax."""
    weights.update({"flat": ints([-1, width]), "wc": dense(t, rng, (width, TAGS)) * cast_to(4.0, t),
                    "bc": cast_to(np.arange(TAGS) - 1.5, t)})
    return nodes + [node("Reshape", [states, "flat"], ["rows"]), node("Gemm", ["rows", "wc", "bc"], ["logits"]),
                    node("ArgMax", ["logits"], ["tags"], axis=1, keepdims=0)]


@FAMILY.example
def lstm_forward(t, rng):
    """X (5, 2, 4), hidden 3: Y (5, 1, 2, 3) squeezed, ten steps tagged."""
    w = {**_recurrent(t, rng, "LSTM"), "one": ints([1])}
    nodes = [node("LSTM", ["x", "W", "R", "B"], ["Y"], hidden_size=HIDDEN), node("Squeeze", ["Y", "one"], ["states"])]
    return Graph(_head(t, rng, HIDDEN, "states", nodes, w), inputs={"x": activations(t, rng, (SEQ, BATCH, IN))},
                 outputs=["logits", "tags"], weights=w)


@FAMILY.example
def lstm_bidirectional(t, rng):
    """Both directions: Y (5, 2, 2, 3) -> (5, 2, 2, 3) batch before direction -> rows of 6."""
    w = _recurrent(t, rng, "LSTM", directions=2)
    nodes = [node("LSTM", ["x", "W", "R", "B"], ["Y"], hidden_size=HIDDEN, direction="bidirectional"),
             node("Transpose", ["Y"], ["states"], perm=[0, 2, 1, 3])]
    return Graph(_head(t, rng, 2 * HIDDEN, "states", nodes, w), inputs={"x": activations(t, rng, (SEQ, BATCH, IN))},
                 outputs=["logits", "tags"], weights=w)


@FAMILY.example
def gru_sequence_lens(t, rng):
    """GRU with linear_before_reset 1, sequence_lens (5, 3); one tag per sequence, from Y_h (1, 2, 3)."""
    w = _recurrent(t, rng, "GRU")
    nodes = [node("GRU", ["x", "W", "R", "B", "lens"], ["", "Y_h"], hidden_size=HIDDEN, linear_before_reset=1)]
    return Graph(_head(t, rng, HIDDEN, "Y_h", nodes, w),
                 inputs={"x": activations(t, rng, (SEQ, BATCH, IN)), "lens": np.array([SEQ, 3], dtype=np.int32)},
                 outputs=["logits", "tags"], weights=w)


@FAMILY.example
def lstm_batch_first(t, rng):
    """layout 1: X (2, 5, 4), initial_h and initial_c (2, 1, 3), Y (2, 5, 1, 3); tags in batch-major order."""
    w = {**_recurrent(t, rng, "LSTM"), "two": ints([2])}
    nodes = [node("LSTM", ["x", "W", "R", "B", "", "h0", "c0"], ["Y"], hidden_size=HIDDEN, layout=1),
             node("Squeeze", ["Y", "two"], ["states"])]
    inputs = {"x": activations(t, rng, (BATCH, SEQ, IN)), "h0": activations(t, rng, (BATCH, 1, HIDDEN), 0.5),
              "c0": activations(t, rng, (BATCH, 1, HIDDEN), 0.5)}
    return Graph(_head(t, rng, HIDDEN, "states", nodes, w), inputs=inputs, outputs=["logits", "tags"], weights=w)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
FAMILY.reference_differs(r"^gru_sequence_lens\w* \w+: ",
                         "the evaluator ignores sequence_lens (its _run marks the input unused) and runs the shorter "
                         "sequence over all five steps, so its Y_h is another state")
