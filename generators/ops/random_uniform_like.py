"""RandomUniformLike: the input's shape, values drawn from the uniform distribution on [low, high).

The output type is `dtype`, 'or copied from the input tensor if not provided'. Its expected value is a
distribution, not a value (the semantics raises NotDeterministic): a case is judged on its distribution
(harness/distribution.py), never on its values.
"""

from onnx_conformance.generators import random_family as rf
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("RandomUniformLike", primary="T1", defaults={
    # the input's own type where it is a valid output type (dtype left out), else float
    "T2": lambda v, binding: binding["T1"] if binding["T1"] in v.type_params["T2"] else "float"})


@OPERATOR.semantics
def random_uniform_like(v, attrs, inputs):
    """A tensor of the input's shape drawn from the uniform distribution on [low, high): not a value."""
    raise rf.draw_of(rf.uniform_distribution(attrs))


@OPERATOR.example
def default(v, t, rng):
    return rf.like("uniform", t, rng)


@OPERATOR.example
def low_high(v, t, rng):
    return rf.attribute_example(t) or rf.like("uniform", t, rng, -2.5, 4.0)


@OPERATOR.example
def seed(v, t, rng):
    """A seeded model runs and draws from the right distribution (seeds promise nothing across implementations)."""
    return rf.attribute_example(t) or rf.like("uniform", t, rng, seed=rf.SEED)
