"""Normalizer (ai.onnx.ml): each row of X divided by its max, its sum, or its L2 norm, as float."""

import mpmath

from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.case import Case
from onnx_conformance.generators.ml_family import data, exact_of, ml_operator, rounded
from onnx_conformance.generators.rounding import PREC

OPERATOR = ml_operator("Normalizer")


def normalized(v, t, x, norm=None):
    """'Max: Y = X / max(X)', 'L1: Y = X / sum(X)', 'L2: Y = sqrt(X^2 / sum(X^2))', row by row;
    'In all modes, if the divisor is zero, Y == X.' The data is non-negative: there the spec's
    formulas and the usual norms (|x| summed, sign kept) agree."""
    kind = norm or "MAX"
    n, c = x.shape
    ex = exact_of(x)
    out = []
    for r in range(n):
        row = ex[r * c:(r + 1) * c]
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
    mag = 1.0
    tol = {"MAX": {"ulp": 2}, "L1": accumulation("float", c, mag, after=2),
           "L2": accumulation("float", c, mag, after=6)}[kind]
    return Case({"X": x}, {"Y": rounded(out, "float", x.shape)}, {"norm": norm} if norm else {}, tolerance=tol)


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
