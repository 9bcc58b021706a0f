"""A classical-ML pipeline as sklearn-onnx exports it: Scaler (ai.onnx.ml) and a TreeEnsembleClassifier
giving labels and class probabilities, and ZipMap turning the probabilities into one map per row
(seq(map(int64, float)) or seq(map(string, float))); and the same Scaler before ai.onnx.ml 5's
TreeEnsemble regressor.

What runtimes do with it: onnxruntime runs the tree ensembles in its own tree kernels (parallel over
trees or rows, with thresholds compared in the input's type); runtimes without ai.onnx.ml say so. The
inputs are integers or quarters and the scaled features never lie near a threshold, so rounding cannot
change a path: a wrong path, a mis-ordered class or a wrong transform can.
`int_labels_softmax` has int64 labels, base values and the SOFTMAX transform; `string_labels` has
string labels and the raw votes (NONE); `single_row` is one row; `tree_ensemble_v5` is ai.onnx.ml 5's
TreeEnsemble (interior nodes and leaves apart, AVERAGE over trees, two targets) after the Scaler. The
element type is X's: the Scaler takes float, double, int64 and int32 and always gives float."""

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.models._weights import node
from onnx_conformance.generators.tree_family import Leaf, Node, ensemble5_attrs, legacy_attrs

FAMILY = GraphFamily("MLPipeline", "model", targets=(
    "Scaler, TreeEnsembleClassifier, ZipMap (ai.onnx.ml 3); Scaler, TreeEnsemble (ai.onnx.ml 5)",
    "onnxruntime: tree ensemble kernels (parallel over trees/rows)",
), types=("float", "double", "int64", "int32"))

ML = "ai.onnx.ml"
OFFSET, SCALE = [0.5, -1.0, 2.0], [0.5, 0.25, -1.0]
INT_LABELS, STRING_LABELS = [4, 1, 8], ["setosa", "versicolor", "virginica"]


def _x(t, rng, rows):
    """Integers in [-4, 4], quarters in the floating types: scaled, every feature is a multiple of 1/16."""
    n = rng.integers(-16, 17, size=(rows, 3))
    return cast_to(n / 4 if t in FLOATS else n // 4, t)


def _scaler():
    return node("Scaler", ["x"], ["scaled"], domain=ML, offset=OFFSET, scale=SCALE)


def _votes(a, b, c):
    return Leaf([(0, a), (1, b), (2, c)])


def _forest():
    """Three trees over the scaled features; thresholds are odd multiples of 1/32, never a feature's value."""
    return [Node(0, "BRANCH_LEQ", -0.59375, _votes(0.75, -0.25, 0.125),
                 Node(1, "BRANCH_LT", 0.15625, _votes(-0.5, 1.25, 0.375), _votes(0.25, 0.5, -0.625))),
            Node(2, "BRANCH_GT", -0.40625, Node(0, "BRANCH_GTE", 1.03125, _votes(1.5, 0.0, -0.75),
                                                _votes(-0.375, 0.875, 0.5)), _votes(0.0625, -0.5, 1.375)),
            Node(1, "BRANCH_LEQ", -0.71875, _votes(0.625, 0.25, 0.0), _votes(-0.125, 0.0, 0.3125))]


def _classifier(t, rng, rows, labels, post):
    which = "classlabels_int64s" if isinstance(labels[0], int) else "classlabels_strings"
    nodes = [_scaler(),
             node("TreeEnsembleClassifier", ["scaled"], ["label", "probabilities"], domain=ML,
                  base_values=[0.125, -0.0625, 0.0], post_transform=post, **{which: labels},
                  **legacy_attrs(_forest(), "class")),
             node("ZipMap", ["probabilities"], ["zipped"], domain=ML, **{which: labels})]
    return Graph(nodes, inputs={"x": _x(t, rng, rows)}, outputs=["label", "probabilities", "zipped"],
                 opsets={ML: 3})


@FAMILY.example
def int_labels_softmax(t, rng):
    """x (6, 3), labels 4, 1, 8, SOFTMAX over the summed votes plus base values."""
    return _classifier(t, rng, 6, INT_LABELS, "SOFTMAX")


@FAMILY.example
def string_labels(t, rng):
    """x (5, 3), string labels, the raw vote sums (NONE)."""
    return _classifier(t, rng, 5, STRING_LABELS, "NONE")


@FAMILY.example
def single_row(t, rng):
    return _classifier(t, rng, 1, INT_LABELS, "SOFTMAX")


@FAMILY.example
def tree_ensemble_v5(t, rng):
    """Scaler, then TreeEnsemble (ai.onnx.ml 5): two targets, the average over three trees."""
    def leaf(target, w):
        return Leaf([(target, w)])
    trees = [Node(0, "BRANCH_LEQ", -0.59375, leaf(0, 1.5), Node(1, "BRANCH_LT", 0.15625, leaf(1, -0.75), leaf(0, 0.25))),
             Node(2, "BRANCH_GT", -0.40625, leaf(1, 2.0), leaf(0, -1.25)),
             Node(1, "BRANCH_GTE", -0.71875, Node(0, "BRANCH_GT", 1.03125, leaf(1, 0.5), leaf(0, 0.875)), leaf(1, 1.0))]
    nodes = [_scaler(), node("TreeEnsemble", ["scaled"], ["y"], domain=ML, n_targets=2, aggregate_function=0,
                             **ensemble5_attrs(trees, "float"))]
    return Graph(nodes, inputs={"x": _x(t, rng, 6)}, outputs=["y"], opsets={ML: 5})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
FAMILY.reference_differs(r"^\w+ (int32|int64|double): ",
                         "the evaluator's Scaler casts (X - offset) * scale back to X's type, where Scaler's Y is "
                         "tensor(float) for every T: in int32 and int64 the scaled features are truncated, so rows take "
                         "other branches, and TreeEnsemble's Y then takes that type")
FAMILY.reference_differs(r"No registered implementation for operator 'ZipMap'",
                         "onnx's ReferenceEvaluator (1.23) implements no ZipMap, which ends the pipeline as sklearn-onnx "
                         "exports it (generators/ops/zip_map.py)")
