"""LabelEncoder (ai.onnx.ml): each element of X mapped through the keys -> values attributes, else the default."""

import math

import numpy as np
from onnx import numpy_helper

from onnx_conformance.generators.case import Declared, NotApplicable
from onnx_conformance.generators.ml_family import ml_operator, one_of
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = ml_operator("LabelEncoder", primary="T1",
                       defaults={"T2": lambda v, b: "string" if b.get("T1") == "int64" else "int64"})

# Three distinct keys and three distinct values per type; a fourth key stays unmapped.
SAMPLE = {
    "string": ["a", "b", "c", "zz"],
    "int64": [7, -3, 12, 99],
    "int32": [7, -3, 12, 99],
    "int16": [7, -3, 12, 99],
    "float": [0.5, -1.25, 3.0, 8.5],
    "double": [0.5, -1.25, 3.0, 8.5],
}
VALUES = {
    "string": ["x", "y", "w"],
    "int64": [100, -200, 300],
    "int32": [100, -200, 300],
    "int16": [100, -200, 300],
    "float": [1.5, -2.75, 0.125],
    "double": [1.5, -2.75, 0.125],
}
LIST_ATTR = {"string": "strings", "int64": "int64s", "float": "floats"}


def array(type_name, xs):
    return np.array(xs, dtype=object) if type_name == "string" else np.array(xs, dtype=numpy_of(type_name))


def tensor_attr(name, type_name, xs):
    return numpy_helper.from_array(array(type_name, xs), name)


def attrs_for(v, kin, kout, keys, vals, default, key_tensor=False, value_tensor=False):
    """The keys_*, values_* and default_* attributes for this version and these types: the list
    attributes where a type has one; keys_tensor / values_tensor / default_tensor (LabelEncoder-4)
    for the others or where asked."""
    a = {}
    if key_tensor or kin not in LIST_ATTR:
        a["keys_tensor"] = tensor_attr("keys_tensor", kin, keys)
    else:
        a[f"keys_{LIST_ATTR[kin]}"] = keys
    if value_tensor or kout not in LIST_ATTR:
        a["values_tensor"] = tensor_attr("values_tensor", kout, vals)
        if default is not None:
            a["default_tensor"] = tensor_attr("default_tensor", kout, [default])
    else:
        a[f"values_{LIST_ATTR[kout]}"] = vals
        if default is not None:
            a[f"default_{LIST_ATTR[kout][:-1]}"] = default
    return a


@OPERATOR.semantics
def label_encode(v, attrs, inputs):
    """Version 1: strings to their index in classes_strings, integers to the string at that index, else the
    direction's default. From version 2: 'The i-th value in the specified 'keys_*' attribute would be mapped to the
    i-th value in the specified 'values_*' attribute', else the default matching values_*. Float keys: version 2
    compares bit-wise ('so even a float NaN can be mapped'), version 4 by value with 'NaN' matching 'any input
    'NaN' value regardless of bit value'; a repeated key: 'the last key takes precedence' (version 4; version 2
    states nothing: no value for an input that hits one)."""
    x = inputs["X"]
    if v.since_version == 1:
        return {"Y": _classes(v, attrs, x)}
    rule = v.sentence(r"only one of 'keys_\*'/'values_\*' can be set")
    kname = one_of(attrs, [a for a in KEY_ATTRS if v.has_attribute(a)], rule)
    vname = one_of(attrs, [a for a in VALUE_ATTRS if v.has_attribute(a)], rule)
    keys, vals = _listed(attrs[kname], kname), _listed(attrs[vname], vname)
    if keys.dtype != x.dtype:
        raise Rejected(v.sentence(r"It implies that input's element type"))
    if len(keys) != len(vals):
        if v.since_version >= 4:
            raise Rejected(v.sentence(r"must have the same length"))
        raise Undefined("keys_* and values_* of different lengths: the mapping of the unpaired keys is not stated")
    default = _default(v, attrs, vname, vals.dtype)
    floats = x.dtype.kind == "f"

    def same(k, e):
        if floats and v.since_version < 4:
            return np.asarray(k, x.dtype).tobytes() == np.asarray(e, x.dtype).tobytes()
        if floats and math.isnan(k):
            return math.isnan(e)
        return k == e

    def one(e):
        hits = [val for k, val in zip(keys, vals) if same(k, e)]
        if len(hits) > 1 and v.since_version < 4 and len(set(map(str, hits))) > 1:
            raise Undefined(f"{kname} repeats a key with different values: version {v.since_version} states no "
                            "precedence")
        return hits[-1] if hits else default

    flat = [one(e) for e in x.reshape(-1)]
    return {"Y": np.array(flat, dtype=vals.dtype).reshape(x.shape)}


