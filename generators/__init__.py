"""Emits the conformance corpus: every documented example, at every opset version, in every dtype."""

import fractions

import mpmath

# The oracles hand mpmath exact Fractions (mpf(Fraction(1, 3)), mpf + Fraction), which mpmath reads
# natively from 1.4 on. The torch extra's sympy holds mpmath below 1.4, where a Fraction is refused
# ("cannot create mpf from Fraction"); mpmath's own conversion protocol (`_mpmath_`) gives it the
# same single rounding there, so both releases produce the same corpus.
if not hasattr(fractions.Fraction, "_mpmath_"):
    try:
        mpmath.mpf(fractions.Fraction(1, 3))
    except TypeError:
        from mpmath.libmp import from_rational

        def _mpmath_(self, prec, rounding):
            return mpmath.mpf(from_rational(self.numerator, self.denominator, prec, rounding))

        fractions.Fraction._mpmath_ = _mpmath_
