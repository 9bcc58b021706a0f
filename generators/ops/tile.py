"""Tile: copies of a tensor laid side by side, a count per axis (Tile-1: one count, one axis)."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import Rejected, Undefined
from onnx_conformance.generators.slice_family import documented

OPERATOR = Operator("Tile", primary="T")


@OPERATOR.semantics
def tile(v, attrs, inputs):
    """numpy.tile without broadcast: 'output_dim[i] = input_dim[i] * repeats[i]', repeats 'of the same length
    as input's dimension number'. Tile-1 repeats `tiles` copies along one `axis`, both typed like the input."""
    x = inputs["input"]
    if v.has_input("repeats"):
        repeats = [int(r) for r in np.asarray(inputs["repeats"]).reshape(-1).tolist()]
        if len(repeats) != x.ndim:
            raise Rejected(" ".join(v.schema.inputs[1].description.split()))
    else:
        tiles, axis = _whole(inputs["tiles"], "tiles"), _whole(inputs["axis"], "axis")
        if not 0 <= axis < x.ndim:
            raise Undefined(f"Tile-1: 'Axis along which to repeat.': the input of rank {x.ndim} has no axis {axis}")
        repeats = [tiles if a == axis else 1 for a in range(x.ndim)]
    if any(r < 0 for r in repeats):
        raise Undefined(f"repeats {repeats}: a negative number of copies has no meaning in the spec")
    return {"output": np.tile(x, repeats) if x.ndim else x.copy()}


def _whole(value, name: str) -> int:
    """Tile-1's tiles and axis: one number of the input's (floating) type, which must be a whole number."""
    number = np.asarray(value).reshape(-1)
    if number.size != 1 or not float(number[0]).is_integer():
        raise Undefined(f"Tile-1's {name} must be one whole number; given {number.tolist()}")
    return int(float(number[0]))


def tiled(v, t, x, repeats):
    if v.has_input("repeats"):
        return OPERATOR.expect(v, {"input": x, "repeats": np.array(repeats, dtype=np.int64).reshape(len(repeats))})
    axes = [a for a, r in enumerate(repeats) if r != 1]
    if x.ndim == 0 or len(axes) > 1:
        return NotApplicable("Tile-1 repeats along one axis: 'Repeat the elements of a tensor along an axis.'")
    axis = axes[0] if axes else 0
    # Tile-1's tiles and axis are typed T, the input's own (floating) type.
    tiles, where = np.array(repeats[axis], dtype=x.dtype), np.array(axis, dtype=x.dtype)
    return OPERATOR.expect(v, {"input": x, "tiles": tiles, "axis": where})


@OPERATOR.example(name="tile")
def rank3(v, t, rng):
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