KEY_ATTRS = ("keys_strings", "keys_int64s", "keys_floats", "keys_tensor")
VALUE_ATTRS = ("values_strings", "values_int64s", "values_floats", "values_tensor")
LIST_DTYPE = {"strings": object, "int64s": np.int64, "floats": np.float32}


def _listed(value, name):
    """A keys_* / values_* attribute as a 1-D array of its type (FLOATS hold float32)."""
    if name.endswith("_tensor"):
        return numpy_helper.to_array(value).reshape(-1)
    return np.array(list(value), dtype=LIST_DTYPE[name.split("_")[1]])


def _default(v, attrs, vname, dtype):
    """'the 'default_*' that matches the specified 'values_*' attribute'; default_tensor's own default: '{"_Unused"}
    if values_* has string type, {-1} if values_* has integral type, and {-0.f} if values_* has float type'.
    Version 4: 'The type of the 'default_*' attribute must match the 'values_*' attribute chosen.'"""
    name = {"values_strings": "default_string", "values_int64s": "default_int64", "values_floats": "default_float",
            "values_tensor": "default_tensor"}[vname]
    others = [a for a in ("default_string", "default_int64", "default_float", "default_tensor")
              if a != name and attrs.get(a) is not None]
    if others and v.since_version >= 4:
        raise Rejected(v.sentence(r"The type of the 'default_\*' attribute must match"))
    given = attrs.get(name)
    if given is None:
        return UNSET_BY_KIND[np.dtype(dtype).kind]
    if name == "default_tensor":
        d = numpy_helper.to_array(given).reshape(-1)
        if d.dtype != dtype or d.size != 1:
            raise Rejected(v.sentence(r"The type of the 'default_\*' attribute must match"))
        return d[0]
    return given


UNSET_BY_KIND = {"O": "_Unused", "i": -1, "f": -0.0}


def _classes(v, attrs, x):
    """LabelEncoder-1: 'When converting from integers to strings, the string is fetched from the 'classes_strings'
    list, by simple indexing'; 'When converting from strings to integers, the string is looked up in the list and
    the index at which it is found is used as the converted value.' The default set picks no other direction."""
    classes = list(attr(attrs, "classes_strings", []))
    given = [a for a in ("default_int64", "default_string") if attrs.get(a) is not None]
    if len(given) > 1:
        raise Rejected(v.sentence(r"Only one default value attribute"))
    to_int = x.dtype.kind == "O"
    if given and given[0] != ("default_int64" if to_int else "default_string"):
        raise Rejected(v.sentence(r"If the string default value is set"))
    if to_int:
        d = attr(attrs, "default_int64", -1)
        return np.array([classes.index(e) if e in classes else d for e in x.reshape(-1)], np.int64).reshape(x.shape)
    d = attr(attrs, "default_string", "_Unused")
    flat = [classes[int(e)] if 0 <= int(e) < len(classes) else d for e in x.reshape(-1)]
    return np.array(flat, dtype=object).reshape(x.shape)


