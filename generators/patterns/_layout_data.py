"""Data the layout, shape, quantization and elimination patterns share: values exact in every
numeric type, each different from the others where a moved element must be visible."""

import numpy as np

from onnx_conformance.generators.graphs import FLOATS, cast_to

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def distinct(t: str, rng: np.random.Generator, shape) -> np.ndarray:
    """A shuffled run of consecutive integers (from 0 in the unsigned types, centred on 0 in the
    others), quarters in the floating types: every element differs, so an element read from the
    wrong place is visible, and every value is exact even in int8 and bfloat16 (256 at most)."""
    n = int(np.prod(shape, dtype=np.int64))
    if n > 256:
        raise ValueError(f"{n} distinct values do not fit an 8-bit type")
    run = np.arange(n) - (0 if t.startswith("uint") else n // 2)
    return cast_to(rng.permutation(run).reshape(shape) / (4 if t in FLOATS else 1), t)


def small(t: str, rng: np.random.Generator, shape, low: int = -4, high: int = 4) -> np.ndarray:
    """Integers in [low, high] (from 0 in the unsigned types), quarters of them in the floating
    types: products and short sums stay exact in every type."""
    low = max(low, 0) if t.startswith("uint") else low
    return cast_to(rng.integers(low, high + 1, size=shape) / (4 if t in FLOATS else 1), t)


def ints(values) -> np.ndarray:
    """An int64 tensor: shapes, axes, pads, starts, indices."""
    return np.asarray(values, dtype=np.int64)


# QuantizeLinear's integer output types at opset 21 (its T2 constraint, less the float8 formats).
QUANTIZED = ("uint8", "int8", "uint16", "int16", "uint4", "int4")


def quantized(t: str, rng: np.random.Generator, shape, zero_point: int, spread: int) -> np.ndarray:
    """Integers of type t within `spread` of the zero point, each side."""
    lo, hi = qrange(t)
    if not (lo <= zero_point - spread and zero_point + spread <= hi):
        raise ValueError(f"{zero_point} +- {spread} is outside {t}")
    return cast_to(rng.integers(zero_point - spread, zero_point + spread + 1, size=shape), t)


def qbits(t: str) -> int:
    return 4 if t.endswith("int4") else np.iinfo(np.dtype(t)).bits


def qrange(t: str) -> tuple[int, int]:
    """The smallest and largest value of an integer type, 4-bit ones included."""
    bits = qbits(t)
    return (0, 2 ** bits - 1) if t.startswith("uint") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def zero_point(t: str, offset: int) -> int:
    """A zero point `offset` above the middle of t's range (0 in the signed types)."""
    lo, hi = qrange(t)
    return (lo + hi + 1) // 2 + offset
