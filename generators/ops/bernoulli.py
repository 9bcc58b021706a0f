"""Bernoulli: 1 with probability p (the input), else 0, in the input's type or `dtype`.

Its expected value is a distribution, not a value (the semantics raises NotDeterministic): a
case is judged on its distribution (harness/distribution.py): exactly 0 where p = 0 and 1 where p = 1,
an exact binomial test for each probability in between. Per the text: "an output of 1 is produced
with probability p". The schema's function body (RandomUniformLike, then Greater(X_random, input))
outputs 1 with probability 1 - p instead: the text is followed here, the contradiction reported.
"""

import numpy as np

from onnx_conformance.generators import random_family as rf
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.semantics import Rejected

OPERATOR = Operator("Bernoulli", primary="T1", defaults={
    # dtype left out: "we will use the data type of the input tensor"
    "T2": lambda v, binding: binding["T1"]})


@OPERATOR.semantics
def bernoulli(v, attrs, inputs):
    """Each element 1 'with probability p' (the input's element), else 0: a draw, not a value. 'All values in
    input have to be in the range:[0, 1].'"""
    p = np.asarray(inputs["input"], np.float64)
    if p.size and not ((p >= 0) & (p <= 1)).all():
        raise Rejected(f"input: {v.schema.inputs[0].description}")
    raise rf.draw_of("Bernoulli distributions of the input's probabilities")


@OPERATOR.example
def default(v, t, rng):
    """p tiled over 0, 0.1, 0.5, 0.875, 1 (10,000 draws); dtype given where the output type differs from the input's."""
    return rf.bernoulli(t, rng)


@OPERATOR.example
def seed(v, t, rng):
    """A seeded model runs and draws from the right distribution (onnx's test_bernoulli_seed)."""
    if t["T1"] != t["T2"]:
        return NotApplicable("the seed example runs with dtype left out; output types are covered by `default`")
    return rf.bernoulli(t, rng, seed=0.0)
