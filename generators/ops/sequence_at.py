"""SequenceAt: the tensor at `position` of the sequence; negative positions count from the back."""

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.movement import declared, indices
from onnx_conformance.generators.sequence_family import paired, position_in, sequence, unpaired

OPERATOR = Operator("SequenceAt", primary="S", defaults=paired("S", "T"))


@OPERATOR.semantics
def sequence_at(v, attrs, inputs):
    """"Outputs a tensor copy from the tensor at 'position'"; position in [-n, n - 1], a scalar."""
    s = inputs["input_sequence"]
    return {"tensor": s.items[position_in(v, inputs["position"], len(s.items))].copy()}


def at_case(v, t, rng, position):
    s = sequence(t["T"], rng)
    return OPERATOR.expect(v, {"input_sequence": s, "position": indices(position, t["I"])})


@OPERATOR.example
def positive(v, t, rng):
    return unpaired(t) or at_case(v, t, rng, 1)


@OPERATOR.example
def negative(v, t, rng):
    """'Negative value means counting positions from the back.' -3 is the first of three."""
    return unpaired(t) or at_case(v, t, rng, -3)


@OPERATOR.rejection
def out_of_range(v, t, rng):
    """Position 3 of a sequence of three."""
    s = sequence(t["T"], rng)
    return unpaired(t) or OPERATOR.reject(v, {"input_sequence": s, "position": indices(3, t["I"])}, {},
                                          {"tensor": declared(t["T"], 2)})
