"""CastMap (ai.onnx.ml): a map with int64 keys to a 1-D tensor of its values in ascending key order
(DENSE), or placed at their keys' positions in a tensor of max_map elements (SPARSE), cast to float,
int64 or string.

Y's rank: the type constraint says 'The output is a 1-D tensor of string, float, or integer.' onnx's own
shape inference (onnx 1.23, infer_shapes with strict_mode) infers only Y's element type (from cast_to)
and fixes no shape, so the schema's '1-D' stands: Y is [N] (DENSE) or [max_map] (SPARSE). onnx's
ReferenceEvaluator implements no CastMap; onnxruntime returns our values, but as a [1, N] tensor."""

import math

import numpy as np

from onnx_conformance.generators.case import Declared, Map, NotApplicable, once_per_version
from onnx_conformance.generators.protos import map_types
from onnx_conformance.generators.ml_family import ml_operator
from onnx_conformance.generators.semantics import Rejected, Undefined, attr

# Y's type follows cast_to; the map's value type is bound to the one that makes the cast defined
OPERATOR = ml_operator("CastMap", primary="T2",
                       defaults={"T1": lambda v, b: "map(int64, string)" if b["T2"] == "string"
                                 else "map(int64, float)"})

CAST_TO = {"float": "TO_FLOAT", "int64": "TO_INT64", "string": "TO_STRING"}

# values exact in float32; integral, so that TO_INT64 of them is the same integer under any rounding
FLOAT_VALUES = [3.0, -7.0, 0.0, 12.0, -1.0, 250.0, 5.0]
FRACTION_VALUES = [1.5, -0.25, 3.75, -1024.5, 0.125, 6.0, -2.0]
STRING_VALUES = ["seven", "", "x y", "3.5", "caf\u00e9", "-1", "A"]


def undefined(t):
    """The casts the schema leaves open: string to float or int64 (no parsing rule), float to string (no
    formatting), float to int64 of a non-integral value (no rounding rule; the examples use integral values)."""
    _, val = map_types(t["T1"])
    if val == "string" and t["T2"] != "string":
        return NotApplicable(f"cast_to '{CAST_TO[t['T2']]}' of a string value: the schema states no parsing of "
                             "strings ('A string indicating the desired element type of the output tensor')")
    if val == "float" and t["T2"] == "string":
        return NotApplicable("cast_to 'TO_STRING' of a float value: the schema states no formatting")
    return None


def value_list(t, fractions=False):
    _, val = map_types(t["T1"])
    if val == "string":
        return STRING_VALUES
    return FRACTION_VALUES if fractions and t["T2"] == "float" else FLOAT_VALUES


@OPERATOR.semantics
def cast_map(v, attrs, inputs):
    """'the values will be ordered in ascending order based on this key' (DENSE), or placed at 'the key of the map
    as the index of the output (sparse)' in a tensor of max_map elements, then cast as cast_to says ('A tensor
    representing the same data as the input map'): float to float and string to string are the identity, an
    integral float to int64 is that integer. The schema states no parsing of strings, no formatting of floats, no
    rounding of a non-integral float to int64, and no value at a position no key names: no value there."""
    x = inputs["X"]
    cast_to = attr(attrs, "cast_to", "TO_FLOAT")
    form = attr(attrs, "map_form", "DENSE")
    target = {"TO_FLOAT": "float", "TO_INT64": "int64", "TO_STRING": "string"}.get(cast_to)
    if target is None:
        raise Rejected(f"cast_to: {v.schema.attributes['cast_to'].description} (given {cast_to!r})")
    if form not in ("DENSE", "SPARSE"):
        raise Rejected(f"map_form: {v.schema.attributes['map_form'].description} (given {form!r})")
    if (x.value == "string") != (target == "string"):
        raise Undefined(f"cast_to {cast_to!r} of a {x.value} value: the schema states no "
                        + ("parsing of strings" if x.value == "string" else "formatting of floats"))
    if form == "DENSE":
        placed = [e for _, e in sorted(x.items.items())]
    else:
        n = attr(attrs, "max_map", 1)
        if any(not 0 <= k < n for k in x.items):
            raise Rejected(v.sentence(r"cannot exceed the max_map-1"))
        if len(x.items) < n:
            raise Undefined("SPARSE: the schema states no value for a position no key names")
        placed = [x.items[k] for k in range(n)]
    if target == "string":
        return {"Y": np.array(placed, dtype=object)}
    if target == "int64":
        if any(not math.isfinite(e) or not float(e).is_integer() for e in placed):
            raise Undefined("TO_INT64 of a non-integral value: the schema states no rounding")
        if any(not -2 ** 63 <= int(e) < 2 ** 63 for e in placed):
            raise Undefined("TO_INT64 of a value outside int64's range: the schema states no overflow rule")
        return {"Y": np.array([int(e) for e in placed], dtype=np.int64)}
    return {"Y": np.array(placed, dtype=np.float32)}


