"""Clip: min(max, max(input, min)), exact in every type; the bounds are attributes up to version 6 and scalar inputs from 11."""

import math

import ml_dtypes
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.activation_family import (
    apply,
    array,
    edges,
    element,
    exact_tolerance,
    typed,
)
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import declared
from onnx_conformance.generators.semantics import Rejected, Undefined
from onnx_conformance.harness.dtypes import name_of_numpy, numpy_of

OPERATOR = Operator("Clip")


def clip(a, x):
    """'Min(max, Max(input, min))' (a bound left out is the type's limit): NaN propagates, and
    where min > max every value becomes max."""
    if isinstance(x, float) and math.isnan(x):
        return x
    lo, hi = a.get("min"), a.get("max")
    if lo is not None and x < lo:
        x = lo
    if hi is not None and x > hi:
        x = hi
    return x


@OPERATOR.semantics
def clip_semantics(v, attrs, inputs):
    """'Min(max, Max(input, min))' elementwise, exact. The bounds are float attributes up to version 6
    and scalar inputs of type T from 11; left out, they 'default to numeric_limits::lowest() and
    numeric_limits::max()' (of float for the attributes, Clip-6's stated defaults; of T for the inputs)."""
    x = np.asarray(inputs["input"])
    type_name = name_of_numpy(x.dtype)
    if v.has_input("min"):
        bounds = {k: _bound_input(v, k, inputs) for k in ("min", "max")}
        lowest, highest = _limits(type_name)
    else:
        bounds = {k: None if attrs.get(k) is None else element(np.float32(attrs[k])) for k in ("min", "max")}
        top = float(np.finfo(np.float32).max)
        lowest, highest = _attribute_default(v, "min", -top), _attribute_default(v, "max", top)
    a = {"min": lowest if bounds["min"] is None else bounds["min"],
         "max": highest if bounds["max"] is None else bounds["max"]}
    if v.since_version < 13 and _apart(a):
        raise Undefined(f"Clip-{v.since_version} does not define the result where min > max or a bound is NaN "
                        "(the sentence 'When 'min' is greater than 'max'...' comes in version 13)")
    if any(isinstance(b, float) and math.isnan(b) for b in a.values()):
        return {"output": np.full(x.shape, np.nan, dtype=x.dtype)}  # NaN propagates through Max and Min
    return {"output": apply(clip, a, type_name, x)}


def _bound_input(v, name, inputs):
    """A bound given as an input: 'It must be a scalar(tensor of empty shape)' of type T; None where left out."""
    b = inputs.get(name)
    if b is None:
        return None
    b, x = np.asarray(b), np.asarray(inputs["input"])
    if b.dtype != x.dtype:
        raise Rejected(_types_differ(v, inputs))
    if b.ndim != 0:
        raise Rejected(next(i.description for i in v.schema.inputs if i.name == name))
    return element(b[()])


def _types_differ(v, inputs) -> str:
    """'input, min and max are all of type T (...)', and which of them are not."""
    constraint = next(c.description for c in v.schema.type_constraints if c.type_param_str == "T")
    types = {k: name_of_numpy(np.asarray(b).dtype) for k, b in inputs.items() if b is not None}
    own = types["input"]
    odd = [f"{k} is {types[k]}" for k in ("min", "max") if k in types and types[k] != own]
    same = " and ".join(k for k in ("input", "min", "max") if types.get(k) == own)
    return f"input, min and max are all of type T ({constraint}); here {', '.join(odd)}, {same} {own}"


def _limits(type_name):
    """numeric_limits::lowest() and max() of T: the integer range, or the largest finite float."""
    if values.is_int(type_name):
        return tuple(element(b) for b in values.int_range(type_name))
    top = element(ml_dtypes.finfo(numpy_of(type_name)).max)
    return -top, top


def _attribute_default(v, name, limit):
    """The attribute's default the schema states (Clip-6), else float's numeric_limits (Clip-1's doc)."""
    default = v.schema.attributes[name].default_value
    return element(np.float32(default.f if default.type else limit))


def _apart(a) -> bool:
    """min > max, or a NaN bound: what only version 13's 'Min(max, Max(input, min))' defines."""
    lo, hi = a["min"], a["max"]
    return any(isinstance(b, float) and math.isnan(b) for b in (lo, hi)) or lo > hi


def bounded(v, t, x, lo=None, hi=None):
    """The case with bounds `lo`/`hi` (None: left out) as float attributes or as scalar inputs of type T."""
    if v.has_input("min"):
        bounds = {k: None if b is None else typed(b, t.dtype, None, ()) for k, b in (("min", lo), ("max", hi))}
        return OPERATOR.expect(v, {"input": x, **bounds}, tolerance=exact_tolerance(t.dtype))
    attrs = {k: float(b) for k, b in (("min", lo), ("max", hi)) if b is not None}
    return OPERATOR.expect(v, {"input": x}, attrs, tolerance=exact_tolerance(t.dtype))


def documented(name, data, lo, hi, sentence=None):
    def example(v, t, rng):
        if sentence and not v.sentence(sentence):
            return NotApplicable(f"version {v.since_version} does not define the result where min > max "
                                 "(the sentence 'When 'min' is greater than 'max'...' comes in version 13)")
        x = typed(data, t.dtype, rng, (3, 4, 5))
        if values.is_int(t.dtype) and values.int_range(t.dtype)[0] == 0 and any(b is not None and b < 0 for b in (lo, hi)):
            return NotApplicable("the documented bound is negative: an unsigned T cannot hold it")
        return bounded(v, t, x, lo, hi)

    OPERATOR.example(example, name=name)


documented("example", [-2, 0, 2], -1, 1)
documented("splitbounds", [-1, 0, 6], -5, 5)
# 'When 'min' is greater than 'max', the clip operator sets all the 'input' values to the value of 'max'.'
documented("min_greater_than_max", [-2, 0, 6], 2, 1, sentence="greater than 'max'")
documented("default_min", None, 0, None)
documented("default_max", None, None, 0)
documented("default_inbounds", [-1, 0, 1], None, None)


@OPERATOR.example
def dtype_range(v, t, rng):
    """The type's limits, subnormals, +-inf and NaN (NaN propagates through Max and Min) against bounds inside the range."""
    lo, hi = (2, 100) if values.is_int(t.dtype) and values.int_range(t.dtype)[0] == 0 else (-2, 3)
    return bounded(v, t, array(edges(t.dtype), t.dtype), lo, hi)


@OPERATOR.rejection
def min_max_types_differ(v, t, rng):
    if not v.has_input("min"):
        return NotApplicable("min and max are float attributes in this version: they carry no type of their own")
    x = values.sample("float", (2, 3), rng, specials=False)
    return OPERATOR.reject(v, {"input": x, "min": np.array(-1.0, np.float64), "max": np.array(1.0, np.float32)},
                           {}, {"output": declared("float", 2)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs("reference evaluator raised .*Clip.* version [1-5],",
                           "the evaluator has no Clip-1 (attributes min/max); Clip-6 is the same operator")
OPERATOR.reference_differs("^min_max_types_differ .*returned outputs",
                           "the evaluator does not check type constraints: it clips float input by a double min")
