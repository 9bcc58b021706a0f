"""ConcatFromSequence: the sequence's tensors joined along `axis`, or stacked along a new axis with new_axis 1."""

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.movement import axis_in
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.generators.sequence_family import paired, sequence, unpaired

OPERATOR = Operator("ConcatFromSequence", primary="S", defaults=paired("S", "T"))


@OPERATOR.semantics
def concat_from_sequence(v, attrs, inputs):
    """numpy.concatenate along axis (in [-r, r - 1]), or with new_axis 1 numpy.stack along a new axis
    (in [-r - 1, r]); "All input tensors must have the same shape, except for the dimension size of
    the axis to concatenate on" (with a new axis, no exception)."""
    items = inputs["input_sequence"].items
    axis_rule = " ".join(v.schema.attributes["axis"].description.split())
    if attr(attrs, "axis") is None:
        raise Rejected(f"the attribute axis is required: \"{axis_rule}\"")
    if not items:
        raise Undefined("an empty sequence: the spec gives neither the result's shape nor a rule against it")
    shapes = {np.shape(x) for x in items}
    ranks = {len(s) for s in shapes}
    shape_rule = v.sentence(r"must have the same shape")
    if len(ranks) != 1:
        raise Rejected(shape_rule)
    r = ranks.pop()
    if attr(attrs, "new_axis", 0) == 1:
        axis = axis_in(attrs["axis"], r + 1, axis_rule)
        if len(shapes) != 1:
            raise Rejected(shape_rule)
        return {"concat_result": np.stack(items, axis=axis)}
    axis = axis_in(attrs["axis"], r, axis_rule)
    if len({s[:axis] + s[axis + 1:] for s in shapes}) != 1:
        raise Rejected(shape_rule)
    return {"concat_result": np.concatenate(items, axis=axis)}


@OPERATOR.example
def concat(v, t, rng):
    """new_axis 0: joined along an existing axis (the tensors differ there)."""
    s = sequence(t["T"], rng, [(2, 1), (2, 3), (2, 2)])
    return unpaired(t) or OPERATOR.expect(v, {"input_sequence": s}, {"axis": 1})


@OPERATOR.example
def new_axis(v, t, rng):
    """new_axis 1: stacked along a new axis 1."""
    s = sequence(t["T"], rng, [(2, 3)] * 3)
    return unpaired(t) or OPERATOR.expect(v, {"input_sequence": s}, {"axis": 1, "new_axis": 1})


@OPERATOR.example
def new_axis_last(v, t, rng):
    """new_axis 1, axis -1: 'Accepted range for axis is [-r-1, r]' with new_axis, so -1 is a new last axis."""
    s = sequence(t["T"], rng, [(2, 3)] * 2)
    return unpaired(t) or OPERATOR.expect(v, {"input_sequence": s}, {"axis": -1, "new_axis": 1})
