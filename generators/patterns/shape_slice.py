"""A Slice of a Shape, which optimizers fold into a constant or into Shape's own start/end (the
ONNX optimizer's eliminate_slice_after_shape and eliminate_shape_op, onnxruntime's
ConstantFolding of Shape and Slice on a static shape, OpenVINO's ShapeOf + StridedSlice constant
folding).

The fold must clamp and count as Slice does. `negative_start` takes the last two dimensions
(starts -2). `reverse_step` walks the shape backwards (step -1, ends INT64_MIN): x's elements in a
reversed shape, not transposed. `shape_attributes` slices a Shape that already has start=-3 and
end=-1, with an end past the end: a rule folding the Slice into Shape's attributes must add the
offsets, not replace them. `empty_slice` starts past the end of the shape (clamped: nothing), so
the shape is [-1] alone; x has a zero-sized dimension, and a fold clamping the start to the last
dimension instead gives (0, 3)."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import INT64_MAX, INT64_MIN, distinct, ints

FAMILY = GraphFamily("Shape+Slice", "pattern", targets=(
    "ONNX optimizer: eliminate_slice_after_shape, eliminate_shape_op",
    "onnxruntime: ConstantFolding (Shape and Slice on a static shape)",
    "OpenVINO: ShapeOf + StridedSlice constant folding",
))


def _graph(t, rng, shape, starts, ends, steps=None, shape_attrs=None, lead=(-1,)):
    """x reshaped to Concat(lead, Slice(Shape(x), starts, ends, [0], steps)): y's shape shows the slice."""
    slice_inputs = ["s", "starts", "ends", "axes"] + (["steps"] if steps is not None else [])
    weights = {"starts": ints(starts), "ends": ints(ends), "axes": ints([0]), "lead": ints(list(lead))}
    if steps is not None:
        weights["steps"] = ints(steps)
    return Graph([helper.make_node("Shape", ["x"], ["s"], **(shape_attrs or {})),
                  helper.make_node("Slice", slice_inputs, ["part"]),
                  helper.make_node("Concat", ["lead", "part"], ["shape"], axis=0),
                  helper.make_node("Reshape", ["x", "shape"], ["y"])],
                 inputs={"x": distinct(t, rng, shape)}, outputs=["y"], weights=weights)


@FAMILY.example
def negative_start(t, rng):
    """(2, 3, 4, 5) to [-1] + Shape(x)[-2:] = [-1, 4, 5]: (6, 4, 5)."""
    return _graph(t, rng, (2, 3, 4, 5), [-2], [INT64_MAX])


@FAMILY.example
def reverse_step(t, rng):
    """(2, 3, 4, 5) to [1] + Shape(x)[::-1] = [1, 5, 4, 3, 2]."""
    return _graph(t, rng, (2, 3, 4, 5), [-1], [INT64_MIN], steps=[-1], lead=(1,))


@FAMILY.example
def shape_attributes(t, rng):
    """Shape(x, start=-3, end=-1) of (2, 3, 4, 5) is [3, 4]; [1:100] of it is [4]: (30, 4)."""
    return _graph(t, rng, (2, 3, 4, 5), [1], [100], shape_attrs={"start": -3, "end": -1})


@FAMILY.example
def empty_slice(t, rng):
    """(2, 0, 3) to [-1] + Shape(x)[10:20] = [-1]: (0,)."""
    return _graph(t, rng, (2, 0, 3), [10], [20])
