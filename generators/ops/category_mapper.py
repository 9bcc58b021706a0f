"""CategoryMapper (ai.onnx.ml): strings to integers or integers to strings through two parallel lists."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.ml_family import ml_operator
from onnx_conformance.generators.semantics import Rejected, Undefined, attr

OPERATOR = ml_operator("CategoryMapper", primary="T1",
                       defaults={"T2": lambda v, b: "string" if b.get("T1") == "int64" else "int64"})

CATS_STRINGS = ["cat", "dog", "cow", "pig"]
CATS_INTS = [1, 7, -3, 42]


@OPERATOR.semantics
def map_categories(v, attrs, inputs):
    """'Two sequences of equal length are used to map between integers and strings, with strings and integers
    at the same index detailing the mapping.' String X maps to int64 (unlisted: default_int64, -1), int64 X to
    strings (unlisted: default_string, '_Unused'); the default attribute set must be the direction's ('If the
    string default value is set, it will convert integers to strings'). A value listed twice with different
    images has no stated image."""
    x = inputs["X"]
    to_int = x.dtype.kind in "OUS"
    strings, ints = list(attr(attrs, "cats_strings", [])), [int(e) for e in attr(attrs, "cats_int64s", [])]
    if len(strings) != len(ints):
        raise Rejected(f"cats_int64s: {v.schema.attributes['cats_int64s'].description}")
    given = [a for a in ("default_int64", "default_string") if attrs.get(a) is not None]
    if len(given) > 1:
        raise Rejected(v.sentence(r"Only one default value attribute should be defined"))
    if given and given[0] != ("default_int64" if to_int else "default_string"):
        raise Rejected(v.sentence(r"If the string default value is set"))
    keys, images = (strings, ints) if to_int else (ints, strings)
    table = {}
    for k, image in zip(keys, images):
        table.setdefault(k, set()).add(image)
    default = attr(attrs, "default_int64", -1) if to_int else attr(attrs, "default_string", "_Unused")

    def one(e):
        found = table.get(e if to_int else int(e), {default})
        if len(found) > 1:
            raise Undefined(f"{e!r} is listed more than once with different images: which one holds is not stated")
        return next(iter(found))

    flat = [one(e) for e in x.reshape(-1)]
    return {"Y": np.array(flat, np.int64 if to_int else object).reshape(x.shape)}


def mapped(v, t, x, default=None):
    if t["T1"] == t["T2"]:
        return NotApplicable(OPERATOR_RULE)
    attrs = {"cats_strings": CATS_STRINGS, "cats_int64s": CATS_INTS}
    if default is not None:
        attrs["default_int64" if t["T1"] == "string" else "default_string"] = default
    return OPERATOR.expect(v, {"X": x}, attrs)


OPERATOR_RULE = "'Converts strings to integers and vice versa.': T1 and T2 differ"


def sample(t, shape, rng):
    if t["T1"] == "string":
        pool = CATS_STRINGS + ["emu"]
        return np.array([pool[i] for i in rng.integers(0, 5, size=int(np.prod(shape)))], dtype=object).reshape(shape)
    pool = CATS_INTS + [5]
    return np.array([pool[i] for i in rng.integers(0, 5, size=int(np.prod(shape)))], np.int64).reshape(shape)


@OPERATOR.example
def with_default(v, t, rng):
    return mapped(v, t, sample(t, (2, 4), rng), "none" if t["T1"] == "int64" else 99)


@OPERATOR.example
def attribute_default(v, t, rng):
    """The direction's default_* attribute at its own default value, written out: -1 or '_Unused'."""
    return mapped(v, t, sample(t, (6,), rng), "_Unused" if t["T1"] == "int64" else -1)


@OPERATOR.example
def rank_3(v, t, rng):
    return mapped(v, t, sample(t, (2, 2, 3), rng), "none" if t["T1"] == "int64" else 99)


OPERATOR.reference_differs(r"No registered implementation for operator 'CategoryMapper'",
                           "onnx's ReferenceEvaluator (1.23) implements no CategoryMapper")
