"""A small image classifier: Conv + Relu, MaxPool, Conv + Relu, GlobalAveragePool, Flatten, Gemm, Softmax.

What optimizers do to it: fuse Conv + Relu, turn GlobalAveragePool + Flatten + Gemm into a reduction
and a fully connected layer (OpenVINO), reorder to a blocked layout around the pools (onnxruntime's
NCHWc transformer, OpenVINO's CPU plugin), and drop the Flatten of a (N, C, 1, 1) tensor.
`single_image` and `batch_of_three` are the serving shapes; `ceil_mode_pool` pools 3x3 with stride 2
and ceil_mode 1 over a 6x6 map, so the last window hangs over the edge and the pooled map is 3x3, not
2x2 (a runtime ignoring ceil_mode gives the second Conv another input and every class another
probability); `empty_batch` has no images."""

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily
from onnx_conformance.generators.models._weights import activations, bias, dense, node

FAMILY = GraphFamily("ImageClassifier", "model", targets=(
    "Conv, Relu, MaxPool, GlobalAveragePool, Flatten, Gemm, Softmax",
    "onnxruntime: ConvActivationFusion, NCHWc layout transformer; OpenVINO: pooling in blocked layouts",
), types=FLOATS)

CLASSES = 3


def _net(t, rng, batch, size=6, **pool):
    pool = pool or {"kernel_shape": [2, 2], "strides": [2, 2]}
    w = {"w1": dense(t, rng, (4, 1, 3, 3), fan_in=9), "b1": bias(t, rng, (4,)),
         "w2": dense(t, rng, (6, 4, 3, 3), fan_in=36), "b2": bias(t, rng, (6,)),
         "w3": dense(t, rng, (6, CLASSES)) * 4, "b3": bias(t, rng, (CLASSES,))}
    nodes = [node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]), node("Relu", ["c1"], ["r1"]),
             node("MaxPool", ["r1"], ["p1"], **pool),
             node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]), node("Relu", ["c2"], ["r2"]),
             node("GlobalAveragePool", ["r2"], ["g"]), node("Flatten", ["g"], ["f"]),
             node("Gemm", ["f", "w3", "b3"], ["logits"]), node("Softmax", ["logits"], ["probabilities"])]
    return Graph(nodes, inputs={"x": activations(t, rng, (batch, 1, size, size))}, outputs=["probabilities"],
                 weights=w)


@FAMILY.example
def single_image(t, rng):
    """x (1, 1, 6, 6): pooled 2x2 to (1, 4, 3, 3), three class probabilities."""
    return _net(t, rng, 1)


@FAMILY.example
def batch_of_three(t, rng):
    return _net(t, rng, 3, size=4)


@FAMILY.example
def ceil_mode_pool(t, rng):
    """x (1, 1, 6, 6), MaxPool 3x3 stride 2 with ceil_mode 1: (1, 4, 3, 3), the last window cut by the edge."""
    return _net(t, rng, 1, kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)


@FAMILY.example
def empty_batch(t, rng):
    """x (0, 1, 6, 6): probabilities (0, 3)."""
    return _net(t, rng, 0)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
FAMILY.reference_differs(r"^empty_batch\w* \w+: .*ZeroDivisionError",
                         "the evaluator's GlobalAveragePool is numpy.average, which divides by the size of an "
                         "empty batch's result; the spec's average over each (empty) set of images is an empty result")
