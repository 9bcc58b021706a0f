"""Classical ML (ai.onnx.ml): encoders and mappers over their keys, the linear and SVM models, the scalers and normalizers, and small random tree ensembles, each drawn within what the schema describes.

Features are drawn on a grid of quarters with up to MAX_OVERLAY drawn values, among them the edges of
FEATURE_EDGES: the models compute in float ('Y is tensor(float) for every T'), and the schema does not
say whether a double or a large integer feature is first rounded to float, so features are values float
holds exactly (integers within 2^24, doubles that are floats). The pass-through and lookup operators
(ArrayFeatureExtractor, Binarizer, Imputer, LabelEncoder, ZipMap, CastMap, FeatureVectorizer) get every
edge of their type, NaN and the infinities included. A label decided by a comparison of float sums
(LinearClassifier, SVMClassifier, TreeEnsembleClassifier) is drawn only where its scores are clear of a
tie by more than the sums' tolerance: the spec fixes no accumulation order, and a tie's label is not
stated. Tree ensembles are drawn as trees (tree_family.Leaf and Node) of depth 0 to MAX_DEPTH, split
points taken from the features themselves (so BRANCH_EQ and BRANCH_NEQ meet equality), NaN features
where a node says where a missing value goes, every leaf of tree i voting for target i mod n_targets
(so MIN and MAX always have a vote), then written in each version's attribute layout.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators.case import Map
from onnx_conformance.generators.protos import map_types
from onnx_conformance.generators.slice_family import variadic
from onnx_conformance.harness.dtypes import numpy_of
from onnx_conformance.harness.strategies.common import (
    Discard,
    Family,
    Probe,
    element_values,
    example_tolerance,
    shapes,
    tensors,
)
from onnx_conformance.harness.strategies.indices import index_tensors
from onnx_conformance.harness.strategies.ml_models import (
    draw_legacy_ensemble,
    draw_linear_classifier,
    draw_linear_regressor,
    draw_normalizer,
    draw_scaler,
    draw_svm_classifier,
    draw_svm_regressor,
    draw_tree_ensemble,
)
from onnx_conformance.harness.strategies.ml_values import INT64S, ML, STRINGS, as_float32, class_labels, weight_values


class ClassicalML(Family):
    name = "classical ML"
    operators = ("ArrayFeatureExtractor", "Binarizer", "CastMap", "CategoryMapper", "DictVectorizer",
                 "FeatureVectorizer", "Imputer", "LabelEncoder", "LinearClassifier", "LinearRegressor", "Normalizer",
                 "OneHotEncoder", "SVMClassifier", "SVMRegressor", "Scaler", "TreeEnsemble", "TreeEnsembleClassifier",
                 "TreeEnsembleRegressor", "ZipMap")

    def covers(self, op, v):
        return None if op.name in self.operators and op.domain == ML else f"not a {self.name} operator"

    def strategy(self, op, v, t):
        return DRAW[op.name](op, v, t)

    def case(self, op, v, t, probe):
        why = probe.extra.get("discard")
        if why:
            raise Discard(why)
        tolerance = probe.extra.get("tolerance", "examples")
        if tolerance == "examples":
            tolerance = example_tolerance(op, v, t)
        try:
            case = op.expect(v, probe.inputs, probe.attrs, outputs=probe.outputs, tolerance=tolerance)
        except ZeroDivisionError:  # ml_family.transform_row: SOFTMAX_ZERO of a row of zeros (reported, not ours)
            raise Discard("the semantics divide by zero (SOFTMAX_ZERO of a row of zeros)") from None
        return case


# ---------------------------------------------------------------------------------------------
# lookups and encoders


@st.composite
def _array_feature_extractor(draw, op, v, t):
    shape = list(draw(shapes(1, 4, 1024), label="X shape"))
    shape[-1] = shape[-1] or 1  # 'based on 0 as the first index': a last axis of 0 has no index to take
    x = draw(tensors(t.dtype, tuple(shape)), label="X")
    # Y of rank 1: onnx's shape inference takes Z's last axis as Y's size, where np.take's rule keeps Y's shape
    y_shape = (draw(st.one_of(st.integers(0, 5), st.sampled_from([16, 33])), label="Y length"),)
    y = draw(index_tensors(y_shape, 0, shape[-1] - 1), label="Y")
    return Probe({"X": x, "Y": y})


@st.composite
def _binarizer(draw, op, v, t):
    x = draw(tensors(t.dtype, draw(shapes(0, 4)), elements=element_values(t.dtype)), label="X")
    attrs = {}
    if draw(st.booleans(), label="give threshold"):
        flat = x.reshape(-1).astype(np.float64)
        finite = [e for e in flat[:64] if math.isfinite(e)]
        choices = [st.sampled_from([0.0, 1.0, -1.25, 0.5, 1e-30, -3.4e38, 3.4e38]), st.floats(-100, 100, width=32)]
        if finite:
            choices.append(st.sampled_from(finite))  # a threshold equal to an element: 'greater than' only
        attrs["threshold"] = as_float32(draw(st.one_of(*choices), label="threshold"))
    return Probe({"X": x}, attrs)


CAST_TO = {"float": "TO_FLOAT", "int64": "TO_INT64", "string": "TO_STRING"}


@st.composite
def _cast_map(draw, op, v, t):
    _, value = map_types(t["T1"])
    size = draw(st.one_of(st.integers(0, 6), st.sampled_from([16, 31, 64])), label="items")
    form = draw(st.sampled_from(["DENSE", "SPARSE"]), label="map_form")
    if form == "SPARSE":
        # 'the key of the map as the index of the output': every position 0..max_map-1 is named (no value
        # is stated for one that is not); the keys come in a drawn order
        keys = draw(st.permutations(list(range(size))), label="keys") if size else []
    else:
        keys = draw(st.lists(st.one_of(st.integers(-50, 50), st.sampled_from([2 ** 63 - 1, -(2 ** 63), 2 ** 31, -1])),
                             min_size=size, max_size=size, unique=True), label="keys")
    if value == "string":
        vals = draw(st.lists(st.sampled_from(("", "a", "caf\u00e9", "3.5", "-1", " x ", "\u4e2d")),
                             min_size=size, max_size=size), label="values")
    elif t["T2"] == "int64":
        # TO_INT64 of an integral float: within int64 (a float past 2^63 has no int64 to be)
        vals = draw(st.lists(st.one_of(st.integers(-1000, 1000), st.sampled_from([2 ** 24, -(2 ** 31), 2 ** 62])),
                             min_size=size, max_size=size), label="values")
    else:
        vals = draw(st.lists(st.one_of(st.floats(width=32), st.sampled_from([-0.0, math.inf, -math.inf, math.nan])),
                             min_size=size, max_size=size), label="values")
    items = {k: (e if value == "string" else np.float32(e)) for k, e in zip(keys, vals)}
    attrs = {"cast_to": CAST_TO[t["T2"]]}
    if form == "SPARSE" or draw(st.booleans(), label="give map_form"):
        attrs["map_form"] = form
    if form == "SPARSE":
        attrs["max_map"] = size
    return Probe({"X": Map(items, "int64", value)}, attrs)


@st.composite
def _category_mapper(draw, op, v, t):
    if t["T1"] == t["T2"]:  # 'Converts strings to integers and vice versa'
        return Probe({}, extra={"discard": "CategoryMapper maps strings to integers or back: T1 and T2 differ"})
    k = draw(st.integers(1, 8), label="categories")  # an empty list attribute has no type to write
    strings = draw(st.lists(st.sampled_from(STRINGS), min_size=k, max_size=k, unique=True), label="cats_strings")
    ints = draw(st.lists(st.sampled_from(INT64S), min_size=k, max_size=k, unique=True), label="cats_int64s")
    attrs = {"cats_strings": strings, "cats_int64s": ints}
    pool = list(strings if t["T1"] == "string" else ints) + list(STRINGS[:3] if t["T1"] == "string" else (5, -9))
    shape = draw(shapes(0, 3, 64), label="X shape")
    flat = draw(st.lists(st.sampled_from(pool), min_size=math.prod(shape), max_size=math.prod(shape)), label="X")
    x = np.array(flat, dtype=object if t["T1"] == "string" else np.int64).reshape(shape)
    if draw(st.booleans(), label="give default"):
        if t["T1"] == "string":
            attrs["default_int64"] = draw(st.sampled_from([-1, 0, 99, 2 ** 63 - 1, -(2 ** 63)]), label="default_int64")
        else:
            attrs["default_string"] = draw(st.sampled_from(["_Unused", "", "none", "\u4e2d"]), label="default_string")
    return Probe({"X": x}, attrs)


@st.composite
def _dict_vectorizer(draw, op, v, t):
    key, value = map_types(t["T1"])
    if t["T2"] != value:  # 'insert its value in the output array': Y's type is the map's value type
        return Probe({}, extra={"discard": "DictVectorizer's Y has the map's value type"})
    n = draw(st.integers(1, 8), label="vocabulary")
    vocab = draw(st.lists(st.sampled_from(STRINGS if key == "string" else INT64S), min_size=n, max_size=n,
                          unique=True), label="vocabulary")
    if value == "string":  # 'Any keys not present ... will be zero': a string has no zero, so every key is given
        present = vocab
    else:
        present = draw(st.lists(st.sampled_from(vocab), unique=True, max_size=n), label="keys")
    if value == "string":
        elements = st.sampled_from(STRINGS)
    elif value == "int64":
        elements = st.sampled_from(INT64S)
    else:
        elements = st.one_of(st.floats(width=32 if value == "float" else 64),
                             st.sampled_from([-0.0, math.inf, math.nan]))
    vals = draw(st.lists(elements, min_size=len(present), max_size=len(present)), label="values")
    if value not in ("string", "int64"):
        vals = [numpy_of(value).type(e) for e in vals]
    attr = "string_vocabulary" if key == "string" else "int64_vocabulary"
    return Probe({"X": Map(dict(zip(present, vals)), key, value)}, {attr: vocab})


@st.composite
def _feature_vectorizer(draw, op, v, t):
    count = draw(st.integers(1, 5), label="inputs")
    n = draw(st.one_of(st.integers(1, 3), st.sampled_from([0, 7, 16])), label="N")
    xs = []
    for i in range(count):
        c = draw(st.one_of(st.integers(0, 4), st.sampled_from([7, 8, 17])), label="C")
        shape = (c,) if n == 1 and draw(st.booleans(), label="rank 1") else (n, c)  # '1-D tensors are treated as [1,C]'
        xs.append(draw(tensors(t.dtype, shape, operand=i), label=f"X_{i}"))
    attrs = {"inputdimensions": [x.shape[-1] for x in xs]}
    return Probe(variadic("X", xs), attrs)


@st.composite
def _imputer(draw, op, v, t):
    shape = draw(shapes(1, 3, 256), label="X shape")
    integer = t.dtype.startswith("int")
    x = draw(tensors(t.dtype, shape, elements=element_values(t.dtype)), label="X")
    f = shape[-1]
    many = f > 1 and draw(st.booleans(), label="one imputed value per feature")
    count = f if many else 1
    attrs = {}
    flat = x.reshape(-1)
    if integer:
        lo, hi = np.iinfo(numpy_of(t.dtype)).min, np.iinfo(numpy_of(t.dtype)).max
        one = st.one_of(st.integers(-9, 9), st.sampled_from([int(lo), int(hi)]))
        attrs["imputed_value_int64s"] = draw(st.lists(one, min_size=count, max_size=count), label="imputed")
        pool = [int(e) for e in flat[:32]] + [0, -1, int(lo)]
        replaced = draw(st.sampled_from(pool), label="replaced")
        if replaced or draw(st.booleans(), label="write replaced 0"):
            attrs["replaced_value_int64"] = replaced
    else:
        attrs["imputed_value_floats"] = draw(weight_values(count), label="imputed")
        with np.errstate(over="ignore"):  # a double past float's range is no FLOAT attribute's value
            pool = [as_float32(e) for e in flat[:32] if math.isnan(e) or np.float32(e) == e] + [0.0, math.nan, -0.0]
        replaced = draw(st.sampled_from(pool), label="replaced")
        if replaced or math.isnan(replaced) or draw(st.booleans(), label="write replaced 0"):
            attrs["replaced_value_float"] = replaced
    return Probe({"X": x}, attrs)


LABEL_KEYS = {
    "string": st.sampled_from(STRINGS),
    "int64": st.sampled_from(INT64S[:8]),
    "int32": st.sampled_from((0, 1, -1, 7, 42, 2 ** 31 - 1, -(2 ** 31))),
    "int16": st.sampled_from((0, 1, -1, 7, 42, 2 ** 15 - 1, -(2 ** 15))),
    "float": st.sampled_from((0.0, -0.0, 1.0, -1.25, 0.1, math.nan, math.inf, -math.inf, 2.0 ** -149, 3.4e38)),
    "double": st.sampled_from((0.0, -0.0, 1.0, -1.25, 0.1, math.nan, math.inf, 1e-320, 1e300)),
}


@st.composite
def _label_encoder(draw, op, v, t):
    from onnx_conformance.generators.ops.label_encoder import attrs_for

    kin, kout = t["T1"], t["T2"]
    shape = draw(shapes(0, 3, 64), label="X shape")
    if v.since_version == 1:
        if kin == kout:  # 'Each operator converts either integers to strings or strings to integers'
            return Probe({}, extra={"discard": "LabelEncoder-1 converts integers to strings or back"})
        classes = draw(st.lists(st.sampled_from(STRINGS), min_size=1, max_size=6, unique=True), label="classes_strings")
        pool = (classes + ["zz", ""]) if kin == "string" else list(range(-1, len(classes) + 1)) + [2 ** 40]
        flat = draw(st.lists(st.sampled_from(pool), min_size=math.prod(shape), max_size=math.prod(shape)), label="X")
        x = np.array(flat, dtype=object if kin == "string" else np.int64).reshape(shape)
        attrs = {"classes_strings": classes}
        if draw(st.booleans(), label="give default"):
            attrs["default_int64" if kin == "string" else "default_string"] = -7 if kin == "string" else "none"
        return Probe({"X": x}, attrs)
    n = draw(st.integers(1, 6), label="keys")  # an empty list attribute has no type to write
    repeats = v.since_version >= 4 and draw(st.booleans(), label="repeated keys")  # 'the last key takes precedence'
    keys = draw(st.lists(LABEL_KEYS[kin], min_size=n, max_size=n, unique_by=None if repeats else _bits), label="keys")
    vals = draw(st.lists(LABEL_KEYS[kout], min_size=n, max_size=n), label="values")
    if kin == "float":
        keys = [as_float32(k) for k in keys]
    pool = keys + list(draw(st.lists(LABEL_KEYS[kin], min_size=1, max_size=3), label="other X values"))
    flat = draw(st.lists(st.sampled_from(pool), min_size=math.prod(shape), max_size=math.prod(shape)), label="X")
    x = np.array(flat, dtype=object if kin == "string" else numpy_of(kin)).reshape(shape)
    default = draw(LABEL_KEYS[kout], label="default") if draw(st.booleans(), label="give default") else None
    tensor = v.since_version >= 4 and draw(st.booleans(), label="as tensors")
    attrs = attrs_for(v, kin, kout, keys, vals, default, key_tensor=tensor, value_tensor=tensor)
    return Probe({"X": x}, attrs)


def _bits(x):
    """A key's identity for 'distinct keys': its bits (0.0 and -0.0 differ, NaN is itself)."""
    return repr(x) if not isinstance(x, float) else np.float64(x).tobytes()


