"""SequenceInsert: the sequence with `tensor` inserted before `position` (appended when position is omitted)."""

from onnx_conformance.generators.case import Operator, Seq, type_of
from onnx_conformance.generators.movement import declared, indices
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.generators.sequence_family import documented, paired, position_in, sequence, unpaired
from onnx_conformance.generators.values import value

OPERATOR = Operator("SequenceInsert", primary="T", defaults=paired("S", "T"))


# The documented sequence and tensors.
SEQUENCE = [[1, 2, 3, 4], [5, 6, 7], [8, 9]]


@OPERATOR.semantics
def sequence_insert(v, attrs, inputs):
    """`tensor` inserted before position p in [-n, n] (n: at the end, the default); "'tensor' must have
    the same data type as 'input_sequence'"."""
    s, x, position = inputs["input_sequence"], inputs["tensor"], inputs.get("position")
    if type_of(x) != s.elem:
        raise Rejected(v.sentence(r"must have the same data type"))
    n = len(s.items)
    at = n if position is None else position_in(v, position, n, end=True)
    return {"output_sequence": Seq(s.items[:at] + [x] + s.items[at:], s.elem)}


def insert_case(v, t, rng, position, s=None, x=None):
    s = s or sequence(t["T"], rng)
    x = value(t["T"], (3, 3), rng) if x is None else x
    pos = None if position is None else indices(position, t["I"])
    return OPERATOR.expect(v, {"input_sequence": s, "tensor": x, "position": pos})


@OPERATOR.example
def at_back(v, t, rng):
    """position omitted: 'the new tensor is inserted at the end of the sequence'."""
    *items, x = documented(t["T"], SEQUENCE + [[10, 11, 12]], rng)
    return unpaired(t) or insert_case(v, t, rng, None, Seq(items, t["T"]), x)


@OPERATOR.example
def at_front(v, t, rng):
    *items, x = documented(t["T"], SEQUENCE + [[-2, -1, 0]], rng)
    return unpaired(t) or insert_case(v, t, rng, 0, Seq(items, t["T"]), x)


@OPERATOR.example
def negative(v, t, rng):
    """-1: before the last tensor ('Negative value means counting positions from the back')."""
    return unpaired(t) or insert_case(v, t, rng, -1)


@OPERATOR.example
def into_empty(v, t, rng):
    return unpaired(t) or insert_case(v, t, rng, None, Seq([], t["T"]))


@OPERATOR.rejection
def out_of_range(v, t, rng):
    """Position 4 of a sequence of three (n itself, 3, is the end)."""
    s = sequence(t["T"], rng)
    x = value(t["T"], (3, 3), rng)
    return unpaired(t) or OPERATOR.reject(v, {"input_sequence": s, "tensor": x, "position": indices(4, t["I"])}, {},
                                          {"output_sequence": declared(t["S"], None)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    '^out_of_range .*returned outputs',
    "the evaluator inserts with Python's list.insert, which takes a position past the end as the end",
)
