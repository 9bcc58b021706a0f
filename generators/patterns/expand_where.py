"""Expand feeding Where, which optimizers drop in favour of Where's own broadcasting (onnxruntime's
ExpandElimination, OpenVINO's BroadcastElementwiseFusion and NopElimination of Broadcast, the ONNX
optimizer's eliminate_nop_expand, TVM's SimplifyExpr).

Dropping an Expand in front of a broadcasting operator is right only when the other operands
broadcast to the Expand's shape anyway. `condition_expanded` is that case (x and y span every axis
the Expand fills; the condition varies along the middle axis). `expand_sets_shape` expands the
condition to (2, 3, 4) while x and y only reach (3, 4): without the Expand, Where's result loses its
first axis. `bidirectional` expands x (2, 3, 1) by the shorter shape [3, 4]: Expand broadcasts both
ways, so the result is (2, 3, 4), which a rewrite taking [3, 4] as the result's shape gets wrong.
`zero_sized` expands the condition's leading 1 to 0: the result has no elements, where dropping the
Expand gives (2, 4) of them."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import distinct, ints

FAMILY = GraphFamily("Expand+Where", "pattern", targets=(
    "onnxruntime: ExpandElimination",
    "OpenVINO: BroadcastElementwiseFusion, NopElimination (Broadcast)",
    "ONNX optimizer: eliminate_nop_expand",
))


def _graph(nodes, x, y, c, shape):
    return Graph(nodes, inputs={"x": x, "y": y}, outputs=["out"], weights={"c": c, "shape": ints(shape)})


def _expand_condition():
    return [helper.make_node("Expand", ["c", "shape"], ["ce"]), helper.make_node("Where", ["ce", "x", "y"], ["out"])]


@FAMILY.example
def condition_expanded(t, rng):
    """c (3, 1) expanded to (1, 3, 1), x (2, 1, 4), y (2, 3, 1): (2, 3, 4) with or without the Expand."""
    c = np.array([[True], [False], [True]])
    return _graph(_expand_condition(), distinct(t, rng, (2, 1, 4)), distinct(t, rng, (2, 3, 1)), c, [1, 3, 1])


@FAMILY.example
def expand_sets_shape(t, rng):
    """c (3, 1) expanded to (2, 3, 4), x (3, 1), y (1, 4): (2, 3, 4), where Where alone gives (3, 4)."""
    c = np.array([[False], [True], [True]])
    return _graph(_expand_condition(), distinct(t, rng, (3, 1)), distinct(t, rng, (1, 4)), c, [2, 3, 4])


@FAMILY.example
def bidirectional(t, rng):
    """x (2, 3, 1) expanded by [3, 4] to (2, 3, 4); c (4,) alternates, y (1,)."""
    nodes = [helper.make_node("Expand", ["x", "shape"], ["xe"]), helper.make_node("Where", ["c", "xe", "y"], ["out"])]
    c = np.array([True, False, True, True])
    return _graph(nodes, distinct(t, rng, (2, 3, 1)), distinct(t, rng, (1,)), c, [3, 4])


@FAMILY.example
def zero_sized(t, rng):
    """c (1, 4) expanded to (0, 1, 4), x (2, 4), y (2, 1): (0, 2, 4)."""
    c = np.array([[True, False, False, True]])
    return _graph(_expand_condition(), distinct(t, rng, (2, 4)), distinct(t, rng, (2, 1)), c, [0, 1, 4])
