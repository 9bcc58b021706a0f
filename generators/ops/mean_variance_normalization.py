"""MeanVarianceNormalization: (X - E[X]) / sqrt(E[(X - E[X])^2]) over axes (default [0, 2, 3]).

The schema's function body adds a float constant 1e-9 to the root before dividing
(Processed_STD = Add(STD, Epsilon)) and runs every step in X's type: the oracle follows it,
exactly: (x - mean) / (sqrt(E[x^2] - mean^2) + float32(1e-9)).
"""

import mpmath
import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.norm_family import float_attr, documented, ex, magnitude, mean_var, mp, per_element, rounded, root_steps, scale_data, tolerance
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("MeanVarianceNormalization")

EPSILON = 1e-9  # the function body's Constant <value: tensor = float {1e-09}>

DOC = [
    [[[0.8439683], [0.5665144], [0.05836735]], [[0.02916367], [0.12964272], [0.5060197]],
     [[0.79538304], [0.9411346], [0.9546573]]],
    [[[0.17730942], [0.46192095], [0.26480448]], [[0.6746842], [0.01665257], [0.62473077]],
     [[0.9240844], [0.9722341], [0.11965699]]],
    [[[0.41356155], [0.9129373], [0.59330076]], [[0.81929934], [0.7862604], [0.11799799]],
     [[0.69248444], [0.54119414], [0.07513223]]],
]


# The function body's Constants (Exponent = float {2}, Epsilon = float {1e-09}) feed Pow and Add with
# X's type: onnx's type inference refuses every model whose X is not float ('Y has inconsistent type').
NOT_FLOAT = ("the schema's function body (Exponent = Constant <value: tensor = float {2}>, Epsilon = float "
             "{1e-09}) mixes float constants with X's type in Pow and Add; onnx 1.23's checker refuses every "
             "model whose X is {t} (the schema allows the type, its function body does not)")


# From version 13 the function body reads the attribute as axes = Constant <value_ints: ints = @axes>:
# with axes left out the Constant has no value and onnx's checker refuses the model.
NO_AXES = ("axes left out: MeanVarianceNormalization-{v}'s function body (axes = Constant <value_ints: ints = "
           "@axes>) gets no value and onnx 1.23's checker refuses the model ('One and only one of the attributes "
           "'value', 'value_*' or 'sparse_value' must be specified'), though 'The default is to calculate along "
           "axes [0,2,3]'; axes_0_2_3 states the default explicitly")


def normalized(x, attrs: dict):
    """(x - E[x]) / (sqrt(E[(x - E[x])^2]) + float32(1e-9)) over axes (default [0, 2, 3]) in mpmath at PREC
    bits, the statistics exact; also the magnitude the function body's E[x^2] - E[x]^2 rounding is scaled
    by, and the group size."""
    axes = list(attr(attrs, "axes", [0, 2, 3]))
    if any(not -x.ndim <= a < x.ndim for a in axes) or len({a % x.ndim for a in axes}) != len(axes):
        raise Rejected(f"axes: 'A list of integers, along which to reduce.' ({axes} for an input of rank {x.ndim})")
    use = tuple(a % x.ndim for a in axes)
    xe = ex(x)
    mean, var, n = mean_var(xe, use)
    eps = float_attr(EPSILON)
    with mpmath.workprec(PREC):
        std = np.vectorize(lambda e: mpmath.sqrt(mp(e)), otypes=[object])(var)
        y = np.vectorize(mp, otypes=[object])(xe - mean) / (std + mp(eps))
        # E[X^2] - E[X]^2 cancels by E[X^2] / Var: the function body's own rounding, scaled
        sq = np.vectorize(lambda e: per_element(e, n), otypes=[object])(np.sum(xe * xe, axis=use, keepdims=True))
        amp = np.vectorize(lambda s, w: mp(s) / mp(w) if w else mpmath.mpf(1), otypes=[object])(sq, var)
        mag = magnitude(np.vectorize(lambda a, b: abs(a) * (1 + b), otypes=[object])(y, amp))
    return y, mag, n


@OPERATOR.semantics
def mean_variance_normalization(v, attrs, inputs):
    """Y = (X - E[X]) / (sqrt(E[(X - E[X])^2]) + 1e-9) over axes, as the schema's function body adds its
    float constant Epsilon to the root; rounded once to T."""
    x = inputs["X"]
    y, _, _ = normalized(x, attrs)
    return {"Y": rounded(y, name_of_numpy(x.dtype))}


def mvn(v, t, x, axes=None):
    """The case: the semantics' Y, the tolerance of this data's statistics, root and division."""
    if t.dtype != "float":
        return NotApplicable(NOT_FLOAT.replace("{t}", t.dtype))
    if axes is None and v.since_version >= 13:
        return NotApplicable(NO_AXES.format(v=v.since_version))
    attrs = {} if axes is None else {"axes": list(axes)}
    _, mag, n = normalized(x, attrs)
    return OPERATOR.expect(v, {"X": x}, attrs,
                           tolerance=tolerance([t.dtype], n, mag, after=root_steps(t.dtype), stash=t.dtype))


@OPERATOR.example
def mvn_(v, t, rng):
    """onnx's test_mvn: (3, 3, 3, 1), the default axes [0, 2, 3]."""
    return mvn(v, t, documented(DOC, t.dtype))


OPERATOR.examples["mvn"] = OPERATOR.examples.pop("mvn_")


@OPERATOR.example
def default_axes_random(v, t, rng):
    """(2, 3, 2, 4) signed data in [-4, 4], the default axes."""
    return mvn(v, t, scale_data(t.dtype, (2, 3, 2, 4), rng))


@OPERATOR.example
def axes_0_2_3(v, t, rng):
    """onnx's test_mvn data with the default axes [0, 2, 3] written out."""
    return mvn(v, t, documented(DOC, t.dtype), axes=[0, 2, 3])


@OPERATOR.example
def axes_all(v, t, rng):
    """axes [0, 1, 2, 3]: one mean and variance for the whole tensor."""
    return mvn(v, t, scale_data(t.dtype, (2, 3, 2, 2), rng), axes=[0, 1, 2, 3])


@OPERATOR.example
def axes_2_3(v, t, rng):
    """axes [2, 3]: per instance and channel (instance normalization without scale)."""
    return mvn(v, t, scale_data(t.dtype, (2, 2, 3, 3), rng), axes=[2, 3])


@OPERATOR.example
def rank2_axis_1(v, t, rng):
    """A (4, 6) input normalized along axis 1."""
    return mvn(v, t, scale_data(t.dtype, (4, 6), rng), axes=[1])


@OPERATOR.example
def rank3_axes_0_2(v, t, rng):
    """A (3, 2, 5) input normalized over axes 0 and 2."""
    return mvn(v, t, scale_data(t.dtype, (3, 2, 5), rng), axes=[0, 2])
