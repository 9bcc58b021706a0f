"""Normalizer (ai.onnx.ml): each row of X divided by its max, its sum, or its L2 norm, as float."""

import mpmath

from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.ml_family import data, exact_of, ml_operator, rounded
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.semantics import Rejected, Undefined, attr

OPERATOR = ml_operator("Normalizer")


@OPERATOR.semantics
def normalize(v, attrs, inputs):
    """'Max: Y = X / max(X)', 'L1: Y = X / sum(X)', 'L2: Y = sqrt(X^2 / sum(X^2))', row by row of an [N,C] X
    ([C]: one row); 'In all modes, if the divisor is zero, Y == X.' Exact, rounded once to float.
    For a row with a negative element the L1 and L2 formulas disagree with the norms they are named
    after (sum |x|; the sign kept): no value is stated there."""
    x = inputs["X"]
    kind = attr(attrs, "norm", "MAX")
    if x.ndim not in (1, 2):
        raise Rejected(f"X: {v.schema.inputs[0].description} (given rank {x.ndim})")
    if kind not in ("MAX", "L1", "L2"):
        raise Rejected(f"norm: {v.schema.attributes['norm'].description} (given {kind!r})")
    c = x.shape[-1]
    ex = exact_of(x)
    out = []
    for r in range(x.size // c if c else 0):
        row = ex[r * c:(r + 1) * c]
        if kind != "MAX" and any(e < 0 for e in row):
            raise Undefined(f"norm {kind} of a row with a negative element: the spec's formula and the {kind} "
                            "norm it is named after (|x| summed, the sign kept) disagree")
        if kind == "MAX":
            d = max(row)
            out += [e / d if d else e for e in row]
        elif kind == "L1":
            d = sum(row)
            out += [e / d if d else e for e in row]
        else:
            d = sum(e * e for e in row)
            with mpmath.workprec(PREC):
                out += [mpmath.sqrt(mpmath.mpf(e.numerator) / e.denominator * e / d) if d else e for e in row]
    return {"Y": rounded(out, "float", x.shape)}


def normalized(v, t, x, norm=None):
    c = x.shape[-1]
    mag = 1.0
    tol = {"MAX": {"ulp": 2}, "L1": accumulation("float", c, mag, after=2),
           "L2": accumulation("float", c, mag, after=6)}[norm or "MAX"]
    return OPERATOR.expect(v, {"X": x}, {"norm": norm} if norm else {}, tolerance=tol)


def nonneg(t, shape, rng):
    return abs(data(t.dtype, shape, rng, 0, 6)).astype(t.np())


@OPERATOR.example
def max_norm(v, t, rng):
    return normalized(v, t, nonneg(t, (3, 4), rng), "MAX")


@OPERATOR.example
def default_norm(v, t, rng):
    """No norm attribute: MAX."""
    return normalized(v, t, nonneg(t, (2, 5), rng))


@OPERATOR.example
def l1(v, t, rng):
    return normalized(v, t, nonneg(t, (3, 4), rng), "L1")


@OPERATOR.example
def l2(v, t, rng):
    return normalized(v, t, nonneg(t, (3, 4), rng), "L2")


@OPERATOR.example
def zero_row(v, t, rng):
    """A row of zeros: 'if the divisor is zero, Y == X', in every norm."""
    x = nonneg(t, (2, 3), rng)
    x[1] = 0
    return normalized(v, t, x, "L1")


OPERATOR.reference_differs(r"dtype (double|int32|int64) != expected float",
                           "Normalizer's output Y is tensor(float) for every T; the evaluator returns X's type "
                           "(double for integer X)")
OPERATOR.reference_differs(r"Issues with types .* \(operator 'Normalizer'\)",
                           "the evaluator's L2 calls np.sqrt in place on an integer sum and raises")
