"""RandomNormalLike: the input's shape, values drawn from the normal distribution (mean, scale).

The output type is `dtype`, 'or copied from the input tensor if not provided'. Its expected value is a
distribution, not a value (the semantics raises NotDeterministic): a case is judged on its distribution
(harness/distribution.py), never on its values.
"""

from onnx_conformance.generators import random_family as rf
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("RandomNormalLike", primary="T1", defaults={
    # the input's own type where it is a valid output type (dtype left out), else float
    "T2": lambda v, binding: binding["T1"] if binding["T1"] in v.type_params["T2"] else "float"})


@OPERATOR.semantics
def random_normal_like(v, attrs, inputs):
    """A tensor of the input's shape drawn from the normal distribution (mean, scale): not a value."""
    raise rf.draw_of(rf.normal_distribution(attrs))


@OPERATOR.example
def default(v, t, rng):
    return rf.like("normal", t, rng)


@OPERATOR.example
def mean_scale(v, t, rng):
    return rf.attribute_example(t) or rf.like("normal", t, rng, -2.0, 3.0)


@OPERATOR.example
def seed(v, t, rng):
    """A seeded model runs and draws from the right distribution (seeds promise nothing across implementations)."""
    return rf.attribute_example(t) or rf.like("normal", t, rng, seed=rf.SEED)
