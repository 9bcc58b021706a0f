"""RMSNormalization: Y = X / sqrt(mean(X^2 over [axis, ..., r-1]) + epsilon) * scale."""

import mpmath
import numpy as np

from onnx_conformance.generators.case import Declared, NotApplicable, Operator
from onnx_conformance.generators.norm_family import (
    DEFAULT_EPSILON,
    broadcasts_to,
    float_attr,
    data,
    ex,
    inv_sqrt,
    magnitude,
    mp,
    per_element,
    rounded,
    root_steps,
    scale_data,
    stash_of,
    tolerance,
)
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("RMSNormalization", primary="T", defaults={"V": lambda v, b: b["T"]})


# The schema types X as T and scale and Y as V, but onnx's type inference gives Y the type of X:
# a model with V != T fails the full checker ('Y has inconsistent type'), so none is emitted.
MIXED = ("Y is typed V ('Output data tensor. Same shape as X'), X is T; onnx 1.23's inference types Y as X, "
         "so only V = T passes the checker (the schema and its inference disagree)")


AXIS_RULE = "If rank(X) is r, axis' allowed range is [-r, r)."


def normalized(attrs: dict, x, scale):
    """X / sqrt(mean(X^2 over [axis, ..., r-1]) + epsilon) * scale in mpmath at PREC bits (the mean exact);
    also the group size. scale 'should be broadcastable to the normalized shape'."""
    r = x.ndim
    axis = attr(attrs, "axis", -1)
    if not -r <= axis < r:
        raise Rejected(AXIS_RULE)
    a = axis % r
    if not broadcasts_to(scale.shape, x.shape[a:]):
        raise Rejected("scale: 'Scale tensor shape should be broadcastable to the normalized shape.'")
    axes = tuple(range(a, r))
    eps = float_attr(attr(attrs, "epsilon", DEFAULT_EPSILON))
    xe = ex(x)
    n = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    ms = np.vectorize(lambda e: per_element(e, n), otypes=[object])(np.sum(xe * xe, axis=axes, keepdims=True))
    inv = inv_sqrt(ms, eps)
    with mpmath.workprec(PREC):
        y = np.vectorize(mp, otypes=[object])(xe) * inv * np.vectorize(mp, otypes=[object])(ex(scale))
    return y, n


@OPERATOR.semantics
def rms_normalization(v, attrs, inputs):
    """Y = X / sqrt(mean(X^2) + epsilon) * scale, rounded once to V (scale's type)."""
    x, scale = inputs["X"], inputs["scale"]
    y, _ = normalized(attrs, x, scale)
    return {"Y": rounded(y, name_of_numpy(scale.dtype))}


def rms_norm(v, t, x, axis=None, epsilon=None, scale_shape=None, stash=None, rng=None):
    """The case: scale of the normalized shape or `scale_shape`, the semantics' Y, the tolerance of this
    data's mean square in stash_type's precision (default float)."""
    if t["V"] != t.dtype:
        return NotApplicable(MIXED)
    a = (-1 if axis is None else axis) % x.ndim
    norm_shape = x.shape[a:] if scale_shape is None else scale_shape
    scale = scale_data(t["V"], norm_shape, rng)
    attrs = {}
    if axis is not None:
        attrs["axis"] = axis
    if epsilon is not None:
        attrs["epsilon"] = epsilon
    stash_name = "float"
    if stash is not None:
        attrs["stash_type"] = stash_of(stash)
        stash_name = stash
    y, n = normalized(attrs, x, scale)
    tol = tolerance([t["V"]], n, magnitude(y), after=root_steps("float"), stash=stash_name,
                    stage_two=[t.dtype, t["V"]])
    return OPERATOR.expect(v, {"X": x, "scale": scale}, attrs, tolerance=tol)


def register(name, shape, axis, epsilon=None):
    def build(v, t, rng):
        return rms_norm(v, t, data(t.dtype, shape, rng), axis, epsilon, rng=rng)

    OPERATOR.example(build, name=name)


# onnx's documented examples: every axis of a 4-D, 2-D and 3-D (epsilon 0.1) input, both spellings.
for _a in range(4):
    register(f"4d_axis{_a}", (2, 3, 4, 5), _a)
    register(f"4d_axis_negative_{4 - _a}", (2, 3, 4, 5), _a - 4)
register("default_axis", (2, 3, 4, 5), None)
for _a in range(2):
    register(f"2d_axis{_a}", (3, 4), _a)
    register(f"2d_axis_negative_{2 - _a}", (3, 4), _a - 2)
for _a in range(3):
    register(f"3d_axis{_a}_epsilon", (2, 3, 5), _a, 1e-1)
    register(f"3d_axis_negative_{3 - _a}_epsilon", (2, 3, 5), _a - 3, 1e-1)


@OPERATOR.example
def scale_broadcast(v, t, rng):
    """scale of shape (5,) broadcast over the normalized (4, 5) ('Scale tensor shape should be
    broadcastable to the normalized shape')."""
    return rms_norm(v, t, data(t.dtype, (2, 3, 4, 5), rng), 2, scale_shape=(5,), rng=rng)


@OPERATOR.example
def stash_type_double(v, t, rng):
    """stash_type = 11 (double): stage one in double ('Depending on stash_type attribute, the actual
    computation must happen in different floating-point precision')."""
    if t.dtype != "double":
        return NotApplicable("stash_type = double runs with X in double; the type is covered by default_axis")
    return rms_norm(v, t, data(t.dtype, (3, 6), rng), -1, stash="double", rng=rng)


@OPERATOR.rejection
def axis_out_of_range(v, t, rng):
    """axis = -r - 1 for a rank-r input."""
    x = data(t.dtype, (2, 3, 4), rng)
    return OPERATOR.reject(v, {"X": x, "scale": scale_data(t["V"], (2, 3, 4), rng)}, {"axis": -4},
                           {"Y": Declared(t["V"], x.shape)})


OPERATOR.reference_differs(
    r"^\w+ b?float16: ",
    "the evaluator computes float16 and bfloat16 in the type itself; the spec's stash_type 1 "
    "computes stage one in float (ours: the exact value rounded once)",
)
OPERATOR.reference_differs(
    r"not implemented for stash_type=11",
    "the evaluator implements stash_type 1 only",
)
