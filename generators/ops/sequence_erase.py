"""SequenceErase: the sequence without the tensor at `position` (the last one when position is omitted)."""

from onnx_conformance.generators.case import Case, Operator, Seq
from onnx_conformance.generators.movement import declared, indices
from onnx_conformance.generators.sequence_family import elem, sequence

OPERATOR = Operator("SequenceErase", primary="S")


def erase_case(t, rng, position):
    s = sequence(elem(t["S"]), rng)
    kept = [x for k, x in enumerate(s.items) if k != (position if position is not None else -1) % len(s.items)]
    pos = None if position is None else indices(position, t["I"])
    return Case({"input_sequence": s, "position": pos}, {"output_sequence": Seq(kept, s.elem)})


@OPERATOR.example
def default(v, t, rng):
    """'It is an optional input and if not specified, the last tensor is erased.' (position's description)"""
    return erase_case(t, rng, None)


@OPERATOR.example
def positive(v, t, rng):
    return erase_case(t, rng, 0)


@OPERATOR.example
def negative(v, t, rng):
    return erase_case(t, rng, -2)


@OPERATOR.rejection
def out_of_range(v, t, rng):
    """Position -4 of a sequence of three."""
    s = sequence(elem(t["S"]), rng)
    return Case({"input_sequence": s, "position": indices(-4, t["I"])}, {"output_sequence": declared(t["S"], None)},
                error=v.sentence(r"Accepted range for 'position'"))
