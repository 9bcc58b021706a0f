"""A residual Add (and a bias Add) followed by LayerNormalization, fused by onnxruntime's
SkipLayerNormFusion into com.microsoft SkipLayerNormalization (input, skip, gamma, beta, bias; its
optional fourth output is the sum), by TensorRT's skipLayerNorm plugin and OpenVINO's CPU plugin.
The fused kernel normalises the last axis only, with skip of the input's shape (or broadcast over
the batch).

What each example catches: `skip_and_bias` (x + skip + bias (H,), LayerNormalization over the last
axis) is the fusable form; `residual_also_output` returns the sum too and has epsilon 0.5, so a
fusion that drops the sum output or takes epsilon 1e-5 is off; `not_last_axis` normalises over the
last two axes (axis -2, Scale and B of shape (S, H)), which a last-axis kernel gets wrong;
`broadcast_skip` adds a skip of shape (1, S, H) to x of shape (2, S, H): a kernel that reads skip as
if it had x's shape reads past it; `empty_batch` has a batch of 0."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._fusion_data import normal, quarters

FAMILY = GraphFamily("Add+LayerNormalization", "pattern", targets=(
    "onnxruntime: SkipLayerNormFusion (-> com.microsoft SkipLayerNormalization)",
    "TensorRT: skipLayerNorm plugin",
    "OpenVINO: MVN + eltwise fusion (CPU plugin)",
))


def _graph(t, rng, x_shape, skip_shape, norm_shape, axis=-1, epsilon=1e-5, bias=False, sum_out=False):
    nodes = [helper.make_node("Add", ["x", "skip"], ["s"])]
    weights = {"gamma": quarters(t, rng, norm_shape, -2, 2), "beta": quarters(t, rng, norm_shape, -1, 1)}
    if bias:
        nodes.append(helper.make_node("Add", ["s", "bias"], ["sb"]))
        weights["bias"] = quarters(t, rng, (x_shape[-1],), -1, 1)
    nodes.append(helper.make_node("LayerNormalization", [nodes[-1].output[0], "gamma", "beta"], ["y"],
                                  axis=axis, epsilon=epsilon))
    return Graph(nodes, inputs={"x": normal(t, rng, x_shape), "skip": normal(t, rng, skip_shape)},
                 outputs=["y", "s"] if sum_out else ["y"], weights=weights)


@FAMILY.example
def skip_and_bias(t, rng):
    """LayerNormalization(x + skip + bias) over the last axis of (2, 3, 8)."""
    return _graph(t, rng, (2, 3, 8), (2, 3, 8), (8,), bias=True)


@FAMILY.example
def residual_also_output(t, rng):
    """Outputs LayerNormalization(x + skip) with epsilon 0.5 and the sum x + skip itself."""
    return _graph(t, rng, (2, 3, 8), (2, 3, 8), (8,), epsilon=0.5, sum_out=True)


@FAMILY.example
def not_last_axis(t, rng):
    """axis -2: normalised over the last two axes (3, 4) of (2, 3, 4)."""
    return _graph(t, rng, (2, 3, 4), (2, 3, 4), (3, 4), axis=-2)


@FAMILY.example
def broadcast_skip(t, rng):
    """skip (1, 3, 8) broadcast over a batch of 2."""
    return _graph(t, rng, (2, 3, 8), (1, 3, 8), (8,))


@FAMILY.example
def empty_batch(t, rng):
    """x and skip of shape (0, 3, 8)."""
    return _graph(t, rng, (0, 3, 8), (0, 3, 8), (8,), bias=True)
