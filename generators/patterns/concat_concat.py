"""A Concat feeding another Concat, which optimizers merge into one (the ONNX optimizer's
fuse_consecutive_concats, OpenVINO's ConcatFusion and NopElimination of one-input Concat,
onnxruntime's constant folding of Concat on initializers).

Merging is right only along the same axis, and the inner Concat's inputs must take its place in
the outer one's list. `inner_in_middle` joins a, Concat(b, c) and d along axis 1: merged, the
order is a, b, c, d (appending b and c at the end is off). `different_axes` joins along axis 0
inside and axis 1 outside: merging into either is another shape. `negative_axis` joins along -1
inside and 2 outside of rank-3 tensors, the same axis: the merge is right, a rule comparing the
numbers as written merely misses it. `zero_sized` has an input with no columns inside and a constant
one outside: (2, 0) must vanish from the result, not shift it."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import distinct

FAMILY = GraphFamily("Concat+Concat", "pattern", targets=(
    "ONNX optimizer: fuse_consecutive_concats",
    "OpenVINO: ConcatFusion, NopElimination (Concat)",
    "onnxruntime: ConstantFolding (Concat of initializers)",
))


def _graph(t, rng, shapes, inner, outer_inputs, inner_axis, outer_axis, weights=()):
    values = {name: distinct(t, rng, shape) for name, shape in shapes.items()}
    return Graph([helper.make_node("Concat", inner, ["m"], axis=inner_axis),
                  helper.make_node("Concat", outer_inputs, ["y"], axis=outer_axis)],
                 inputs={n: v for n, v in values.items() if n not in weights}, outputs=["y"],
                 weights={n: v for n, v in values.items() if n in weights})


@FAMILY.example
def inner_in_middle(t, rng):
    """Concat(a, Concat(b, c), d) along 1, each (2, k): columns a, b, c, d."""
    return _graph(t, rng, {"a": (2, 1), "b": (2, 2), "c": (2, 3), "d": (2, 1)}, ["b", "c"], ["a", "m", "d"], 1, 1)


@FAMILY.example
def different_axes(t, rng):
    """Concat(Concat(a (2, 2), b (1, 2), axis 0), c (3, 1), axis 1): (3, 3)."""
    return _graph(t, rng, {"a": (2, 2), "b": (1, 2), "c": (3, 1)}, ["a", "b"], ["m", "c"], 0, 1)


@FAMILY.example
def negative_axis(t, rng):
    """Concat(c, Concat(a, b, axis -1), axis 2) of (2, 2, k): the same axis written two ways."""
    return _graph(t, rng, {"a": (2, 2, 1), "b": (2, 2, 2), "c": (2, 2, 3)}, ["a", "b"], ["c", "m"], -1, 2)


@FAMILY.example
def zero_sized(t, rng):
    """Concat(Concat(a (2, 0), b (2, 2), axis 1), w (2, 1) a weight, axis -1): (2, 3)."""
    return _graph(t, rng, {"a": (2, 0), "b": (2, 2), "w": (2, 1)}, ["a", "b"], ["m", "w"], 1, -1, weights=("w",))
