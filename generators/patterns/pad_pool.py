"""Pad before AveragePool or MaxPool, which optimizers fold into the pool's pads (the ONNX
optimizer's fuse_pad_into_pool, onnxruntime's PadFusion, OpenVINO's PadFusionAvgPool and
PadFusionMaxPool).

A pool's own padding is not a Pad of zeros: padded zeros are values the pool sees, while the pool's
pads are left out of a max and, with count_include_pad=0 (the default), out of an average's count.
`average_exclude_pad` pads zeros before AveragePool (count_include_pad=0): folded, the border
averages divide by fewer elements (the fold is right only with count_include_pad=1, which
`average_include_pad` has). `max_negative` pads zeros around negative x: the zeros win the border
windows; folded into MaxPool's pads, which never win, the border is negative. `max_positive` is the
fold that is right: x is positive and no window is all padding."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, NotApplicable, cast_to
from onnx_conformance.generators.patterns._layout_data import distinct, ints

FAMILY = GraphFamily("Pad+Pool", "pattern", targets=(
    "onnxruntime: PadFusion (Pad -> AveragePool, Pad -> MaxPool)",
    "ONNX optimizer: fuse_pad_into_pool",
    "OpenVINO: PadFusionAvgPool, PadFusionMaxPool",
))


def _graph(x, t, pool, **attributes):
    """x (1, 2, 4, 5) -> Pad zeros (top 1, left 2, bottom 0, right 1) -> pool with a 3x3 window."""
    return Graph([helper.make_node("Pad", ["x", "pads", "value"], ["p"], mode="constant"),
                  helper.make_node(pool, ["p"], ["y"], kernel_shape=[3, 3], **attributes)],
                 inputs={"x": x}, outputs=["y"],
                 weights={"pads": ints([0, 0, 1, 2, 0, 0, 0, 1]), "value": cast_to(0, t)})


@FAMILY.example
def average_exclude_pad(t, rng):
    """AveragePool, count_include_pad=0, strides (1, 2): every padded zero is counted all the same."""
    return _graph(distinct(t, rng, (1, 2, 4, 5)), t, "AveragePool", strides=[1, 2])


@FAMILY.example
def average_include_pad(t, rng):
    """AveragePool, count_include_pad=1, pads (0, 0, 1, 0) of its own: the fold is right here."""
    return _graph(distinct(t, rng, (1, 2, 4, 5)), t, "AveragePool", count_include_pad=1, pads=[0, 0, 1, 0])


@FAMILY.example
def max_negative(t, rng):
    """MaxPool over negative x: the padded zeros are the border maxima."""
    if t.startswith("uint"):
        return NotApplicable(f"{t} has no negative values: a padded zero never wins, so a fold cannot be seen")
    x = distinct(t, rng, (1, 2, 4, 5))
    return _graph(-abs(x) - cast_to(1, t), t, "MaxPool")


@FAMILY.example
def max_positive(t, rng):
    """MaxPool over positive x, strides 2 and ceil_mode: no window is all padding, the fold is right."""
    x = distinct(t, rng, (1, 2, 4, 5))
    return _graph(abs(x) + cast_to(1, t), t, "MaxPool", strides=[2, 2], ceil_mode=1)


FAMILY.reference_differs(r"^max_negative(_fed)? int8: reference evaluator raised ValueError: cannot convert float NaN",
                         "onnx's ReferenceEvaluator runs a unit-stride MaxPool through its common pool code, which "
                         "pads the window with NaN, a value an int8 array cannot hold")
