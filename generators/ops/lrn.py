"""LRN: Y = X / (bias + alpha / size * square_sum) ^ beta, square_sum over the channels
max(0, c - floor((size - 1) / 2)) ... min(C - 1, c + ceil((size - 1) / 2))."""

import math

import mpmath
import numpy as np

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.norm_family import float_attr, data, ex, magnitude, mp, rounded, tolerance
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("LRN")


def response(x, attrs: dict) -> np.ndarray:
    """X / (bias + alpha / size * square_sum) ^ beta in mpmath at PREC bits (square_sum exact), the FLOAT
    attributes at their float32 values (defaults alpha 1e-4, beta 0.75, bias 1)."""
    size = attrs.get("size")
    if size is None or size < 1:
        raise Rejected("size: 'The number of channels to sum over'")
    if x.ndim < 2:
        raise Rejected("X: '(N x C x D1 x D2 ... Dn)'")
    a = float_attr(attr(attrs, "alpha", 1e-4))
    b = float_attr(attr(attrs, "beta", 0.75))
    k = float_attr(attr(attrs, "bias", 1.0))
    xe = ex(x)
    c_count = x.shape[1]
    sq = xe * xe
    base = np.empty(x.shape, dtype=object)
    for c in range(c_count):
        lo = max(0, c - math.floor((size - 1) / 2))
        hi = min(c_count - 1, c + math.ceil((size - 1) / 2))
        base[:, c] = k + a / size * np.sum(sq[:, lo:hi + 1], axis=1)
    if any(d <= 0 for d in base.reshape(-1)):
        raise Undefined("bias + alpha / size * square_sum <= 0: its power beta has no real value")
    with mpmath.workprec(PREC):
        y = np.vectorize(lambda e, d: _quotient(e, d, b), otypes=[object])(xe, base)
    return np.asarray(y, dtype=object).reshape(x.shape)


def _quotient(e, d, b):
    """e / d ^ b: exact e and d in mpmath; where d is NaN or +inf (a NaN or an infinity in the window), IEEE
    754's pow and division (d ^ 0 is 1; inf ^ b is 0 for a negative b, and e / 0 is +-inf, or NaN for e 0)."""
    if not isinstance(d, float):
        return mp(e) / mpmath.power(mp(d), mp(b))
    p = math.pow(d, float(b))
    if p == 0:
        return mpmath.nan if e == 0 or e != e else mpmath.mpf(math.copysign(math.inf, e))
    return mp(e) / mpmath.mpf(p)


@OPERATOR.semantics
def lrn(v, attrs, inputs):
    """Y[n, c, d...] = X[n, c, d...] / (bias + alpha / size * square_sum[n, c, d...]) ^ beta, square_sum over
    the channels max(0, c - floor((size - 1) / 2)) ... min(C - 1, c + ceil((size - 1) / 2)); rounded once to T."""
    x = inputs["X"]
    return {"Y": rounded(response(x, attrs), name_of_numpy(x.dtype))}


def case(v, t, x, size, alpha=None, beta=None, bias=None):
    """The case: the attributes given, the semantics' Y, the tolerance of a size-term sum, a pow and a division."""
    attrs = {"size": size}
    attrs.update({n: val for n, val in (("alpha", alpha), ("beta", beta), ("bias", bias)) if val is not None})
    after = (budget("pow", t.dtype) or {"ulp": 0})["ulp"] + (budget("div", t.dtype) or {"ulp": 0})["ulp"]
    return OPERATOR.expect(v, {"X": x}, attrs,
                           tolerance=tolerance([t.dtype], size, magnitude(response(x, attrs)), after=after))


@OPERATOR.example
def lrn_(v, t, rng):
    """onnx's test_lrn: alpha 0.0002, beta 0.5, bias 2, size 3 (a (2, 5, 3, 3) input)."""
    return case(v, t, data(t.dtype, (2, 5, 3, 3), rng), 3, alpha=0.0002, beta=0.5, bias=2.0)


OPERATOR.examples["lrn"] = OPERATOR.examples.pop("lrn_")


@OPERATOR.example
def default(v, t, rng):
    """onnx's test_lrn_default: size 3, the other attributes at their defaults."""
    return case(v, t, data(t.dtype, (2, 5, 3, 3), rng), 3)


@OPERATOR.example
def size_even(v, t, rng):
    """size 4: the window reaches floor(3/2) = 1 channel back and ceil(3/2) = 2 forward."""
    return case(v, t, data(t.dtype, (1, 6, 2, 3), rng), 4, alpha=0.001, beta=0.75, bias=1.0)


@OPERATOR.example
def size_1(v, t, rng):
    """size 1: each element's own square only."""
    return case(v, t, data(t.dtype, (2, 3, 2, 2), rng), 1, alpha=0.01, beta=1.0, bias=0.5)


@OPERATOR.example
def size_beyond_channels(v, t, rng):
    """size 7 with 4 channels: the window is clipped at both ends for every channel."""
    return case(v, t, data(t.dtype, (1, 4, 3, 3), rng), 7, alpha=0.003, beta=0.6, bias=1.5)


@OPERATOR.example
def rank3(v, t, rng):
    """(N x C x D1): one spatial dimension."""
    return case(v, t, data(t.dtype, (2, 5, 4), rng), 5, alpha=0.0005, beta=0.75, bias=1.0)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^(lrn|default|size_even|size_1|size_beyond_channels) \w+: .*values differ",
    "the evaluator fills square_sum in a loop over range(x.shape[0]), the batch size, instead of the "
    "channels: channels from N on keep square_sum 0 (onnxruntime agrees with ours)",
)
OPERATOR.reference_differs(
    r"^rank3 \w+: .*LRN only applies on 4D tensors",
    "the evaluator takes 4-D input only; the spec's X is '(N x C x D1 x D2 ... Dn)' for the non-image case "
    "and defines the region for any X[n, c, d1, ..., dk]",
)
