"""Two Transposes in a row: they compose into one permutation, and into none where the second
undoes the first (the ONNX optimizer's fuse_consecutive_transposes and eliminate_nop_transpose,
onnxruntime's TransposeOptimizer cancelling and merging transposes, OpenVINO's TransposeFuse and
TransposeSinking).

Every element of x differs, so a wrong permutation is visible even where it keeps the shape.
`inverse_pair` is the pair a rule may remove. `composed` catches a rule composing the two
permutations in the wrong order (p1[p2] is not p2[p1] here, and both give the same shape: only the
values tell). `same_perm_twice` catches a rule that cancels two equal permutations: that is right
only for a permutation that is its own inverse, and a 3-cycle is not. `default_perm` catches a rule
reading a missing perm as the identity: Transpose without perm reverses the axes."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import distinct

FAMILY = GraphFamily("Transpose+Transpose", "pattern", targets=(
    "ONNX optimizer: fuse_consecutive_transposes, eliminate_nop_transpose",
    "onnxruntime: TransposeOptimizer (cancel and merge Transpose pairs)",
    "OpenVINO: TransposeFuse, TransposeSinking",
))


def _pair(t, rng, shape, first, second):
    a = {"perm": first} if first is not None else {}
    b = {"perm": second} if second is not None else {}
    return Graph([helper.make_node("Transpose", ["x"], ["m"], **a), helper.make_node("Transpose", ["m"], ["y"], **b)],
                 inputs={"x": distinct(t, rng, shape)}, outputs=["y"])


@FAMILY.example
def inverse_pair(t, rng):
    """(0, 2, 3, 1) then its inverse (0, 3, 1, 2): the identity, removable."""
    return _pair(t, rng, (2, 3, 4, 5), [0, 2, 3, 1], [0, 3, 1, 2])


@FAMILY.example
def composed(t, rng):
    """(1, 2, 0, 3) then (0, 2, 1, 3) on (2, 2, 2, 3): the composition (1, 0, 2, 3) swaps the first
    two axes; composed the other way round, (2, 1, 0, 3), it swaps the first and third, same shape."""
    return _pair(t, rng, (2, 2, 2, 3), [1, 2, 0, 3], [0, 2, 1, 3])


@FAMILY.example
def same_perm_twice(t, rng):
    """The 3-cycle (1, 2, 0) twice is (2, 0, 1), not the identity; on (3, 3, 3) only the values differ."""
    return _pair(t, rng, (3, 3, 3), [1, 2, 0], [1, 2, 0])


@FAMILY.example
def default_perm(t, rng):
    """No perm (reverse the axes) then (1, 0, 2) on (2, 3, 4): (3, 4, 2), not (3, 2, 4)."""
    return _pair(t, rng, (2, 3, 4), None, [1, 0, 2])
