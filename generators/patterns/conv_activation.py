"""Conv followed by an activation (and a residual Add), fused into one kernel: onnxruntime's
ConvActivationFusion (Conv + Relu/Clip/LeakyRelu/Sigmoid/Tanh/HardSigmoid -> com.microsoft
FusedConv, and Conv + Add + Relu with the addend as FusedConv's Z), its NchwcTransformer, OpenVINO's
CPU plugin fusing activations and the sum into its convolution, TVM's FuseOps (conv2d + add + relu).

What each example catches: `clip_bounds` is Clip(-1, 0.5) with data where both bounds bite and one
NaN input that reaches several outputs (Clip passes NaN; a fused clamp written as max(min(x, hi),
lo) returns a bound instead); `clip_max_only` leaves Clip's min out (min is the type's lowest, not
0: a fusion that treats every Clip as ReLU6-like is off); `grouped_leaky` is a grouped, dilated
Conv + LeakyRelu(alpha 0.25, not the default 0.01); `add_relu_residual` adds a fed residual of the
Conv's shape before the Relu: the sum must happen before the Relu, not after."""

from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import quarters, with_specials

FAMILY = GraphFamily("Conv+Activation", "pattern", targets=(
    "onnxruntime: ConvActivationFusion (-> FusedConv, Conv + Add + Relu included)",
    "onnxruntime: NchwcTransformer (Conv + activation / Sum)",
    "OpenVINO: convolution + eltwise/activation fusion (CPU plugin)",
    "TVM: FuseOps (conv2d + add + relu)",
))


@FAMILY.example
def clip_bounds(t, rng):
    """Clip(min -1, max 0.5) after Conv (pads 1, bias); x holds one NaN."""
    x = with_specials(quarters(t, rng, (1, 2, 4, 4), -2, 2), t, float("nan"))
    return Graph([helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                  helper.make_node("Clip", ["c", "lo", "hi"], ["y"])],
                 inputs={"x": x}, outputs=["y"],
                 weights={"w": quarters(t, rng, (3, 2, 3, 3), -1, 1), "b": quarters(t, rng, (3,), -1, 1),
                          "lo": cast_to(-1.0, t), "hi": cast_to(0.5, t)})


@FAMILY.example
def clip_max_only(t, rng):
    """Clip(x, max=1) with min left out: negative values stay."""
    return Graph([helper.make_node("Conv", ["x", "w"], ["c"], strides=[1, 2]),
                  helper.make_node("Clip", ["c", "", "hi"], ["y"])],
                 inputs={"x": quarters(t, rng, (2, 2, 4, 5), -2, 2)}, outputs=["y"],
                 weights={"w": quarters(t, rng, (2, 2, 2, 2), -1, 1), "hi": cast_to(1.0, t)})


@FAMILY.example
def grouped_leaky(t, rng):
    """LeakyRelu(alpha 0.25) after Conv with group 2 and dilations (2, 1)."""
    return Graph([helper.make_node("Conv", ["x", "w", "b"], ["c"], group=2, dilations=[2, 1]),
                  helper.make_node("LeakyRelu", ["c"], ["y"], alpha=0.25)],
                 inputs={"x": quarters(t, rng, (1, 4, 5, 4), -2, 2)}, outputs=["y"],
                 weights={"w": quarters(t, rng, (4, 2, 2, 2), -1, 1), "b": quarters(t, rng, (4,), -1, 1)})


@FAMILY.example
def add_relu_residual(t, rng):
    """Relu(Conv(x) + z), z fed with the Conv output's shape (1, 3, 4, 4)."""
    return Graph([helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                  helper.make_node("Add", ["c", "z"], ["s"]), helper.make_node("Relu", ["s"], ["y"])],
                 inputs={"x": quarters(t, rng, (1, 2, 4, 4), -2, 2), "z": quarters(t, rng, (1, 3, 4, 4), -4, 4)},
                 outputs=["y"],
                 weights={"w": quarters(t, rng, (3, 2, 3, 3), -1, 1), "b": quarters(t, rng, (3,), -1, 1)})