CATS = (4, 0, 7, -2, 3, 2 ** 40, -(2 ** 31))


@st.composite
def _one_hot_encoder(draw, op, v, t):
    strings = t.dtype == "string"
    k = draw(st.integers(1, 8), label="categories")
    cats = draw(st.lists(st.sampled_from(STRINGS if strings else CATS), min_size=k, max_size=k, unique=True),
                label="categories")
    zeros = draw(st.sampled_from([None, 1, 0]), label="zeros")
    shape = draw(shapes(0, 3, 64), label="X shape")
    # 'cast to integers': values already integral (no rounding is stated); unlisted ones only where zeros
    # lets them be (zeros = 0 'will fail' on them)
    pool = list(cats) if zeros == 0 else list(cats) + (["gray", ""] if strings else [9, -1])
    if t.dtype == "int32":
        pool = [c for c in pool if -(2 ** 31) <= c < 2 ** 31] or [0]
    flat = draw(st.lists(st.sampled_from(pool), min_size=math.prod(shape), max_size=math.prod(shape)), label="X")
    x = np.array(flat, dtype=object if strings else numpy_of(t.dtype)).reshape(shape)
    attrs = {"cats_strings" if strings else "cats_int64s": cats}
    if zeros is not None:
        attrs["zeros"] = zeros
    return Probe({"X": x}, attrs)


