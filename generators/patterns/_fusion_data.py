"""Data the fusion patterns share: values every element type holds exactly, so a pattern's expected
value is the graph's own and a wrong rewrite is the only way to be far from it."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.graphs import FLOATS, cast_to


def quarters(t, rng, shape, low=-4, high=4):
    """Multiples of 1/4 in [low, high] for floats, integers in [low, high] for integers (from 0 in an
    unsigned type): exact in every type, bfloat16 included, and their small sums and products too."""
    if t in FLOATS:
        return cast_to(rng.integers(int(low * 4), int(high * 4) + 1, size=shape) / 4, t)
    return cast_to(rng.integers(max(int(low), 0) if t.startswith("uint") else int(low), int(high) + 1, size=shape), t)


def normal(t, rng, shape, scale=1.0):
    """Gaussian values rounded to t, for the patterns whose constants are not exact anyway."""
    return cast_to(rng.normal(0.0, scale, size=shape), t)


def fractional(t, what):
    """NotApplicable in an integer type for a pattern whose constants are fractions (GELU's 0.5 and
    1/sqrt(2), a softmax's exp): in integers the graph would be another function, which no optimizer
    fuses; None in a floating type."""
    return None if t in FLOATS else NotApplicable(f"{what} are not integers: in {t} the graph is another function")


def with_specials(x, t, *specials):
    """x (an array of t) with its first elements replaced by the given specials (nan, inf, -inf); in an
    integer type, which holds none, x unchanged: the operators' type check refuses such a pattern
    there, or its example says it is not applicable."""
    if t not in FLOATS:
        return x
    x = np.array(x)
    flat = x.reshape(-1)
    flat[:len(specials)] = cast_to(list(specials), t)
    return flat.reshape(x.shape)
