"""Relu followed by Clip, merged into one Clip by onnxruntime's ReluClipFusion (FuseReluClip: the
Relu is removed and a Clip min below 0, or a missing one, becomes 0) and the onnxscript rewriter's
fuse_successive_relu_clip; OpenVINO and TVM merge the two clamps likewise. The merged Clip's min must
be max(min, 0), in the graph's type.

What each example catches: `negative_min` (Clip(-2, 3)): a merge that keeps -2 lets negatives
through; `positive_min` (Clip(1, 3)): a merge that sets min to 0 lets values in [0, 1) through;
`no_min` (Clip(x, max 2), min left out): the merge must create a min of 0 of the graph's type (in
float16, bfloat16, double and the integers too); `nan_passes` (Clip(-1, 6), with NaN, +inf, -inf):
Relu and Clip both pass NaN, a merged clamp written as max(min(x, hi), lo) may not."""

from onnx import helper

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import quarters, with_specials

FAMILY = GraphFamily("Relu+Clip", "pattern", targets=(
    "onnxruntime: ReluClipFusion (FuseReluClip)",
    "onnxscript rewriter: fuse_successive_relu_clip",
    "OpenVINO / TVM: successive clamp merging",
))


def _graph(t, x, lo, hi):
    clip_in = ["r", "lo" if lo is not None else "", "hi"]
    weights = {"hi": cast_to(hi, t)}
    if lo is not None:
        weights["lo"] = cast_to(lo, t)
    return Graph([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Clip", clip_in, ["y"])],
                 inputs={"x": x}, outputs=["y"], weights=weights)


@FAMILY.example
def negative_min(t, rng):
    """Relu then Clip(-2, 3), x in [-5, 5]."""
    return _graph(t, quarters(t, rng, (3, 8), -5, 5), -2, 3)


@FAMILY.example
def positive_min(t, rng):
    """Relu then Clip(1, 3), x in [-5, 5]."""
    return _graph(t, quarters(t, rng, (3, 8), -5, 5), 1, 3)


@FAMILY.example
def no_min(t, rng):
    """Relu then Clip(max 2), min left out."""
    return _graph(t, quarters(t, rng, (3, 8), -5, 5), None, 2)


@FAMILY.example
def nan_passes(t, rng):
    """Relu then Clip(-1, 6) with NaN, +inf, -inf among x in [-8, 8]."""
    if t not in FLOATS:
        return NotApplicable("NaN and infinities exist in floating types only")
    return _graph(t, with_specials(quarters(t, rng, (2, 8), -8, 8), t, float("nan"), float("inf"), float("-inf")),
                  -1, 6)
