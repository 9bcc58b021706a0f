"""SequenceErase: the sequence without the tensor at `position` (the last one when position is omitted)."""

from onnx_conformance.generators.case import Operator, Seq
from onnx_conformance.generators.movement import declared, indices
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.generators.sequence_family import elem, position_in, sequence

OPERATOR = Operator("SequenceErase", primary="S")


@OPERATOR.semantics
def sequence_erase(v, attrs, inputs):
    """The sequence less the tensor at position (in [-n, n - 1]); "by default it erases the last tensor"."""
    s, position = inputs["input_sequence"], inputs.get("position")
    n = len(s.items)
    at = n - 1 if position is None else position_in(v, position, n)
    if at < 0:  # no position, and no last tensor to erase
        raise Rejected(v.sentence(r"Accepted range for 'position'"))
    return {"output_sequence": Seq([x for k, x in enumerate(s.items) if k != at], s.elem)}


def erase_case(v, t, rng, position):
    s = sequence(elem(t["S"]), rng)
    pos = None if position is None else indices(position, t["I"])
    return OPERATOR.expect(v, {"input_sequence": s, "position": pos})


@OPERATOR.example
def default(v, t, rng):
    """'It is an optional input and if not specified, the last tensor is erased.' (position's description)"""
    return erase_case(v, t, rng, None)


@OPERATOR.example
def positive(v, t, rng):
    return erase_case(v, t, rng, 0)


@OPERATOR.example
def negative(v, t, rng):
    return erase_case(v, t, rng, -2)


@OPERATOR.rejection
def out_of_range(v, t, rng):
    """Position -4 of a sequence of three."""
    s = sequence(elem(t["S"]), rng)
    return OPERATOR.reject(v, {"input_sequence": s, "position": indices(-4, t["I"])}, {},
                           {"output_sequence": declared(t["S"], None)})
