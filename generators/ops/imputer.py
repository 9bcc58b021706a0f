"""Imputer (ai.onnx.ml): elements equal to the replaced value become the imputed value of their feature."""

import math

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.ml_family import data, ml_operator, one_of
from onnx_conformance.generators.rounding import exact, round_to
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = ml_operator("Imputer")


@OPERATOR.semantics
def impute(v, attrs, inputs):
    """'Replaces inputs that equal one value with another': the imputed_value_* list has length 1 ('broadcast
    along the last dimension') or F; floats for float X, integers for integer X ('One and only one of
    imputed_value_floats or imputed_value_int64s should be defined -- floats if the input tensor holds floats,
    integers if the input tensor holds integers'); 'The imputed values must all fit within the width of the tensor
    element type.' A NaN replaced value (a 'canonical representation' of missing values) matches NaN."""
    x = inputs["X"]
    is_int = x.dtype.kind in "iu"
    rule = v.sentence(r"One and only one of imputed_value_floats")
    which = one_of(attrs, ("imputed_value_floats", "imputed_value_int64s"), rule)
    if (which == "imputed_value_int64s") != is_int:
        raise Rejected(rule)
    f = x.shape[-1] if x.ndim else 1
    imputed = list(attrs[which])
    if len(imputed) not in (1, f):
        raise Rejected(v.sentence(r"if the input tensor has the shape \[\*,F\]"))
    if is_int:
        info = np.iinfo(x.dtype)
        if any(not info.min <= int(e) <= info.max for e in imputed):
            raise Rejected(v.sentence(r"must all fit within the width"))
        fill = [int(e) for e in imputed]
        replaced = int(attr(attrs, "replaced_value_int64", 0))
        hit = x == replaced
    else:
        held = [float(np.float32(e)) for e in imputed]
        fill = [round_to(exact(e), name_of_numpy(x.dtype)) for e in held]
        if any(math.isfinite(e) and not math.isfinite(float(q)) for e, q in zip(held, fill)):
            raise Rejected(v.sentence(r"must all fit within the width"))
        replaced = float(np.float32(attr(attrs, "replaced_value_float", 0.0)))
        hit = np.isnan(x) if math.isnan(replaced) else x.astype(np.float64) == replaced
    y = x.copy()
    for idx in zip(*np.nonzero(hit)):
        y[idx] = fill[idx[-1] if len(fill) > 1 else 0] if x.ndim else fill[0]
    return {"Y": y}


def imputed(v, t, x, replaced, imputed_values):
    if values.is_int(t.dtype):
        attrs = {"imputed_value_int64s": [int(i) for i in imputed_values], "replaced_value_int64": int(replaced)}
    else:
        attrs = {"imputed_value_floats": [float(i) for i in imputed_values], "replaced_value_float": float(replaced)}
    return OPERATOR.expect(v, {"X": x}, attrs)


def with_value(t, shape, rng, value):
    x = data(t.dtype, shape, rng)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, size=flat.size // 3, replace=False)] = value
    return x


@OPERATOR.example
def per_feature(v, t, rng):
    return imputed(v, t, with_value(t, (4, 3), rng, -1), -1, [10, 20, 30])


@OPERATOR.example
def broadcast_one(v, t, rng):
    """One imputed value for every feature."""
    return imputed(v, t, with_value(t, (3, 4), rng, 2), 2, [-7])


@OPERATOR.example
def default_replaced(v, t, rng):
    """replaced_value_* left at its default: 0 (the attribute written as 0)."""
    return imputed(v, t, with_value(t, (3, 3), rng, 0), 0, [5, 6, 7])