def the_map(t, keys, vals):
    key, val = map_types(t["T1"])
    items = {k: (x if val == "string" else np.float32(x)) for k, x in zip(keys, vals)}
    return Map(items, key, val)


def dense(v, t, keys, fractions=False):
    vals = value_list(t, fractions)[:len(keys)]
    return OPERATOR.expect(v, {"X": the_map(t, keys, vals)}, {"cast_to": CAST_TO[t["T2"]], "map_form": "DENSE"})


def sparse(v, t, keys, max_map):
    """The schema states no value for positions no key names, so every position 0..max_map-1 gets a key (given in
    another order than the keys')."""
    vals = value_list(t)[:len(keys)]
    attrs = {"cast_to": CAST_TO[t["T2"]], "map_form": "SPARSE", "max_map": max_map}
    return OPERATOR.expect(v, {"X": the_map(t, keys, vals)}, attrs)


@OPERATOR.example(name="dense")
def dense_unordered(v, t, rng):
    """Five keys, negative ones included, given out of order."""
    return undefined(t) or dense(v, t, [9, -4, 2, 100, 0])


@OPERATOR.example
def dense_fractions(v, t, rng):
    """Non-integral values, where the cast is the identity (float to float)."""
    if undefined(t):
        return undefined(t)
    if t["T2"] != "float":
        return NotApplicable("non-integral values only where the cast is float to float: the schema states no "
                             "rounding for TO_INT64")
    return dense(v, t, [3, 1, -2, 7, 5], fractions=True)


@OPERATOR.example
def dense_one(v, t, rng):
    """A map of one item: a 1-D tensor of one element."""
    return undefined(t) or dense(v, t, [42])


@OPERATOR.example
def dense_large_keys(v, t, rng):
    """Keys at the ends of int64's range still order by value (not by their unsigned bits)."""
    return undefined(t) or dense(v, t, [2 ** 62, -(2 ** 63), 2 ** 63 - 1, -1])


@OPERATOR.example
def dense_specials(v, t, rng):
    """Float to float keeps -0, the infinities and NaN."""
    if undefined(t):
        return undefined(t)
    if t["T2"] != "float":
        return NotApplicable("special values only where the cast is float to float: TO_INT64 of them is undefined")
    keys, vals = [4, 1, 3, 2], [float("nan"), -0.0, float("-inf"), float("inf")]
    return OPERATOR.expect(v, {"X": the_map(t, keys, vals)}, {"cast_to": "TO_FLOAT", "map_form": "DENSE"})


@OPERATOR.example(name="sparse")
def sparse_full(v, t, rng):
    """max_map 5 and the keys 0..4, given out of order."""
    return undefined(t) or sparse(v, t, [3, 0, 4, 1, 2], 5)


@OPERATOR.example
def sparse_one(v, t, rng):
    return undefined(t) or sparse(v, t, [0], 1)


@OPERATOR.rejection
def sparse_key_exceeds_max_map(v, t, rng):
    """'If using sparse packing, the key cannot exceed the max_map-1 value.': a key equal to max_map."""
    if once_per_version(v, t):
        return once_per_version(v, t)
    keys = [0, 1, 3]
    return OPERATOR.reject(v, {"X": the_map(t, keys, FLOAT_VALUES[:3])},
                           {"cast_to": "TO_FLOAT", "map_form": "SPARSE", "max_map": 3}, {"Y": Declared("float", (3,))})


OPERATOR.reference_differs(r"No registered implementation for operator 'CastMap'",
                           "onnx's ReferenceEvaluator (1.23) implements no CastMap; onnxruntime returns our values in a "
                           "[1, N] tensor, where T2's constraint says 'The output is a 1-D tensor' and onnx's shape "
                           "inference fixes no other rank")
