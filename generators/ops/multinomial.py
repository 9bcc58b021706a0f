"""Multinomial: sample_size draws of a class index per batch row, with probabilities the softmax
of the row ("the unnormalized log-probability of each corresponding outcome").

Its expected value is a distribution, not a value (the semantics raises NotDeterministic): a
case is judged on its distribution (harness/distribution.py): every draw a class of the row, then
Pearson's chi-square per row (Bonferroni across rows). With one class (class_size 1) every draw is
that class, 0: a value, which the semantics gives.
"""

import numpy as np

from onnx_conformance.generators import random_family as rf
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import elem_type_of, name_of, numpy_of

OPERATOR = Operator("Multinomial", primary="T1", defaults={"T2": "int32"})  # dtype's default: int32


@OPERATOR.semantics
def multinomial(v, attrs, inputs):
    """sample_size draws per row of a class index, 'the unnormalized log-probability of each corresponding outcome'
    the row's values (probabilities their softmax): a draw, not a value. The input is [batch_size, class_size]."""
    x = inputs["input"]
    if x.ndim != 2:
        raise Rejected(f"input: {v.schema.inputs[0].description.split('.')[0]} (given rank {x.ndim})")
    if x.shape[1] == 1 and np.isfinite(np.asarray(x, np.float64)).all():
        # one outcome of probability 1 per row: every draw is class 0, in dtype ('we will use int32')
        out_type = name_of(attr(attrs, "dtype", elem_type_of("int32")))
        return {"output": np.zeros((x.shape[0], attr(attrs, "sample_size", 1)), numpy_of(out_type))}
    raise rf.draw_of("the categorical distributions of the rows' softmax")


@OPERATOR.example
def default(v, t, rng):
    """Three rows of four outcomes, 2,000 draws each; dtype given where T2 is not int32."""
    return rf.multinomial(t, rng)


@OPERATOR.example
def seed(v, t, rng):
    """A seeded model runs and draws from the right distribution (seeds promise nothing across implementations)."""
    if t.suffix:
        return NotApplicable("the seed example runs in int32 output; int64 is covered by `default`")
    return rf.multinomial(t, rng, seed=rf.SEED)


@OPERATOR.example
def one_sample(v, t, rng):
    """sample_size left out (1): one draw per row, each a class of the row."""
    if t.suffix:
        return NotApplicable("the sample_size example runs in int32 output; int64 is covered by `default`")
    return rf.multinomial(t, rng, sample_size=1)


@OPERATOR.example
def one_class(v, t, rng):
    """class_size 1: every draw is class 0 whatever the logit, so the output is a value (the sample's
    type shows: int32 where dtype is left out); two rows of one class, 5 draws each."""
    x = rf.rounded([[0.5], [-3.0]], t["T1"])
    attrs = {"sample_size": 5}
    if t["T2"] != "int32":
        attrs["dtype"] = elem_type_of(t["T2"])
    return OPERATOR.expect(v, {"input": x}, attrs,
                           tolerance={"distribution": {"kind": "multinomial", "p": [[1.0], [1.0]]}})


OPERATOR.reference_differs(r"No registered implementation for operator 'Multinomial'",
                           "onnx's ReferenceEvaluator has no Multinomial kernel (and the schema no function body)")
