"""ZipMap (ai.onnx.ml): each row of X becomes a map from the class labels to that row's values."""

import numpy as np

from onnx_conformance.generators.case import Case, Declared, Map, Seq
from onnx_conformance.generators.ml_family import data, ml_operator

OPERATOR = ml_operator("ZipMap")

STRING_LABELS = ["cat", "dog", "bird"]
INT_LABELS = [3, 10, -1]


def zipped(t, x, labels_attr=None):
    """'The columns of the tensor correspond one-by-one to the keys specified by the attributes.'"""
    key = "string" if t["T"] == "seq(map(string, float))" else "int64"
    labels = STRING_LABELS if key == "string" else INT_LABELS
    maps = [Map({k: np.float32(x[i, j]) for j, k in enumerate(labels)}, key, "float") for i in range(x.shape[0])]
    attr = "classlabels_strings" if key == "string" else "classlabels_int64s"
    return Case({"X": x}, {"Z": Seq(maps, f"map({key}, float)")}, {attr: labels})


@OPERATOR.example
def rows(v, t, rng):
    """Two rows of three scores, keyed by three labels (strings or int64, as T says)."""
    return zipped(t, data("float", (2, 3), rng))


@OPERATOR.example
def one_row(v, t, rng):
    return zipped(t, data("float", (1, 3), rng))


@OPERATOR.example
def specials(v, t, rng):
    """Values pass through unchanged: -0, infinities and NaN included."""
    x = np.array([[-0.0, np.inf, np.nan], [1e-40, -np.inf, 3.5]], dtype=np.float32)
    return zipped(t, x)


@OPERATOR.rejection
def both_label_kinds(v, t, rng):
    """'Must provide keys in either classlabels_strings or classlabels_int64s (but not both).' Z is declared
    with the int64 keys onnx's type inference takes when both are set: the model breaks only the rule."""
    x = data("float", (2, 3), rng)
    return Case({"X": x}, {"Z": Declared("seq(map(int64, float))", None)},
                {"classlabels_strings": STRING_LABELS, "classlabels_int64s": INT_LABELS},
                error=v.sentence(r"but not both"))


OPERATOR.reference_differs(r"No registered implementation for operator 'ZipMap'",
                           "onnx's ReferenceEvaluator (1.23) implements no ZipMap")
