"""Two Slices in a row, which optimizers merge into one or remove when one takes everything
(onnxruntime's SliceElimination of starts 0 / ends INT64_MAX, OpenVINO's SliceSequenceToSingleSlice
and NopElimination of Slice/StridedSlice, TVM's SimplifyExpr).

Merging must clamp each Slice against the tensor it receives and compose the steps.
`negative_steps` takes columns 8, 6, 4, 2 (step -2) and then reverses them (step -1): 2, 4, 6, 8.
`clamped_ends` takes rows -100:100 (clamped to all four) and then 1:: adding the starts before
clamping gives -99:, all four rows again. `noop_then_step` takes 0:INT64_MAX of the columns, the
Slice a rule may remove, then rows 3 and 1 (step -2 from 3 down to, not including, 0).
`empty_middle` takes columns 5:2 (none) and then rows 1:3: (2, 0); a merge clamping the empty range
wrongly gives columns."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import INT64_MAX, INT64_MIN, distinct, ints

FAMILY = GraphFamily("Slice+Slice", "pattern", targets=(
    "onnxruntime: SliceElimination",
    "OpenVINO: SliceSequenceToSingleSlice, NopElimination (Slice, StridedSlice)",
    "TVM: SimplifyExpr (consecutive strided slices)",
))


def _graph(t, rng, first, second):
    """x (4, 10) -> Slice(first) -> Slice(second); each is (starts, ends, axes, steps or None)."""
    nodes, weights, value = [], {}, "x"
    for k, (starts, ends, axes, steps) in enumerate((first, second)):
        names = [f"starts{k}", f"ends{k}", f"axes{k}"] + ([f"steps{k}"] if steps is not None else [])
        out = "y" if k else "m"
        nodes.append(helper.make_node("Slice", [value] + names, [out]))
        weights |= dict(zip(names, map(ints, [starts, ends, axes] + ([steps] if steps is not None else []))))
        value = out
    return Graph(nodes, inputs={"x": distinct(t, rng, (4, 10))}, outputs=["y"], weights=weights)


@FAMILY.example
def negative_steps(t, rng):
    """Columns 8:1:-2 (8, 6, 4, 2), then -1::-1 of those (2, 4, 6, 8)."""
    return _graph(t, rng, ([8], [1], [1], [-2]), ([-1], [INT64_MIN], [-1], [-1]))


@FAMILY.example
def clamped_ends(t, rng):
    """Rows -100:100 (all four), then 1:INT64_MAX (rows 1 to 3)."""
    return _graph(t, rng, ([-100], [100], [0], None), ([1], [INT64_MAX], [0], None))


@FAMILY.example
def noop_then_step(t, rng):
    """Columns 0:INT64_MAX (all: a no-op), then rows 3:0:-2 (3 and 1)."""
    return _graph(t, rng, ([0], [INT64_MAX], [-1], None), ([3], [0], [0], [-2]))


@FAMILY.example
def empty_middle(t, rng):
    """Columns 5:2 (none), then rows 1:3: (2, 0)."""
    return _graph(t, rng, ([5], [2], [1], [1]), ([1], [3], [-2], None))
