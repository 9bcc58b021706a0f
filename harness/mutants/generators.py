"""Mutants of the generators: scalars given a dimension, defaults of value and dtype wrong, diagonals
counted the other way, ranges whose limit is included or whose integers go through float."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import Mutant, ignored, result, through, with_attributes

FAMILY = "Generators"


def _as_rank1(y, *_, **__):
    return np.asarray(y).reshape(1) if np.ndim(y) == 0 else y


def _constant_of_shape_one(call, shape, **attrs):
    """The default value 1 (numpy.ones' reading) when the attribute `value` is absent."""
    (y,) = call.run(shape, **attrs)
    return (y,) if call.given("value") else (np.ones_like(y),)


def _eyelike_k_negated(call, a):
    """k counted downwards (a lower diagonal for k > 0), as a row-minus-column convention would."""
    if a.get("k"):
        a["k"] = -int(a["k"])
    return a


def _range_inclusive(call, start, limit, delta, **attrs):
    """The limit included when the steps reach it exactly (numpy.linspace-style endpoint)."""
    (y,) = call.run(start, limit, delta, **attrs)
    last = np.asarray(start).astype(np.float64) + y.size * np.asarray(delta).astype(np.float64)
    if np.asarray(delta) != 0 and last == np.asarray(limit).astype(np.float64):
        y = np.concatenate([y, np.asarray(limit, y.dtype).reshape(1)])
    return (y,)


MUTANTS = [
    Mutant("Constant.rank0_as_rank1", "Constant", "scalars",
           "The value for the sole element for the scalar, float32, output tensor.", result(_as_rank1),
           since=(12, None)),
    Mutant("ConstantOfShape.default_value_one", "ConstantOfShape", "wrong defaults",
           "If attribute 'value' is not specified, the value in the output defaults to 0, and the datatype "
           "defaults to float32.", _constant_of_shape_one),
    Mutant("ConstantOfShape.rank0_as_rank1", "ConstantOfShape", "scalars",
           "If empty tensor is given, the output would be a scalar.", result(_as_rank1)),
    Mutant("EyeLike.k_negated", "EyeLike", "index edges",
           "k = 0 populates the main diagonal, k > 0 populates an upper diagonal, and k < 0 populates a lower "
           "diagonal.", with_attributes(_eyelike_k_negated)),
    Mutant("EyeLike.ignores_dtype", "EyeLike", "ignored attributes",
           "The data type can be specified by the 'dtype' argument.", ignored("dtype")),
    Mutant("Range.limit_included", "Range", "off-by-one windows",
           "extends by increments of `delta` up to `limit` (exclusive).", _range_inclusive),
    Mutant("Range.int64_through_float", "Range", "integer through float",
           "Generate a tensor containing a sequence of numbers that begin at `start` and extends by increments of "
           "`delta` up to `limit` (exclusive).", through(np.float32)),
]
