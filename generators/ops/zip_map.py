"""ZipMap (ai.onnx.ml): each row of X becomes a map from the class labels to that row's values."""

import numpy as np

from onnx_conformance.generators.case import Declared, Map, Seq
from onnx_conformance.generators.ml_family import data, ml_operator, one_of
from onnx_conformance.generators.semantics import Rejected

OPERATOR = ml_operator("ZipMap")

STRING_LABELS = ["cat", "dog", "bird"]
INT_LABELS = [3, 10, -1]


@OPERATOR.semantics
def zip_map(v, attrs, inputs):
    """'The columns of the tensor correspond one-by-one to the keys specified by the attributes. There must be as
    many columns as keys.': each row of X becomes a map, the values unchanged (a 1-D X is one row)."""
    x = inputs["X"]
    which = one_of(attrs, ("classlabels_strings", "classlabels_int64s"), v.sentence(r"but not both"))
    labels = list(attrs[which])
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    if rows.ndim != 2 or rows.shape[1] != len(labels):
        raise Rejected(v.sentence(r"There must be as many columns as keys"))
    key = "string" if which == "classlabels_strings" else "int64"
    maps = [Map({k: np.float32(rows[i, j]) for j, k in enumerate(labels)}, key, "float") for i in range(rows.shape[0])]
    return {"Z": Seq(maps, f"map({key}, float)")}


def zipped(v, t, x):
    if t["T"] == "seq(map(string, float))":
        return OPERATOR.expect(v, {"X": x}, {"classlabels_strings": STRING_LABELS})
    return OPERATOR.expect(v, {"X": x}, {"classlabels_int64s": INT_LABELS})


@OPERATOR.example
def rows(v, t, rng):
    """Two rows of three scores, keyed by three labels (strings or int64, as T says)."""
    return zipped(v, t, data("float", (2, 3), rng))


@OPERATOR.example
def one_row(v, t, rng):
    return zipped(v, t, data("float", (1, 3), rng))


@OPERATOR.example
def specials(v, t, rng):
    """Values pass through unchanged: -0, infinities and NaN included."""
    x = np.array([[-0.0, np.inf, np.nan], [1e-40, -np.inf, 3.5]], dtype=np.float32)
    return zipped(v, t, x)


@OPERATOR.rejection
def both_label_kinds(v, t, rng):
    """'Must provide keys in either classlabels_strings or classlabels_int64s (but not both).' Z is declared
    with the int64 keys onnx's type inference takes when both are set: the model breaks only the rule."""
    x = data("float", (2, 3), rng)
    return OPERATOR.reject(v, {"X": x}, {"classlabels_strings": STRING_LABELS, "classlabels_int64s": INT_LABELS},
                           {"Z": Declared("seq(map(int64, float))", None)})


OPERATOR.reference_differs(r"No registered implementation for operator 'ZipMap'",
                           "onnx's ReferenceEvaluator (1.23) implements no ZipMap")
