"""Mutants of the casts: saturation where the spec wraps and the reverse, float 8's saturate default,
ties away from zero, NaN and non-zero integers to bool, and BitCast converting values."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import Mutant, default, finfo, floating, result

FAMILY = "Cast"

TO_BOOL_FLOAT = "bool: +/- 0.0 to False; all else to True."
TO_BOOL_INT = "bool: zero to False; nonzero to True."
WRAP = ("fixed point: when OOR, discard higher bits and reinterpret (with respect to two's complement "
        "representation for signed types).")
FLOAT_OOR = "floating point: +/- infinity if OOR (out of range)."
SATURATE = "It is true by default."
RNE = "`[x]` means the value rounded to the target mantissa width."
CASTLIKE = "See documentation of the Cast operator for further details."


def _nan_to_false(y, x, *rest, **_):
    """x != 0 written as (x > 0) || (x < 0): NaN is neither."""
    if y.dtype != np.bool_ or not floating(x):
        return y
    return y & ~np.isnan(x.astype(np.float64))


def _low_bit_to_bool(y, x, *rest, **_):
    """An integer cast to bool by keeping its lowest bit ("we truncate bits" read literally)."""
    if y.dtype != np.bool_ or x.dtype.kind not in "iu":
        return y
    return (x & 1).astype(bool)


def _narrowing_saturates(y, x, *rest, **_):
    """An integer out of the target's range saturates (as a SIMD pack instruction does) instead of wrapping."""
    if y.dtype.kind not in "iu" or x.dtype.kind not in "iu":
        return y
    info = np.iinfo(y.dtype)
    wide = x.astype(np.float64)  # exact enough to compare against the limits of every integer type
    return np.where(wide > info.max, info.max, np.where(wide < info.min, info.min, y))


def _float_overflow_saturates(y, x, *rest, **_):
    """A float beyond the target's range becomes its largest finite value instead of infinity."""
    if not floating(x) or not floating(y) or y.dtype.itemsize < 2 or "float8" in y.dtype.name:
        return y
    w, r = x.astype(np.float64), y.astype(np.float64)
    big = float(finfo(y.dtype).max)
    return np.where(np.isinf(r) & np.isfinite(w), np.copysign(big, w), r)


def _ties_away(y, x, *rest, **_):
    """Round to nearest with ties away from zero where the spec rounds ties to even."""
    if (not floating(x) or not floating(y) or y.dtype.itemsize > 2 or "e8m0" in y.dtype.name
            or x.dtype.itemsize <= y.dtype.itemsize):
        return y
    w, r = x.astype(np.float64), y.astype(np.float64)
    unsigned = np.dtype(f"u{y.dtype.itemsize}")
    away = (np.asarray(y).view(unsigned) + np.asarray(1, unsigned)).view(y.dtype)  # one step further from 0
    a = away.astype(np.float64)
    with np.errstate(all="ignore"):
        tie = (np.isfinite(w) & np.isfinite(r) & np.isfinite(a) & (w != r) & (w == (r + a) / 2)
               & (np.abs(a) > np.abs(r)))
    return np.where(tie, away, y)


def _converts_value(y, x, *rest, **_):
    """BitCast done as Cast: the value converted, not the bits kept."""
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(y.dtype)


def _byte_swapped(y, x, *rest, **_):
    """Both sides read big-endian, one element of its own width at a time: swapped in, swapped back out."""
    x = np.asarray(x)
    if y.dtype.itemsize != x.dtype.itemsize or x.dtype.itemsize not in (1, 2, 4, 8):
        return y
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    return x.view(unsigned).byteswap().byteswap().view(y.dtype)


def _cast_mutants(op: str) -> list[Mutant]:
    """The mutants Cast and CastLike share; CastLike's doc defers to Cast's, whose sentence is the note."""
    def spec(sentence: str) -> dict:
        return {"spec": sentence} if op == "Cast" else {"spec": CASTLIKE, "note": f"Cast's doc: {sentence!r}"}
    return [
        Mutant(f"{op}.nan_to_false", op, "NaN propagation", wrong=result(_nan_to_false), **spec(TO_BOOL_FLOAT)),
        Mutant(f"{op}.narrowing_saturates", op, "cast saturation/wrap", wrong=result(_narrowing_saturates),
               **spec(WRAP)),
        Mutant(f"{op}.saturate_off_by_default", op, "wrong defaults", SATURATE, default("saturate", 0),
               since=(19, None)),
    ]


MUTANTS = [
    Mutant("BitCast.converts_value", "BitCast", "cast saturation/wrap",
           "Unlike Cast, BitCast preserves the exact bit pattern without any value conversion.",
           result(_converts_value)),
    Mutant("BitCast.big_endian", "BitCast", "layout modes",
           "Implementations must treat the underlying bytes as little endian.", result(_byte_swapped),
           equivalent="both types have the same width: bytes swapped on the way in are swapped back on the way "
           "out, so the bits are the same; only a runtime that swapped one side would differ"),
    *_cast_mutants("Cast"),
    Mutant("Cast.integer_to_bool_low_bit", "Cast", "cast saturation/wrap", TO_BOOL_INT, result(_low_bit_to_bool)),
    Mutant("Cast.float_overflow_saturates", "Cast", "cast saturation/wrap", FLOAT_OOR,
           result(_float_overflow_saturates)),
    Mutant("Cast.ties_away_from_zero", "Cast", "ties away from zero", RNE, result(_ties_away), since=(19, None),
           note="the tables' RNE: round to nearest, ties to even"),
    *_cast_mutants("CastLike"),
]
