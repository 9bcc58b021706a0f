"""SequenceAt: the tensor at `position` of the sequence; negative positions count from the back."""

from onnx_conformance.generators.case import Case, Operator
from onnx_conformance.generators.movement import declared, indices
from onnx_conformance.generators.sequence_family import paired, sequence, unpaired

OPERATOR = Operator("SequenceAt", primary="S", defaults=paired("S", "T"))


def at_case(t, rng, position):
    s = sequence(t["T"], rng)
    return Case({"input_sequence": s, "position": indices(position, t["I"])}, {"tensor": s.items[position]})


@OPERATOR.example
def positive(v, t, rng):
    return unpaired(t) or at_case(t, rng, 1)


@OPERATOR.example
def negative(v, t, rng):
    """'Negative value means counting positions from the back.' -3 is the first of three."""
    return unpaired(t) or at_case(t, rng, -3)


@OPERATOR.rejection
def out_of_range(v, t, rng):
    """Position 3 of a sequence of three."""
    s = sequence(t["T"], rng)
    return unpaired(t) or Case({"input_sequence": s, "position": indices(3, t["I"])}, {"tensor": declared(t["T"], 2)},
                               error=v.sentence(r"Accepted range for 'position'"))
