"""Clip: min(max, max(input, min)), exact in every type; the bounds are attributes up to version 6 and scalar inputs from 11."""

import math

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
from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import declared

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


def bounded(v, t, x, lo=None, hi=None):
    """The case with bounds `lo`/`hi` (None: left out) as float attributes or as scalar inputs of type T."""
    if v.has_input("min"):
        bounds = {k: None if b is None else typed(b, t.dtype, None, ()) for k, b in (("min", lo), ("max", hi))}
        a = {k: None if b is None else element(b[()]) for k, b in bounds.items()}
        y = apply(clip, a, t.dtype, x)
        return Case({"input": x, **bounds}, {"output": y}, tolerance=exact_tolerance(t.dtype))
    attrs = {k: float(b) for k, b in (("min", lo), ("max", hi)) if b is not None}
    a = {k: element(np.float32(b)) for k, b in attrs.items()}
    y = apply(clip, a, t.dtype, x)
    return Case({"input": x}, {"output": y}, attrs, tolerance=exact_tolerance(t.dtype))


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
    constraint = next(c.description for c in v.schema.type_constraints if c.type_param_str == "T")
    x = values.sample("float", (2, 3), rng, specials=False)
    return Case({"input": x, "min": np.array(-1.0, np.float64), "max": np.array(1.0, np.float32)},
                {"output": declared("float", 2)},
                error=f"input, min and max are all of type T ({constraint}); here min is double, input and max float")


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs("reference evaluator raised .*Clip.* version [1-5],",
                           "the evaluator has no Clip-1 (attributes min/max); Clip-6 is the same operator")
OPERATOR.reference_differs("^min_max_types_differ .*returned outputs",
                           "the evaluator does not check type constraints: it clips float input by a double min")
