"""generators/rounding.py: one rounding from the exact value, checked against the types' own conversions."""

from fractions import Fraction

import ml_dtypes
import mpmath
import numpy as np
import pytest

from onnx_conformance.generators.rounding import round_array, round_to
from onnx_conformance.harness.dtypes import numpy_of

FLOATS = ["double", "float", "float16", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
          "float8e5m2fnuz", "float4e2m1"]


def bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}").item() if a.dtype.itemsize > 1 else a.view(np.uint8).item()


@pytest.mark.parametrize("name", FLOATS)
def test_agrees_with_a_single_rounding_from_double(name):
    """ml_dtypes and numpy round a double to the type once, ties to even: from a double, ours must agree.
    Overflow is left out (the types disagree on it by design; see the next test)."""
    dt = numpy_of(name)
    rng = np.random.default_rng(7)
    fi = ml_dtypes.finfo(dt)
    xs = np.concatenate([
        rng.uniform(-1, 1, 300) * float(fi.max),
        rng.standard_normal(300) * float(fi.smallest_normal) * 4,  # subnormals and the normal boundary
        np.array([0.0, -0.0, 1.0, -1.0]),
        # exact midpoints between neighbours: ties go to the even neighbour
        (np.arange(-40, 40).astype(dt).astype(np.float64)[:-1] + np.arange(-40, 40).astype(dt).astype(np.float64)[1:]) / 2,
    ])
    xs = xs[np.abs(xs) <= float(fi.max)]
    for x in xs.tolist():
        want = np.array(x).astype(dt)
        got = round_to(x, name)
        assert got.dtype == dt and bits(got) == bits(want), (name, x, got, want)


def test_no_double_rounding():
    """1 + 2^-11 + 2^-60 lies just above a float16 midpoint; through a double it lands on the midpoint
    and ties down to 1.0. Rounded once it goes up."""
    x = Fraction(1) + Fraction(1, 2**11) + Fraction(1, 2**60)
    assert float(np.array(float(x)).astype(np.float16)) == 1.0
    assert float(round_to(x, "float16")) == 1 + 2**-10
    with mpmath.workprec(200):
        assert float(round_to(mpmath.mpf(1) + mpmath.mpf(2) ** -11 + mpmath.mpf(2) ** -60, "float16")) == 1 + 2**-10
        assert float(round_to(-mpmath.mpf(1) - mpmath.mpf(2) ** -11 - mpmath.mpf(2) ** -60, "float16")) == -1 - 2**-10


@pytest.mark.parametrize("name,want", [("float", np.inf), ("float16", np.inf), ("float8e5m2", np.inf),
                                       ("float8e4m3fn", np.nan), ("float8e5m2fnuz", np.nan), ("float4e2m1", 6.0)])
def test_overflow(name, want):
    big = Fraction(10) ** 400
    got = float(round_to(big, name))
    assert (np.isnan(got) and np.isnan(want)) or got == want
    assert float(round_to(-big, name, saturate=True)) == -float(ml_dtypes.finfo(numpy_of(name)).max)
    # just under max + half an ulp rounds to max, not beyond
    fi = ml_dtypes.finfo(numpy_of(name))
    assert float(round_to(Fraction(float(fi.max)) * (1 + Fraction(1, 2 ** (int(fi.nmant) + 3))), name)) == float(fi.max)


def test_zero_signs_and_array():
    assert np.signbit(round_to(-0.0, "float16"))
    assert np.signbit(round_to(Fraction(-1, 10**60), "float"))  # underflow keeps the sign
    assert not np.signbit(round_to(Fraction(-1, 10**60), "float8e4m3fnuz"))  # the type has no -0
    a = round_array([[Fraction(1, 3), 2], [-0.5, 7]], "bfloat16")
    assert a.dtype == ml_dtypes.bfloat16 and a.shape == (2, 2)
    assert a[0, 0] == np.array(1 / 3).astype(ml_dtypes.bfloat16)


def test_mpmath_values_keep_their_sign_and_far_ones_round_to_inf_or_zero():
    with mpmath.workprec(200):
        assert float(round_to(mpmath.mpf(-0.75), "float")) == -0.75
        assert float(round_to(mpmath.exp(mpmath.mpf(10) ** 6), "double")) == np.inf
        assert float(round_to(-mpmath.exp(mpmath.mpf(10) ** 6), "float16")) == -np.inf
        tiny = round_to(-mpmath.exp(-mpmath.mpf(10) ** 6), "float")
        assert float(tiny) == 0.0 and np.signbit(tiny)


def test_mpmath_reads_fractions_exactly_in_every_supported_release():
    """The oracles pass exact Fractions to mpmath; below mpmath 1.4 (what the torch extra's sympy
    installs) generators/__init__.py teaches it to, with the same single rounding 1.4 does."""
    import onnx_conformance.generators  # noqa: F401  (installs the conversion where needed)

    with mpmath.workprec(200):
        third = Fraction(1, 3)
        assert mpmath.mpf(third) == mpmath.mpf(1) / 3
        assert mpmath.mpf(2) + third == mpmath.mpf(7) / 3
        assert mpmath.mpf(Fraction(-(2**300) - 1, 2**301)) == mpmath.mpf(-0.5)
