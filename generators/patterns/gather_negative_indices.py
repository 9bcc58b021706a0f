"""Gather with constant negative indices, which optimizers fold (the whole Gather when the data is a
constant too) or normalise (onnxruntime's ConstantFolding of Gather on initializers, OpenVINO's
GatherNegativeConstIndicesNormalize and ConstantFolding, the ONNX optimizer's eliminate_shape_gather,
TVM's FoldConstant).

A negative index counts from the end of the gathered axis, that axis and no other. `weight_axis_1`
gathers columns -1, 0, -5, 2 of a (3, 5) weight: folded, the constant must hold columns 4, 0, 0, 2.
`indices_2d_negative_axis` gathers along axis -3 of a (4, 3, 2) weight with (2, 2) indices holding
-1 and -4: normalising them by another axis's length (3 or 2) picks other slices or fails.
`int32_indices` gathers from fed data with int32 indices -2, -5, 4: the normalisation must keep the
indices' type and read the data's axis length. `scalar_index` gathers row -1 with a scalar index:
the axis disappears from the result."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import distinct, ints, small

FAMILY = GraphFamily("Gather(negative indices)", "pattern", targets=(
    "onnxruntime: ConstantFolding (Gather of initializers)",
    "OpenVINO: GatherNegativeConstIndicesNormalize, ConstantFolding",
    "ONNX optimizer: eliminate_shape_gather",
))


def _gather_weight(t, rng, shape, indices, axis, x_shape):
    return Graph([helper.make_node("Gather", ["w", "i"], ["g"], axis=axis), helper.make_node("Add", ["g", "x"], ["y"])],
                 inputs={"x": small(t, rng, x_shape, 0, 4)}, outputs=["y"],
                 weights={"w": distinct(t, rng, shape), "i": indices})


@FAMILY.example
def weight_axis_1(t, rng):
    """Columns (-1, 0, -5, 2) of a weight (3, 5), plus x (3, 1)."""
    return _gather_weight(t, rng, (3, 5), ints([-1, 0, -5, 2]), 1, (3, 1))


@FAMILY.example
def indices_2d_negative_axis(t, rng):
    """Slices [[-1, 0], [-4, 2]] along axis -3 of a weight (4, 3, 2), plus x (1, 1, 1, 2)."""
    return _gather_weight(t, rng, (4, 3, 2), ints([[-1, 0], [-4, 2]]), -3, (1, 1, 1, 2))


@FAMILY.example
def int32_indices(t, rng):
    """Columns (-2, -5, 4) of x (3, 5), the indices int32."""
    return Graph([helper.make_node("Gather", ["x", "i"], ["y"], axis=1)], inputs={"x": distinct(t, rng, (3, 5))},
                 outputs=["y"], weights={"i": np.array([-2, -5, 4], dtype=np.int32)})


@FAMILY.example
def scalar_index(t, rng):
    """Row -1 of x (4, 3) by a scalar index: (3,)."""
    return Graph([helper.make_node("Gather", ["x", "i"], ["y"], axis=0)], inputs={"x": distinct(t, rng, (4, 3))},
                 outputs=["y"], weights={"i": ints(-1)})
