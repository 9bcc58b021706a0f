"""Shape computations that constant folding removes: Shape -> Gather -> (Unsqueeze) -> Concat ->
Reshape, as exporters write `x.view(x.size(0), -1)`, and the same chain built from int64 constants
(the ONNX optimizer's eliminate_shape_gather and eliminate_shape_op, onnxruntime's ConstantFolding
of Shape on a static shape and of the int64 chain after it, OpenVINO's ShapeOf constant folding
and SharedOpOptimization, TVM's DynamicToStatic).

The folded shape must be the one the chain computes. `flatten_batch` is the plain case.
`negative_gather` gathers the dimensions at -1 and -3, which a fold must count from the end.
`zero_sized` gathers a 0 from x's shape to the front and reshapes with allowzero=1: the 0 is literal;
a fold or a Reshape that drops allowzero copies x's first dimension instead (3, then 36 elements
from none). `constant_pieces` concatenates three unsqueezed int64 constants 0, -1 and 2 into the
shape: 0 copies the first dimension, -1 is inferred; fed, the same chain runs at run time."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import distinct, ints

FAMILY = GraphFamily("Shape+Gather+Concat+Reshape", "pattern", targets=(
    "ONNX optimizer: eliminate_shape_gather, eliminate_shape_op",
    "onnxruntime: ConstantFolding (Shape of a static shape, then the int64 chain)",
    "OpenVINO: ShapeOf constant folding, SharedOpOptimization",
))


@FAMILY.example
def flatten_batch(t, rng):
    """(2, 3, 4) reshaped to [Shape(x)[0], -1]: (2, 12)."""
    return Graph([helper.make_node("Shape", ["x"], ["s"]),
                  helper.make_node("Gather", ["s", "zero"], ["batch"], axis=0),
                  helper.make_node("Unsqueeze", ["batch", "axis0"], ["batch1"]),
                  helper.make_node("Concat", ["batch1", "minus_one"], ["shape"], axis=0),
                  helper.make_node("Reshape", ["x", "shape"], ["y"])],
                 inputs={"x": distinct(t, rng, (2, 3, 4))}, outputs=["y"],
                 weights={"zero": ints(0), "axis0": ints([0]), "minus_one": ints([-1])})


@FAMILY.example
def negative_gather(t, rng):
    """(2, 3, 4) reshaped to [Shape(x)[-1], Shape(x)[-3], -1]: (4, 2, 3)."""
    return Graph([helper.make_node("Shape", ["x"], ["s"]),
                  helper.make_node("Gather", ["s", "picks"], ["dims"], axis=0),
                  helper.make_node("Concat", ["dims", "minus_one"], ["shape"], axis=0),
                  helper.make_node("Reshape", ["x", "shape"], ["y"])],
                 inputs={"x": distinct(t, rng, (2, 3, 4))}, outputs=["y"],
                 weights={"picks": ints([-1, -3]), "minus_one": ints([-1])})


@FAMILY.example
def zero_sized(t, rng):
    """(3, 4, 0) reshaped with allowzero=1 to Shape(x)[[2, 0, 1]] = [0, 3, 4]: (0, 3, 4)."""
    return Graph([helper.make_node("Shape", ["x"], ["s"]),
                  helper.make_node("Gather", ["s", "order"], ["shape"], axis=0),
                  helper.make_node("Reshape", ["x", "shape"], ["y"], allowzero=1)],
                 inputs={"x": distinct(t, rng, (3, 4, 0))}, outputs=["y"], weights={"order": ints([2, 0, 1])})


@FAMILY.example
def constant_pieces(t, rng):
    """(3, 2, 4) reshaped to Concat(Unsqueeze(0), Unsqueeze(-1), Unsqueeze(2)) = [0, -1, 2]: (3, 4, 2)."""
    return Graph([helper.make_node("Unsqueeze", ["c0", "axis0"], ["u0"]),
                  helper.make_node("Unsqueeze", ["c1", "axis0"], ["u1"]),
                  helper.make_node("Unsqueeze", ["c2", "axis0"], ["u2"]),
                  helper.make_node("Concat", ["u0", "u1", "u2"], ["shape"], axis=0),
                  helper.make_node("Reshape", ["x", "shape"], ["y"])],
                 inputs={"x": distinct(t, rng, (3, 2, 4))}, outputs=["y"],
                 weights={"c0": ints(0), "c1": ints(-1), "c2": ints(2), "axis0": ints([0])})
