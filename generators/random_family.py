"""Random operators: RandomUniform(Like), RandomNormal(Like), Bernoulli, Multinomial.

Their values cannot be expected: "This operator is non-deterministic and may not produce the same
values in different implementations (even if a seed is specified)." A case's output file holds one
draw of our own with the right shape and type (an example value, not an answer), and its tolerance
{"distribution": {...}} has harness/distribution.py judge the backend's draw: shape and type
exactly, every value possible, then a goodness-of-fit test at p < 1e-6.
"""

from __future__ import annotations

import mpmath
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Case, NotApplicable
from onnx_conformance.generators.semantics import NotDeterministic, attr
from onnx_conformance.harness.dtypes import elem_type_of, numpy_of

# ~10,000 values: enough for a Kolmogorov-Smirnov test to see a normal 25% too wide (D ~ 0.07
# against a critical 0.027 at p = 1e-6), few enough for a small case.
DRAW_SHAPE = (100, 100)
# Shapes only: where the input type merely gives the output's shape (the *Like operators' other
# input types), a smaller draw still checks the type and the distribution.
SMALL_SHAPE = (20, 50)
SEED = 1234.0
FLOATS = ("float16", "bfloat16", "float", "double")
NON_DETERMINISTIC = ("This operator is non-deterministic and may not produce the same values in different "
                     "implementations (even if a seed is specified)")


def draw_of(distribution: str):
    """NotDeterministic: the outputs are a draw from `distribution` (the spec fixes it, not the values)."""
    return NotDeterministic(f"a draw from {distribution}: {NON_DETERMINISTIC}")


def uniform_distribution(attrs: dict) -> str:
    """'low' (default 0) and 'high' (default 1), the float32 they hold."""
    low, high = float(np.float32(attr(attrs, "low", 0.0))), float(np.float32(attr(attrs, "high", 1.0)))
    return f"the uniform distribution on [{low}, {high})"


def normal_distribution(attrs: dict) -> str:
    """'mean' (default 0) and 'scale', 'The standard deviation' (default 1), the float32 they hold."""
    mean, scale = float(np.float32(attr(attrs, "mean", 0.0))), float(np.float32(attr(attrs, "scale", 1.0)))
    return f"the normal distribution of mean {mean} and standard deviation {scale}"


def rounded(x, type_name: str) -> np.ndarray:
    return np.asarray(x, np.float64).astype(numpy_of(type_name))


def uniform_spec(low: float, high: float) -> dict:
    return {"distribution": {"kind": "uniform", "low": float(np.float32(low)), "high": float(np.float32(high))}}


def normal_spec(mean: float, scale: float) -> dict:
    return {"distribution": {"kind": "normal", "mean": float(np.float32(mean)), "scale": float(np.float32(scale))}}


def draw(kind: str, type_name: str, shape, rng: np.random.Generator, a: float, b: float) -> np.ndarray:
    """One draw of ours, rounded to the output type (the example value an output file holds)."""
    if kind == "uniform":
        x = rng.uniform(a, b, size=shape)
    else:
        x = rng.normal(a, b, size=shape)
    return rounded(x, type_name)


def _attrs(low_key, high_key, a, b, defaults, seed):
    out = {}
    if (a, b) != defaults:
        out[low_key], out[high_key] = float(a), float(b)
    if seed is not None:
        out["seed"] = float(seed)
    return out


def generated(kind: str, t, rng, a=None, b=None, seed=None, shape=DRAW_SHAPE) -> Case:
    """RandomUniform / RandomNormal: no input; shape and dtype as attributes (dtype omitted for float, its default)."""
    keys, defaults = (("low", "high"), (0.0, 1.0)) if kind == "uniform" else (("mean", "scale"), (0.0, 1.0))
    a = defaults[0] if a is None else a
    b = defaults[1] if b is None else b
    out_type = t["T"]
    attrs = {"shape": list(shape), **_attrs(*keys, a, b, defaults, seed)}
    if out_type != "float":
        attrs["dtype"] = elem_type_of(out_type)
    tol = uniform_spec(a, b) if kind == "uniform" else normal_spec(a, b)
    return Case({}, {"output": draw(kind, out_type, shape, rng, a, b)}, attrs, tolerance=tol)


