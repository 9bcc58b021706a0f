"""Mutants of the random operators, judged by their distributions (harness/distribution.py): the
Bernoulli probability complemented, and mean, scale, bounds and dtypes not honoured or defaulted wrongly."""

from __future__ import annotations

from onnx_conformance.harness.mutants._shared import Mutant, default, ignored, with_attributes, with_inputs

FAMILY = "Random"

LIKE_DTYPE = ("(Optional) The data type for the elements of the output tensor, if not specified, we will use the data "
              "type of the input tensor.")


def _float_by_default(call, a):
    """dtype absent read as float (the non-Like operators' default) instead of the input's type."""
    if not call.given("dtype"):
        a["dtype"] = 1
    return a


MUTANTS = [
    Mutant("Bernoulli.probability_complemented", "Bernoulli", "layout modes",
           "where an output of 1 is produced with probability p and an output of 0 is produced with probability "
           "(1-p).", with_inputs(lambda x, **_: ((1 - x).astype(x.dtype),)),
           note="u < p read as u > p: 1 comes with probability 1 - p"),
    Mutant("Bernoulli.ignores_dtype", "Bernoulli", "ignored attributes",
           "The data type for the elements of the output tensor.", ignored("dtype")),
    Mutant("Multinomial.int64_by_default", "Multinomial", "wrong defaults",
           "(Optional) The data type for the elements of the output tensor, if not specified, we will use int32.",
           default("dtype", 7)),
    Mutant("RandomNormal.ignores_scale", "RandomNormal", "ignored attributes",
           "The standard deviation of the normal distribution.", ignored("scale")),
    Mutant("RandomNormalLike.ignores_mean", "RandomNormalLike", "ignored attributes",
           "The mean of the normal distribution.", ignored("mean")),
    Mutant("RandomNormalLike.float_by_default", "RandomNormalLike", "wrong defaults", LIKE_DTYPE,
           with_attributes(_float_by_default)),
    Mutant("RandomUniform.ignores_low", "RandomUniform", "ignored attributes", "Lower boundary of the output values.",
           ignored("low")),
    Mutant("RandomUniformLike.float_by_default", "RandomUniformLike", "wrong defaults", LIKE_DTYPE,
           with_attributes(_float_by_default)),
]