def encoded(v, t, x, keys, vals, default, **kw):
    kin, kout = t["T1"], t["T2"]
    if v.since_version == 1:
        return NotApplicable("LabelEncoder-1 has no keys_*/values_* attributes (its examples are classes_*)")
    if v.since_version == 2 and kout not in LIST_ATTR:
        return NotApplicable("unreachable")
    if (kw.get("key_tensor") or kw.get("value_tensor")) and v.since_version < 4:
        return NotApplicable(f"keys_tensor and values_tensor are LabelEncoder-4's; version {v.since_version} has none")
    return OPERATOR.expect(v, {"X": x}, attrs_for(v, kin, kout, keys, vals, default, **kw))


def sample_input(kin, rng, n=7):
    pool = SAMPLE[kin]
    return array(kin, [pool[i] for i in rng.integers(0, 4, size=n)])


@OPERATOR.example
def string_int(v, t, rng):
    """onnx's documented example: keys a, b, c to 0, 1, 2, default 42."""
    if (t["T1"], t["T2"]) != ("string", "int64"):
        return NotApplicable("the documented example maps strings to int64; 'mapping' covers every (T1, T2)")
    x = np.array(["a", "b", "d", "c", "g"], dtype=object)
    if v.since_version == 1:
        return OPERATOR.expect(v, {"X": x}, {"classes_strings": ["a", "b", "c"], "default_int64": 42})
    return encoded(v, t, x, ["a", "b", "c"], [0, 1, 2], 42)


@OPERATOR.example
def string_int_no_default(v, t, rng):
    """onnx's documented example without default_int64: unmapped strings give -1."""
    if (t["T1"], t["T2"]) != ("string", "int64"):
        return NotApplicable("the documented example maps strings to int64; 'mapping' covers every (T1, T2)")
    x = np.array(["a", "b", "d", "c", "g"], dtype=object)
    if v.since_version == 1:
        return OPERATOR.expect(v, {"X": x}, {"classes_strings": ["a", "b", "c"]})
    return encoded(v, t, x, ["a", "b", "c"], [0, 1, 2], None)


@OPERATOR.example
def mapping(v, t, rng):
    """Three keys of T1 to three values of T2, an explicit default for the fourth."""
    kin, kout = t["T1"], t["T2"]
    if v.since_version == 1:
        if kin == kout:
            return NotApplicable(v.sentence(r"Each operator converts either integers to strings or strings to integers"))
        classes = ["p", "q", "r"]
        if kin == "string":
            x = np.array(["q", "r", "p", "zz", "q"], dtype=object)
            return OPERATOR.expect(v, {"X": x}, {"classes_strings": classes, "default_int64": 5})
        x = np.array([2, 0, 7, -1, 1], np.int64)
        return OPERATOR.expect(v, {"X": x}, {"classes_strings": classes, "default_string": "none"})
    default = {"string": "none", "float": 9.5, "double": 9.5}.get(kout, 77)
    return encoded(v, t, sample_input(kin, rng), SAMPLE[kin][:3], VALUES[kout], default)


@OPERATOR.example
def unset_default(v, t, rng):
    """No default given: '_Unused', -1 or -0.0 by the values' type."""
    if v.since_version == 1:
        return NotApplicable("LabelEncoder-1's unset default is covered by string_int_no_default")
    kin, kout = t["T1"], t["T2"]
    if (kin, kout) not in (("string", "int64"), ("int64", "string"), ("string", "float"), ("float", "float"),
                           ("int16", "double"), ("double", "int32")):
        return NotApplicable("unset defaults run for six (T1, T2) pairs, one per value type family; "
                             "'mapping' covers every pair")
    if kout not in LIST_ATTR and v.since_version < 4:
        return NotApplicable("unreachable")
    return encoded(v, t, sample_input(kin, rng), SAMPLE[kin][:3], VALUES[kout], None)