@st.composite
def _zip_map(draw, op, v, t):
    strings = t["T"] == "seq(map(string, float))"
    k = draw(st.one_of(st.integers(1, 4), st.sampled_from([7, 16])), label="labels")
    labels = draw(class_labels(strings, k), label="labels")
    n = draw(st.one_of(st.integers(1, 3), st.sampled_from([0, 17])), label="N")
    shape = (k,) if n == 1 and draw(st.booleans(), label="rank 1") else (n, k)
    x = draw(tensors("float", shape, elements=element_values("float")), label="X")
    return Probe({"X": x}, {"classlabels_strings" if strings else "classlabels_int64s": labels})


DRAW = {
    "ArrayFeatureExtractor": _array_feature_extractor, "Binarizer": _binarizer, "CastMap": _cast_map,
    "CategoryMapper": _category_mapper, "DictVectorizer": _dict_vectorizer, "FeatureVectorizer": _feature_vectorizer,
    "Imputer": _imputer, "LabelEncoder": _label_encoder, "LinearClassifier": draw_linear_classifier,
    "LinearRegressor": draw_linear_regressor, "Normalizer": draw_normalizer, "OneHotEncoder": _one_hot_encoder,
    "SVMClassifier": draw_svm_classifier, "SVMRegressor": draw_svm_regressor, "Scaler": draw_scaler, "ZipMap": _zip_map,
    "TreeEnsemble": draw_tree_ensemble,
    "TreeEnsembleClassifier": lambda op, v, t: draw_legacy_ensemble(op, v, t, True),
    "TreeEnsembleRegressor": lambda op, v, t: draw_legacy_ensemble(op, v, t, False),
}
