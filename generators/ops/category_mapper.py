"""CategoryMapper (ai.onnx.ml): strings to integers or integers to strings through two parallel lists."""

import numpy as np

from onnx_conformance.generators.case import Case, NotApplicable
from onnx_conformance.generators.ml_family import ml_operator

OPERATOR = ml_operator("CategoryMapper", primary="T1",
                       defaults={"T2": lambda v, b: "string" if b.get("T1") == "int64" else "int64"})

CATS_STRINGS = ["cat", "dog", "cow", "pig"]
CATS_INTS = [1, 7, -3, 42]


def mapped(t, x, default=None):
    """'If the string default value is set, it will convert integers to strings. If the int default
    value is set, it will convert strings to integers.' Unlisted values get the default
    (default_int64 -1, default_string '_Unused' where the attribute is left at its default)."""
    if t["T1"] == t["T2"]:
        return NotApplicable(OPERATOR_RULE)
    attrs = {"cats_strings": CATS_STRINGS, "cats_int64s": CATS_INTS}
    if t["T1"] == "string":
        table = dict(zip(CATS_STRINGS, CATS_INTS))
        d = -1 if default is None else default
        y = np.array([table.get(e, d) for e in x.reshape(-1)], np.int64).reshape(x.shape)
        if default is not None:
            attrs["default_int64"] = default
    else:
        table = dict(zip(CATS_INTS, CATS_STRINGS))
        d = "_Unused" if default is None else default
        y = np.array([table.get(int(e), d) for e in x.reshape(-1)], dtype=object).reshape(x.shape)
        if default is not None:
            attrs["default_string"] = default
    return Case({"X": x}, {"Y": y}, attrs)


OPERATOR_RULE = "'Converts strings to integers and vice versa.': T1 and T2 differ"


def sample(t, shape, rng):
    if t["T1"] == "string":
        pool = CATS_STRINGS + ["emu"]
        return np.array([pool[i] for i in rng.integers(0, 5, size=int(np.prod(shape)))], dtype=object).reshape(shape)
    pool = CATS_INTS + [5]
    return np.array([pool[i] for i in rng.integers(0, 5, size=int(np.prod(shape)))], np.int64).reshape(shape)


@OPERATOR.example
def with_default(v, t, rng):
    return mapped(t, sample(t, (2, 4), rng), "none" if t["T1"] == "int64" else 99)


@OPERATOR.example
def attribute_default(v, t, rng):
    """The direction's default_* attribute at its own default value, written out: -1 or '_Unused'."""
    return mapped(t, sample(t, (6,), rng), "_Unused" if t["T1"] == "int64" else -1)


@OPERATOR.example
def rank_3(v, t, rng):
    return mapped(t, sample(t, (2, 2, 3), rng), "none" if t["T1"] == "int64" else 99)


OPERATOR.reference_differs(r"No registered implementation for operator 'CategoryMapper'",
                           "onnx's ReferenceEvaluator (1.23) implements no CategoryMapper")
