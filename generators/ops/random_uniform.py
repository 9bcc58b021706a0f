"""RandomUniform: a tensor of the `shape` attribute drawn from the uniform distribution on [low, high).

Its expected value is a distribution, not a value (the semantics raises NotDeterministic): a
case is judged on its distribution (harness/distribution.py), never on its values: the spec promises
none, seed or no seed.
"""

from onnx_conformance.generators import random_family as rf
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("RandomUniform", primary="T")


@OPERATOR.semantics
def random_uniform(v, attrs, inputs):
    """A tensor of the `shape` attribute drawn from the uniform distribution on [low, high): not a value."""
    raise rf.draw_of(rf.uniform_distribution(attrs))


@OPERATOR.example
def default(v, t, rng):
    """low 0, high 1 (the defaults); dtype given where T is not float (its default)."""
    return rf.generated("uniform", t, rng)


@OPERATOR.example
def low_high(v, t, rng):
    """A range away from [0, 1), both ends representable in every float type."""
    return rf.generated("uniform", t, rng, -2.5, 4.0)


@OPERATOR.example
def seed(v, t, rng):
    """A seeded model runs and draws from the right distribution (seeds promise nothing across implementations)."""
    return rf.generated("uniform", t, rng, seed=rf.SEED)


@OPERATOR.example
def shape_3d(v, t, rng):
    return rf.generated("uniform", t, rng, -1.0, 1.0, shape=(10, 25, 40))
