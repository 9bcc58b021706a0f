"""SequenceLength: the number of tensors in the sequence, as an int64 scalar."""

import numpy as np

from onnx_conformance.generators.case import Operator, Seq
from onnx_conformance.generators.sequence_family import elem, sequence

OPERATOR = Operator("SequenceLength", primary="S")


@OPERATOR.semantics
def sequence_length(v, attrs, inputs):
    """"a scalar(tensor of empty shape) containing the number of tensors in 'input_sequence'"."""
    return {"length": np.array(len(inputs["input_sequence"].items), np.int64)}


@OPERATOR.example
def length(v, t, rng):
    return OPERATOR.expect(v, {"input_sequence": sequence(elem(t["S"]), rng)})


@OPERATOR.example
def empty(v, t, rng):
    return OPERATOR.expect(v, {"input_sequence": Seq([], elem(t["S"]))})
