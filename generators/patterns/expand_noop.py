"""An Expand whose shape looks like no change, which optimizers remove (the ONNX optimizer's
eliminate_nop_expand, onnxruntime's ExpandElimination, OpenVINO's NopElimination of Broadcast).

Expand is a no-op only when broadcasting x against the shape gives x's own shape. `same_shape`
(shape = x's shape) and `fewer_ones` (shape [1, 1] against a rank-3 x) are no-ops a rule may
remove. `ones_add_rank` expands (3, 4) by [1, 1, 1]: every entry is 1, yet the result has rank 3,
so a rule that checks only the values is off in the shape. `one_to_zero` expands (2, 1) by [2, 0]:
a 1 broadcasts to 0, so the result has no elements; a rule that only rejects target dimensions
above 1 removes it and keeps (2, 1). Each is followed by an Add of a weight, so the Expand is
inside the graph."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import distinct, ints, small

FAMILY = GraphFamily("Expand(no-op?)", "pattern", targets=(
    "ONNX optimizer: eliminate_nop_expand",
    "onnxruntime: ExpandElimination",
    "OpenVINO: NopElimination (Broadcast)",
))


def _graph(t, rng, x_shape, shape):
    return Graph([helper.make_node("Expand", ["x", "shape"], ["e"]), helper.make_node("Add", ["e", "b"], ["y"])],
                 inputs={"x": distinct(t, rng, x_shape)}, outputs=["y"],
                 weights={"shape": ints(shape), "b": small(t, rng, (1,), 1, 4)})


@FAMILY.example
def same_shape(t, rng):
    """(2, 3, 1) by [2, 3, 1]: the identity."""
    return _graph(t, rng, (2, 3, 1), [2, 3, 1])


@FAMILY.example
def fewer_ones(t, rng):
    """(2, 3, 4) by [1, 1]: the identity (the shape broadcasts into x's)."""
    return _graph(t, rng, (2, 3, 4), [1, 1])


@FAMILY.example
def ones_add_rank(t, rng):
    """(3, 4) by [1, 1, 1]: (1, 3, 4)."""
    return _graph(t, rng, (3, 4), [1, 1, 1])


@FAMILY.example
def one_to_zero(t, rng):
    """(2, 1) by [2, 0]: (2, 0)."""
    return _graph(t, rng, (2, 1), [2, 0])
