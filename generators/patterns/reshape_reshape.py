"""Two Reshapes in a row, which optimizers merge into one (the ONNX optimizer's
fuse_consecutive_reshapes, onnxruntime's ReshapeFusion and constant folding of Reshape,
OpenVINO's ReshapeSequenceFusion).

Merging is only right once each shape's 0 (copy that dimension) and -1 (infer it) are read against
the tensor that Reshape actually receives. `zero_copies_middle` catches a merge that keeps the
second shape as it is: its 0 copies a dimension of the middle tensor (6), not of x (3).
`empty_copies` is the same on a tensor with no elements, where every shape's element count is 0
and only the dimensions tell. `empty_allowzero` has allowzero=1 (a literal 0) in the first and -1
in the second: merged onto x, the -1 has nothing to infer from. `on_constant` reshapes a weight
twice, what constant folding computes; fed, nothing can be folded."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import distinct, ints

FAMILY = GraphFamily("Reshape+Reshape", "pattern", targets=(
    "ONNX optimizer: fuse_consecutive_reshapes",
    "onnxruntime: ReshapeFusion, ConstantFolding (Reshape of initializers)",
    "OpenVINO: ReshapeSequenceFusion",
))


def _twice(x, first, second, allowzero=(0, 0)):
    return Graph([helper.make_node("Reshape", ["x", "s1"], ["m"], allowzero=allowzero[0]),
                  helper.make_node("Reshape", ["m", "s2"], ["y"], allowzero=allowzero[1])],
                 inputs={"x": x}, outputs=["y"], weights={"s1": ints(first), "s2": ints(second)})


@FAMILY.example
def zero_copies_middle(t, rng):
    """(4, 3, 2) -> [0, 6] -> (4, 6) -> [2, 0, -1] -> (2, 6, 2); merged as [2, 0, -1] on x: (2, 3, 4)."""
    return _twice(distinct(t, rng, (4, 3, 2)), [0, 6], [2, 0, -1])


@FAMILY.example
def empty_copies(t, rng):
    """(4, 0, 3) -> [0, 0, 5] -> (4, 0, 5) -> [2, 0, 0] -> (2, 0, 5); merged onto x: (2, 0, 3)."""
    return _twice(distinct(t, rng, (4, 0, 3)), [0, 0, 5], [2, 0, 0])


@FAMILY.example
def empty_allowzero(t, rng):
    """(0, 3, 4) -> [3, 0, 4] with allowzero=1 -> (3, 0, 4) -> [0, -1] -> (3, 0): the second 0 copies 3."""
    return _twice(distinct(t, rng, (0, 3, 4)), [3, 0, 4], [0, -1], allowzero=(1, 0))


@FAMILY.example
def on_constant(t, rng):
    """A weight (2, 3, 4) -> [-1, 4] -> (6, 4) -> [0, 2, -1] -> (6, 2, 2), added to x (6, 1, 2):
    the broadcast shows the shape the folding produced."""
    return Graph([helper.make_node("Reshape", ["w", "s1"], ["m"]), helper.make_node("Reshape", ["m", "s2"], ["r"]),
                  helper.make_node("Add", ["r", "x"], ["y"])],
                 inputs={"x": distinct(t, rng, (6, 1, 2))}, outputs=["y"],
                 weights={"w": distinct(t, rng, (2, 3, 4)), "s1": ints([-1, 4]), "s2": ints([0, 2, -1])})
