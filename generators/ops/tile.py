"""Tile: copies of a tensor laid side by side, a count per axis (Tile-1: one count, one axis)."""

import numpy as np

from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.slice_family import documented

OPERATOR = Operator("Tile", primary="T")


def tiled(v, t, x, repeats):
    y = np.tile(x, repeats) if x.ndim else x.copy()
    if v.has_input("repeats"):
        return Case({"input": x, "repeats": np.array(repeats, dtype=np.int64).reshape(len(repeats))}, {"output": y})
    axes = [a for a, r in enumerate(repeats) if r != 1]
    if x.ndim == 0 or len(axes) > 1:
        return NotApplicable("Tile-1 repeats along one axis: 'Repeat the elements of a tensor along an axis.'")
    axis = axes[0] if axes else 0
    # Tile-1's tiles and axis are typed T, the input's own (floating) type.
    tiles, where = np.array(repeats[axis], dtype=x.dtype), np.array(axis, dtype=x.dtype)
    return Case({"input": x, "tiles": tiles, "axis": where}, {"output": y})


@OPERATOR.example
def tile(v, t, rng):
    return tiled(v, t, data(t, (3, 1, 5), rng), [1, 3, 2])


@OPERATOR.example
def precomputed(v, t, rng):
    return tiled(v, t, documented(t, [[0, 1], [2, 3]], rng), [2, 2])


@OPERATOR.example
def doc_example(v, t, rng):
    """The schema's own: A = [[1, 2], [3, 4]], B = [1, 2]."""
    return tiled(v, t, documented(t, [[1, 2], [3, 4]], rng), [1, 2])


@OPERATOR.example
def zero_repeats(v, t, rng):
    return tiled(v, t, data(t, (3, 2), rng), [0, 1])


@OPERATOR.example
def empty_input(v, t, rng):
    return tiled(v, t, data(t, (2, 0, 3), rng), [2, 3, 1])


@OPERATOR.example
def rank0(v, t, rng):
    """'same length as input's dimension number': a scalar takes an empty repeats."""
    return tiled(v, t, data(t, (), rng), [])


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    'Issues with types',
    "the evaluator implements only Tile with two inputs, not Tile-1's (input, tiles, axis)",
)
