"""Imputer (ai.onnx.ml): elements equal to the replaced value become the imputed value of their feature."""

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Case
from onnx_conformance.generators.ml_family import data, ml_operator

OPERATOR = ml_operator("Imputer")


def imputed(t, x, replaced, imputed_values):
    """'Replaces inputs that equal one value with another'; the imputed values have length 1 or F
    ('If it is 1, then it is broadcast along the last dimension')."""
    is_int = values.is_int(t.dtype)
    y = x.copy()
    f = x.shape[-1]
    for idx in np.ndindex(x.shape):
        if x[idx] == replaced:
            y[idx] = imputed_values[idx[-1] if len(imputed_values) > 1 else 0]
    if is_int:
        attrs = {"imputed_value_int64s": [int(i) for i in imputed_values], "replaced_value_int64": int(replaced)}
    else:
        attrs = {"imputed_value_floats": [float(i) for i in imputed_values], "replaced_value_float": float(replaced)}
    assert len(imputed_values) in (1, f)
    return Case({"X": x}, {"Y": y}, attrs)


def with_value(t, shape, rng, value):
    x = data(t.dtype, shape, rng)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, size=flat.size // 3, replace=False)] = value
    return x


@OPERATOR.example
def per_feature(v, t, rng):
    return imputed(t, with_value(t, (4, 3), rng, -1), -1, [10, 20, 30])


@OPERATOR.example
def broadcast_one(v, t, rng):
    """One imputed value for every feature."""
    return imputed(t, with_value(t, (3, 4), rng, 2), 2, [-7])


@OPERATOR.example
def default_replaced(v, t, rng):
    """replaced_value_* left at its default: 0 (the attribute written as 0)."""
    return imputed(t, with_value(t, (3, 3), rng, 0), 0, [5, 6, 7])
