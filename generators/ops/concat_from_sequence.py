"""ConcatFromSequence: the sequence's tensors joined along `axis`, or stacked along a new axis with new_axis 1."""

import numpy as np

from onnx_conformance.generators.case import Case, Operator
from onnx_conformance.generators.sequence_family import paired, sequence, unpaired

OPERATOR = Operator("ConcatFromSequence", primary="S", defaults=paired("S", "T"))


@OPERATOR.example
def concat(v, t, rng):
    """new_axis 0: joined along an existing axis (the tensors differ there)."""
    s = sequence(t["T"], rng, [(2, 1), (2, 3), (2, 2)])
    return unpaired(t) or Case({"input_sequence": s}, {"concat_result": np.concatenate(s.items, axis=1)}, {"axis": 1})


@OPERATOR.example
def new_axis(v, t, rng):
    """new_axis 1: stacked along a new axis 1."""
    s = sequence(t["T"], rng, [(2, 3)] * 3)
    return unpaired(t) or Case({"input_sequence": s}, {"concat_result": np.stack(s.items, axis=1)},
                               {"axis": 1, "new_axis": 1})


@OPERATOR.example
def new_axis_last(v, t, rng):
    """new_axis 1, axis -1: 'Accepted range for axis is [-r-1, r]' with new_axis, so -1 is a new last axis."""
    s = sequence(t["T"], rng, [(2, 3)] * 2)
    return unpaired(t) or Case({"input_sequence": s}, {"concat_result": np.stack(s.items, axis=-1)},
                               {"axis": -1, "new_axis": 1})
