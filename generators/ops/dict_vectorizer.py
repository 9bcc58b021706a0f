"""DictVectorizer (ai.onnx.ml): a map's values placed at their keys' positions in the vocabulary."""

import numpy as np

from onnx_conformance.generators.case import Map, NotApplicable
from onnx_conformance.generators.protos import map_types
from onnx_conformance.generators.ml_family import ml_operator, one_of
from onnx_conformance.generators.semantics import Rejected, Undefined
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = ml_operator("DictVectorizer", primary="T1", defaults={"T2": lambda v, b: map_types(b["T1"])[1]})

STRING_VOCAB = ["a", "c", "b", "z"]
INT_VOCAB = [10, 3, -4, 0, 8]


@OPERATOR.semantics
def vectorize(v, attrs, inputs):
    """'The index into the vocabulary array at which the key is found is then used to index the output 1-D tensor
    'Y' and insert into it the value found in the dictionary 'X'.' 'Any keys not present in the input dictionary,
    will be zero in the output array' (a string output has no zero: no value is stated there); 'All keys in the
    input dictionary must be present in the index mapping vector.'"""
    x = inputs["X"]
    which = one_of(attrs, ("string_vocabulary", "int64_vocabulary"),
                   v.schema.attributes["string_vocabulary"].description)
    if which != ("string_vocabulary" if x.key == "string" else "int64_vocabulary"):
        raise Rejected(v.sentence(r"The key type of the input map must correspond"))
    vocab = list(attrs[which])
    if any(k not in vocab for k in x.items):
        raise Rejected(v.sentence(r"All keys in the input dictionary must be present"))
    if any(vocab.count(k) > 1 for k in x.items):
        raise Undefined("a key listed twice in the vocabulary: at which of its indices the value goes is not stated")
    if x.value == "string" and len(x.items) < len(vocab):
        raise Undefined(v.sentence(r"Any keys not present") + ": a string output has no zero")
    y = np.zeros(len(vocab), dtype=object if x.value == "string" else numpy_of(x.value))
    for k, e in x.items.items():
        y[vocab.index(k)] = e
    return {"Y": y}


def vectorized(v, t, present):
    key, val = map_types(t["T1"])
    if val != t["T2"]:
        return NotApplicable("the output's element type is the map's value type ('For each item in the input "
                             "dictionary, insert its value in the output array')")
    vocab = STRING_VOCAB if key == "string" else INT_VOCAB
    if val == "string" and len(present) < len(vocab):
        return NotApplicable("'Any keys not present in the input dictionary, will be zero in the output array': "
                             "a string output has no zero")
    sample = {"string": ["u", "v", "w", "x", "y"], "int64": [4, 8, -2, 5, 9]}.get(val, [4.5, 8.0, -2.25, 0.5, 1.75])
    items = {vocab[i]: sample[n] for n, i in enumerate(present)}
    attr = "string_vocabulary" if key == "string" else "int64_vocabulary"
    return OPERATOR.expect(v, {"X": Map(items, key, val)}, {attr: vocab})


@OPERATOR.example
def documented(v, t, rng):
    """The schema's example shape: some vocabulary entries present, the others zero."""
    return vectorized(v, t, [0, 1])


@OPERATOR.example
def all_present(v, t, rng):
    """Every vocabulary key present, in another order than the vocabulary's."""
    key, _ = map_types(t["T1"])
    n = len(STRING_VOCAB if key == "string" else INT_VOCAB)
    return vectorized(v, t, list(reversed(range(n))))


@OPERATOR.example
def one_key(v, t, rng):
    return vectorized(v, t, [2])


OPERATOR.reference_differs(r"dtype double != expected float",
                           "Y's element type is the map's value type (T2 float for map(*, float)); the evaluator "
                           "builds Y with np.array over Python floats: double")
