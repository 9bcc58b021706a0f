"""SequenceConstruct: a sequence of the input tensors, in order."""

from onnx_conformance.generators.case import Operator, Seq, type_of
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.generators.sequence_family import paired, sequence, unpaired

OPERATOR = Operator("SequenceConstruct", primary="T", defaults=paired("S", "T"))


@OPERATOR.semantics
def sequence_construct(v, attrs, inputs):
    """The inputs, in order, as one sequence: "All tensors in 'inputs' must have the same data type."""
    items = list(inputs["inputs"])
    types = {type_of(x) for x in items}
    if len(types) != 1:
        raise Rejected(v.sentence(r"same data type"))
    return {"output_sequence": Seq(items, types.pop())}


def construct_case(v, items):
    return OPERATOR.expect(v, {("inputs" if k == 0 else f"inputs_{k}"): x for k, x in enumerate(items)})


@OPERATOR.example
def construct(v, t, rng):
    """Three tensors of different shapes."""
    return unpaired(t) or construct_case(v, sequence(t["T"], rng).items)


@OPERATOR.example
def single(v, t, rng):
    """One tensor, rank 0."""
    return unpaired(t) or construct_case(v, sequence(t["T"], rng, [()]).items)
