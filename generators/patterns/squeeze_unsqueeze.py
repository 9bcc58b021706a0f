"""Squeeze and Unsqueeze chains, which optimizers merge, cancel or fold (the ONNX optimizer's
fuse_consecutive_squeezes and fuse_consecutive_unsqueezes, onnxruntime's UnsqueezeElimination
folding an Unsqueeze of an initializer into the initializer's shape and its TransposeOptimizer
moving Squeeze/Unsqueeze, OpenVINO's NopElimination of Squeeze/Unsqueeze pairs).

Axes count in the tensor each node receives, and a negative axis counts from that tensor's rank
(the output's rank, for Unsqueeze). `round_trip` is the pair a rule may cancel (Squeeze -2 then
Unsqueeze 1 on (2, 1, 3)). `moved_axis` squeezes one axis and unsqueezes another: same elements,
other shape, so a rule cancelling any Squeeze/Unsqueeze pair is off. `consecutive_squeezes` catches a
merge that unions the axes as written ([0] then [1] is [0, 2] of the input, not [0, 1]: that one is
2 long and cannot be squeezed). `unsqueeze_constant` unsqueezes a weight at axes [-1, 0]: -1 is the
last axis of the rank-4 result, so the weight broadcasts against x along axes 1 and 2; a fold that
counts -1 in the input's rank gives another shape."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import distinct, ints, small

FAMILY = GraphFamily("Squeeze+Unsqueeze", "pattern", targets=(
    "ONNX optimizer: fuse_consecutive_squeezes, fuse_consecutive_unsqueezes",
    "onnxruntime: UnsqueezeElimination, TransposeOptimizer (Squeeze/Unsqueeze handling)",
    "OpenVINO: NopElimination (EliminateSqueeze, EliminateUnsqueeze, Squeeze/Unsqueeze pairs)",
))


def _chain(t, rng, shape, *steps):
    nodes, weights, value = [], {}, "x"
    for k, (op, axes) in enumerate(steps):
        out = "y" if k == len(steps) - 1 else f"m{k}"
        nodes.append(helper.make_node(op, [value, f"axes{k}"], [out]))
        weights[f"axes{k}"] = ints(axes)
        value = out
    return Graph(nodes, inputs={"x": distinct(t, rng, shape)}, outputs=["y"], weights=weights)


@FAMILY.example
def round_trip(t, rng):
    """(2, 1, 3) -> Squeeze [-2] -> (2, 3) -> Unsqueeze [1] -> (2, 1, 3): the identity."""
    return _chain(t, rng, (2, 1, 3), ("Squeeze", [-2]), ("Unsqueeze", [1]))


@FAMILY.example
def moved_axis(t, rng):
    """(2, 1, 3) -> Squeeze [1] -> (2, 3) -> Unsqueeze [-1] -> (2, 3, 1): not the identity."""
    return _chain(t, rng, (2, 1, 3), ("Squeeze", [1]), ("Unsqueeze", [-1]))


@FAMILY.example
def consecutive_squeezes(t, rng):
    """(1, 2, 1, 3, 1) -> Squeeze [0] -> (2, 1, 3, 1) -> Squeeze [1] -> (2, 3, 1)."""
    return _chain(t, rng, (1, 2, 1, 3, 1), ("Squeeze", [0]), ("Squeeze", [1]))


@FAMILY.example
def unsqueeze_constant(t, rng):
    """A weight (2, 3) -> Unsqueeze [-1, 0] -> (1, 2, 3, 1), plus x (4, 1, 1, 5) -> (4, 2, 3, 5)."""
    return Graph([helper.make_node("Unsqueeze", ["w", "axes"], ["wu"]), helper.make_node("Add", ["wu", "x"], ["y"])],
                 inputs={"x": small(t, rng, (4, 1, 1, 5))}, outputs=["y"],
                 weights={"w": distinct(t, rng, (2, 3)), "axes": ints([-1, 0])})
