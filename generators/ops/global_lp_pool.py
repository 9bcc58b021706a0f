"""GlobalLpPool: (sum over all spatial positions of |x|^p)^(1/p) per (image, channel): exact sum, one mpmath root."""

import numpy as np

from onnx import AttributeProto

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.pool_family import (documented, global_windows, lp, lp_quality, lp_tolerance, pooled,
                                                     random)
from onnx_conformance.generators.semantics import Rejected, attr

OPERATOR = Operator("GlobalLpPool")


@OPERATOR.semantics
def global_lp_pool(v, attrs, inputs):
    """(sum over all spatial positions of |x|^p)^(1/p) per (image, channel), p default 2 ('default is 2.0'
    in version 1, 2 from version 2): the exact sum, one root, rounded once to T."""
    x = inputs["X"]
    if x.ndim < 2:
        raise Rejected("X: '(N x C x H x W)' or '(N x C x D1 x D2 ... Dn)'")
    shape, wins = global_windows(x)
    y, _, _ = lp(x, shape, wins, attr(attrs, "p", 2))
    return {"Y": pooled(y, x)}


def case(v, t, x, p=None):
    """p None leaves the attribute out; the tolerance of the sum and the root for this data."""
    attrs = {}
    if p is not None:
        attrs["p"] = float(p) if v.schema.attributes["p"].type == AttributeProto.FLOAT else int(p)
    shape, wins = global_windows(x)
    use_p = 2 if p is None else p
    _, n, largest = lp(x, shape, wins, use_p)
    case = OPERATOR.expect(v, {"X": x}, attrs, tolerance=lp_tolerance(t.dtype, n, largest, use_p))
    case.quality = lp_quality(x, shape, wins, use_p, case.outputs["Y"])
    return case


def small(t, shape, rng):
    return random(t, shape, rng) / 8  # |x|^p stays far from overflow


@OPERATOR.example
def default(v, t, rng):
    return case(v, t, small(t, (1, 3, 5, 5), rng))


@OPERATOR.example
def precomputed(v, t, rng):
    """3 x 3 of 1..9, p = 2: sqrt(285)."""
    return case(v, t, documented(t, [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]), p=2)


@OPERATOR.example
def p1(v, t, rng):
    return case(v, t, small(t, (2, 2, 3, 3), rng), p=1)


@OPERATOR.example
def p3_1d(v, t, rng):
    return case(v, t, small(t, (2, 3, 7), rng), p=3)


@OPERATOR.example
def p4_3d(v, t, rng):
    return case(v, t, small(t, (1, 2, 3, 2, 2), rng), p=4)


@OPERATOR.example
def ieee_specials(v, t, rng):
    """An infinity of either sign makes its channel +inf; NaN makes it NaN."""
    x = small(t, (1, 3, 2, 2), rng).astype(np.float64)
    x[0, 0, 0, 0], x[0, 1, 1, 1], x[0, 2, 0, 1] = np.inf, -np.inf, np.nan
    return case(v, t, x.astype(t.np()), p=2)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"No registered implementation for operator 'GlobalLpPool'",
    "the evaluator has no GlobalLpPool",
)
