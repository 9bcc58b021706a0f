"""A transformer's embedding layer: token ids looked up with Gather, positions computed from the input's
shape (Shape, Gather, Range, Unsqueeze) and looked up too, both added, then LayerNormalization.

What optimizers do to it: onnxruntime's EmbedLayerNormFusion (Gather + Gather + Add + LayerNormalization
into one kernel, with the position ids it expects from Range), constant folding of the shape chain once
the input's shape is known, OpenVINO's Gather and MVN fusions. `batch_of_one` and `batch_of_two` are the
plain shapes; `negative_ids` uses token ids counted from the end of the table (-1 is the last row, as
Gather allows), which a fused kernel bounds-checking ids as unsigned reads wrongly; `token_types` adds a
third lookup (segment embeddings, BERT's); `empty_sequence` has no tokens: (2, 0) ids, (2, 0, 8) out."""

import numpy as np

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.models._weights import bias, ints, node

FAMILY = GraphFamily("Embedding", "model", targets=(
    "Gather, Shape, Range, Unsqueeze, Add, LayerNormalization",
    "onnxruntime: EmbedLayerNormFusion, ConstantFolding of the shape chain; OpenVINO: Gather, MVN fusion",
), types=FLOATS)

VOCAB, POSITIONS, D = 12, 6, 8


def _embedding(t, rng, ids, types=None):
    w = {"tokens": cast_to(rng.normal(0, 1, size=(VOCAB, D)), t),
         "positions": cast_to(rng.normal(0, 0.5, size=(POSITIONS, D)), t),
         "gamma": cast_to(rng.uniform(0.5, 1.5, size=D), t), "beta": bias(t, rng, (D,)),
         "one": ints(1), "zero": ints(0), "step": ints(1), "axes0": ints([0])}
    nodes = [node("Gather", ["tokens", "ids"], ["token_vectors"]),
             node("Shape", ["ids"], ["ids_shape"]), node("Gather", ["ids_shape", "one"], ["length"], axis=0),
             node("Range", ["zero", "length", "step"], ["position_ids"]),
             node("Unsqueeze", ["position_ids", "axes0"], ["position_row"]),
             node("Gather", ["positions", "position_row"], ["position_vectors"]),
             node("Add", ["token_vectors", "position_vectors"], ["summed"])]
    inputs = {"ids": np.asarray(ids, dtype=np.int64)}
    last = "summed"
    if types is not None:
        w["segments"] = cast_to(rng.normal(0, 0.5, size=(2, D)), t)
        inputs["types"] = np.asarray(types, dtype=np.int64)
        nodes += [node("Gather", ["segments", "types"], ["segment_vectors"]),
                  node("Add", ["summed", "segment_vectors"], ["with_segments"])]
        last = "with_segments"
    nodes.append(node("LayerNormalization", [last, "gamma", "beta"], ["y"], axis=-1, epsilon=1e-5))
    return Graph(nodes, inputs=inputs, outputs=["y"], weights=w)


@FAMILY.example
def batch_of_one(t, rng):
    """ids (1, 5)."""
    return _embedding(t, rng, rng.integers(0, VOCAB, size=(1, 5)))


@FAMILY.example
def batch_of_two(t, rng):
    """ids (2, 4)."""
    return _embedding(t, rng, rng.integers(0, VOCAB, size=(2, 4)))


@FAMILY.example
def negative_ids(t, rng):
    """ids (2, 3) with -1, -12 and -5 among them: rows counted from the end of the table."""
    return _embedding(t, rng, [[-1, 3, -12], [0, -5, 11]])


@FAMILY.example
def token_types(t, rng):
    """ids (2, 4) and segment ids 0/1: three lookups added before the normalization."""
    return _embedding(t, rng, rng.integers(0, VOCAB, size=(2, 4)), types=[[0, 0, 1, 1], [0, 1, 1, 1]])


@FAMILY.example
def empty_sequence(t, rng):
    """ids (2, 0): no tokens, no positions, y (2, 0, 8)."""
    return _embedding(t, rng, np.zeros((2, 0), dtype=np.int64))
