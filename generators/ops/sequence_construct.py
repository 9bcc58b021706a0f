"""SequenceConstruct: a sequence of the input tensors, in order."""

from onnx_conformance.generators.case import Case, Operator, Seq
from onnx_conformance.generators.sequence_family import paired, sequence, unpaired

OPERATOR = Operator("SequenceConstruct", primary="T", defaults=paired("S", "T"))


def construct_case(items, elem):
    inputs = {("inputs" if k == 0 else f"inputs_{k}"): x for k, x in enumerate(items)}
    return Case(inputs, {"output_sequence": Seq(items, elem)})


@OPERATOR.example
def construct(v, t, rng):
    """Three tensors of different shapes."""
    return unpaired(t) or construct_case(sequence(t["T"], rng).items, t["T"])


@OPERATOR.example
def single(v, t, rng):
    """One tensor, rank 0."""
    return unpaired(t) or construct_case(sequence(t["T"], rng, [()]).items, t["T"])
