"""RMSNormalization: Y = X / sqrt(mean(X^2 over [axis, ..., r-1]) + epsilon) * scale."""

import mpmath
import numpy as np

from onnx_conformance.generators.case import Case, Declared, NotApplicable, Operator
from onnx_conformance.generators.norm_family import (
    DEFAULT_EPSILON,
    attr,
    data,
    ex,
    inv_sqrt,
    magnitude,
    mp,
    rounded,
    root_steps,
    scale_data,
    stash_of,
    tolerance,
)
from onnx_conformance.generators.rounding import PREC

OPERATOR = Operator("RMSNormalization", primary="T", defaults={"V": lambda v, b: b["T"]})


# The schema types X as T and scale and Y as V, but onnx's type inference gives Y the type of X:
# a model with V != T fails the full checker ('Y has inconsistent type'), so none is emitted.
MIXED = ("Y is typed V ('Output data tensor. Same shape as X'), X is T; onnx 1.23's inference types Y as X, "
         "so only V = T passes the checker (the schema and its inference disagree)")


def rms_norm(v, t, x, axis=None, epsilon=None, scale_shape=None, stash=None, rng=None):
    if t["V"] != t.dtype:
        return NotApplicable(MIXED)
    r = x.ndim
    a = (-1 if axis is None else axis) % r
    axes = tuple(range(a, r))
    norm_shape = x.shape[a:] if scale_shape is None else scale_shape
    scale = scale_data(t["V"], norm_shape, rng)
    eps = attr(DEFAULT_EPSILON if epsilon is None else epsilon)
    xe = ex(x)
    n = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    ms = np.vectorize(lambda e: e / n, otypes=[object])(np.sum(xe * xe, axis=axes, keepdims=True))
    inv = inv_sqrt(ms, eps)
    with mpmath.workprec(PREC):
        y = np.vectorize(mp, otypes=[object])(xe) * inv * np.vectorize(mp, otypes=[object])(ex(scale))
    attrs = {}
    if axis is not None:
        attrs["axis"] = axis
    if epsilon is not None:
        attrs["epsilon"] = epsilon
    stash_name = "float"
    if stash is not None:
        attrs["stash_type"] = stash_of(stash)
        stash_name = stash
    tol = tolerance([t["V"]], n, magnitude(y), after=root_steps("float"), stash=stash_name,
                    stage_two=[t.dtype, t["V"]])
    return Case({"X": x, "scale": scale}, {"Y": rounded(y, t["V"])}, attrs, tolerance=tol)


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
    return Case({"X": x, "scale": scale_data(t["V"], (2, 3, 4), rng)}, {"Y": Declared(t["V"], x.shape)},
                {"axis": -4}, error="If rank(X) is r, axis' allowed range is [-r, r).")


OPERATOR.reference_differs(
    r"^\w+ b?float16: ",
    "the evaluator computes float16 and bfloat16 in the type itself; the spec's stash_type 1 "
    "computes stage one in float (ours: the exact value rounded once)",
)
OPERATOR.reference_differs(
    r"not implemented for stash_type=11",
    "the evaluator implements stash_type 1 only",
)
