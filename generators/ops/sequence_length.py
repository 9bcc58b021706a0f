"""SequenceLength: the number of tensors in the sequence, as an int64 scalar."""

import numpy as np

from onnx_conformance.generators.case import Case, Operator, Seq
from onnx_conformance.generators.sequence_family import elem, sequence

OPERATOR = Operator("SequenceLength", primary="S")


@OPERATOR.example
def length(v, t, rng):
    return Case({"input_sequence": sequence(elem(t["S"]), rng)}, {"length": np.array(3, np.int64)})


@OPERATOR.example
def empty(v, t, rng):
    return Case({"input_sequence": Seq([], elem(t["S"]))}, {"length": np.array(0, np.int64)})
