"""RandomNormal: a tensor of the `shape` attribute drawn from the normal distribution (mean, scale).

Its expected value is a distribution, not a value (the semantics raises NotDeterministic): a
case is judged on its distribution (harness/distribution.py), never on its values: the spec promises
none, seed or no seed.
"""

from onnx_conformance.generators import random_family as rf
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("RandomNormal", primary="T")


@OPERATOR.semantics
def random_normal(v, attrs, inputs):
    """A tensor of the `shape` attribute drawn from the normal distribution (mean, scale): not a value."""
    raise rf.draw_of(rf.normal_distribution(attrs))


@OPERATOR.example
def default(v, t, rng):
    """mean 0, scale 1 (the defaults); dtype given where T is not float (its default)."""
    return rf.generated("normal", t, rng)


@OPERATOR.example
def mean_scale(v, t, rng):
    """A shifted, wider normal: mean and scale representable in every float type."""
    return rf.generated("normal", t, rng, -2.0, 3.0)


@OPERATOR.example
def seed(v, t, rng):
    """A seeded model runs and draws from the right distribution (seeds promise nothing across implementations)."""
    return rf.generated("normal", t, rng, seed=rf.SEED)


@OPERATOR.example
def shape_3d(v, t, rng):
    return rf.generated("normal", t, rng, 1.5, 0.5, shape=(10, 25, 40))
