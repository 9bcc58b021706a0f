"""Split followed by Concat of its pieces, which optimizers remove when it gives the input back
(OpenVINO's NopElimination EliminateSplitConcat, the ONNX optimizer's eliminate_nop_split for a
Split into one piece, onnxruntime's ConcatSliceElimination and constant folding of both).

Only the pieces in their order, joined along the axis they were split on, give the input back.
`identity` splits (2, 6) along -1 into 1, 3 and 2 columns and joins them in order: removable.
`reordered` joins the same pieces as (c, a, b): same shape, columns moved. `other_axis` splits
along 1 and joins along 0: another shape. `single_piece_and_empty` splits into one piece (the nop
split) and, separately, into (3, 0) along 0, joining the empty piece first: an identity again, with a
zero-sized piece a rule must not trip on."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import distinct, ints

FAMILY = GraphFamily("Split+Concat", "pattern", targets=(
    "OpenVINO: NopElimination (EliminateSplitConcat)",
    "ONNX optimizer: eliminate_nop_split",
    "onnxruntime: ConcatSliceElimination, ConstantFolding",
))


def _graph(t, rng, sizes, split_axis, order, concat_axis):
    pieces = [f"p{k}" for k in range(len(sizes))]
    return Graph([helper.make_node("Split", ["x", "sizes"], pieces, axis=split_axis),
                  helper.make_node("Concat", [pieces[k] for k in order], ["y"], axis=concat_axis)],
                 inputs={"x": distinct(t, rng, (2, 6))}, outputs=["y"], weights={"sizes": ints(sizes)})


@FAMILY.example
def identity(t, rng):
    """(2, 6) into 1, 3, 2 columns along -1, joined in order along -1: the identity."""
    return _graph(t, rng, [1, 3, 2], -1, [0, 1, 2], -1)


@FAMILY.example
def reordered(t, rng):
    """The same pieces joined as (c, a, b)."""
    return _graph(t, rng, [1, 3, 2], -1, [2, 0, 1], 1)


@FAMILY.example
def other_axis(t, rng):
    """(2, 6) into two 3-column pieces along 1, joined along 0: (4, 3)."""
    return _graph(t, rng, [3, 3], 1, [0, 1], 0)


@FAMILY.example
def single_piece_and_empty(t, rng):
    """x (3, 4) split into one piece along 1 (num_outputs=1), then into 3 and 0 rows, joined empty first."""
    return Graph([helper.make_node("Split", ["x"], ["whole"], axis=1, num_outputs=1),
                  helper.make_node("Split", ["whole", "sizes"], ["rows", "none"], axis=0),
                  helper.make_node("Concat", ["none", "rows"], ["y"], axis=0)],
                 inputs={"x": distinct(t, rng, (3, 4))}, outputs=["y"], weights={"sizes": ints([3, 0])})