@OPERATOR.example
def tensor_mapping(v, t, rng):
    """onnx's documented example: keys_tensor (strings), values_tensor and default_tensor (int16)."""
    if (t["T1"], t["T2"]) != ("string", "int16"):
        return NotApplicable("the documented tensor example maps strings to int16")
    x = np.array(["a", "b", "d", "c", "g"], dtype=object)
    return encoded(v, t, x, ["a", "b", "c"], [0, 1, 2], 42, key_tensor=True, value_tensor=True)


@OPERATOR.example
def tensor_value_only_mapping(v, t, rng):
    """onnx's documented example: keys_strings with values_tensor (int16); a key repeated: the last wins."""
    if (t["T1"], t["T2"]) != ("string", "int16"):
        return NotApplicable("the documented tensor example maps strings to int16")
    x = np.array(["a", "b", "d", "c", "g"], dtype=object)
    return encoded(v, t, x, ["a", "b", "b"], [0, 1, 2], 42, value_tensor=True)


@OPERATOR.example
def repeated_key(v, t, rng):
    """'If a key is repeated, the last key takes precedence.' (LabelEncoder-4)"""
    if v.since_version < 4:
        return NotApplicable("repeated keys are ruled on from LabelEncoder-4 ('the last key takes precedence')")
    kin, kout = t["T1"], t["T2"]
    keys = SAMPLE[kin][:3] + [SAMPLE[kin][0]]
    vals = VALUES[kout] + [VALUES[kout][1]]
    return encoded(v, t, sample_input(kin, rng), keys, vals, VALUES[kout][2])


@OPERATOR.example
def nan_key(v, t, rng):
    """A NaN key maps NaN inputs (v2: 'bit-wise comparison is used so even a float NaN can be mapped';
    v4: 'Float keys with value 'NaN' match any input 'NaN' value regardless of bit value')."""
    kin, kout = t["T1"], t["T2"]
    if kin not in ("float", "double") or v.since_version == 1:
        return NotApplicable("NaN keys exist for float and double keys only")
    if kout not in ("int64", "string") and t.suffix:
        return NotApplicable("NaN keys run mapping to int64 and string; the value types are covered by 'mapping'")
    x = array(kin, [0.5, float("nan"), 3.0, 8.5, float("nan")])
    return encoded(v, t, x, [0.5, float("nan"), 3.0], VALUES[kout], VALUES[kout][0])


@OPERATOR.rejection
def two_key_attributes(v, t, rng):
    """keys_strings and keys_int64s both set."""
    if v.since_version == 1:
        return NotApplicable("LabelEncoder-1 has no keys_* attributes")
    x = np.array([0.5, 3.0], np.float32)
    return OPERATOR.reject(v, {"X": x}, {"keys_floats": [0.5, 3.0], "keys_int64s": [1, 2], "values_int64s": [10, 20]},
                           {"Y": Declared("int64", (2,))})


@OPERATOR.rejection
def lengths_differ(v, t, rng):
    """keys_* and values_* of different lengths."""
    if v.since_version < 4:
        return NotApplicable("equal lengths of keys_* and values_* are stated from LabelEncoder-4")
    x = np.array([0.5, 3.0], np.float32)
    return OPERATOR.reject(v, {"X": x}, {"keys_floats": [0.5, 3.0, 4.0], "values_int64s": [10, 20]},
                           {"Y": Declared("int64", (2,))})


OPERATOR.reference_differs(r"^nan_key ", "the evaluator looks keys up in a dict, where NaN never equals NaN; the spec "
                           "maps NaN inputs through a NaN key (v2: bit-wise comparison; v4: any NaN matches)")
OPERATOR.reference_differs(r"Issues with types .*classes_strings",
                           "the evaluator implements LabelEncoder from version 2 only (it has no classes_strings)")
OPERATOR.reference_differs(r"^(two_key_attributes|lengths_differ) .*returned outputs for an expect-error case",
                           "the evaluator checks no attribute rule: it picks one keys_* and zips lists of unequal length")