def like(kind: str, t, rng, a=None, b=None, seed=None) -> Case:
    """RandomUniformLike / RandomNormalLike: the output takes the input's shape, and its type
    ('dtype' ..., or copied from the input tensor if not provided): dtype is given only where the
    output type differs from the input's."""
    keys, defaults = (("low", "high"), (0.0, 1.0)) if kind == "uniform" else (("mean", "scale"), (0.0, 1.0))
    a = defaults[0] if a is None else a
    b = defaults[1] if b is None else b
    in_type, out_type = t["T1"], t["T2"]
    shape = DRAW_SHAPE if in_type == out_type else SMALL_SHAPE
    x = values.sample(in_type, shape, rng)
    attrs = _attrs(*keys, a, b, defaults, seed)
    if in_type != out_type:
        attrs["dtype"] = elem_type_of(out_type)
    tol = uniform_spec(a, b) if kind == "uniform" else normal_spec(a, b)
    return Case({"input": x}, {"output": draw(kind, out_type, shape, rng, a, b)}, attrs, tolerance=tol)


def attribute_example(t) -> NotApplicable | None:
    """Attribute examples (range, seed) run where the input type is the output type, in the float
    types; any other input type only gives the shape, and `default` covers it."""
    if "T1" in t and t["T1"] != t["T2"]:
        return NotApplicable("attribute examples run where the input and output types agree; "
                             "this input type only gives the shape and is covered by `default`")
    return None


# ---------------------------------------------------------------------------------------------
# Bernoulli

# Probabilities tiled over the input: 0 and 1 (every value forced), and three in between, each
# exactly representable or rounded once to the input type (the case states the rounded value).
BERNOULLI_P = [0.0, 0.1, 0.5, 0.875, 1.0]
BERNOULLI_SHAPE = (2000, 5)


def bernoulli(t, rng, seed=None) -> Case:
    in_type, out_type = t["T1"], t["T2"]
    p = rounded(np.tile(BERNOULLI_P, (BERNOULLI_SHAPE[0], 1)), in_type)
    exact_p = [float(q) for q in p[0].astype(np.float64)]
    ours = (rng.random(BERNOULLI_SHAPE) < p.astype(np.float64)).astype(numpy_of(out_type))
    attrs = {}
    if in_type != out_type:
        attrs["dtype"] = elem_type_of(out_type)
    if seed is not None:
        attrs["seed"] = float(seed)
    return Case({"input": p}, {"output": ours}, attrs,
                tolerance={"distribution": {"kind": "bernoulli", "p": exact_p}})


# ---------------------------------------------------------------------------------------------
# Multinomial

# Unnormalized log-probabilities, one row per batch: a skewed row, a flat one, a mixed-sign one.
MULTINOMIAL_LOGITS = [
    [float(np.log(0.1)), float(np.log(0.2)), float(np.log(0.3)), float(np.log(0.4))],
    [0.0, 0.0, 0.0, 0.0],
    [-1.0, 2.0, 0.5, 1.0],
]
SAMPLE_SIZE = 2000


def softmax_exact(row) -> list[float]:
    """Each outcome's probability from its unnormalized log-probability (the input as stored)."""
    with mpmath.workdps(50):
        e = [mpmath.exp(mpmath.mpf(float(x))) for x in row]
        s = mpmath.fsum(e)
        return [float(x / s) for x in e]


def multinomial(t, rng, sample_size=SAMPLE_SIZE, seed=None) -> Case:
    in_type, out_type = t["T1"], t["T2"]
    logits = rounded(MULTINOMIAL_LOGITS, in_type)
    probs = [softmax_exact(row) for row in logits.astype(np.float64)]
    ours = np.array([rng.choice(len(p), size=sample_size, p=np.array(p) / sum(p)) for p in probs],
                    dtype=numpy_of(out_type))
    attrs = {}
    if sample_size != 1:
        attrs["sample_size"] = sample_size
    if out_type != "int32":
        attrs["dtype"] = elem_type_of(out_type)
    if seed is not None:
        attrs["seed"] = float(seed)
    return Case({"input": logits}, {"output": ours}, attrs,
                tolerance={"distribution": {"kind": "multinomial", "p": probs}})

