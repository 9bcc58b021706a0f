"""Test data for every ONNX element type: distinct values, and each type's edges and special encodings.

A misplaced element must show, so ordinary values are distinct as far as the type has values;
each type's own trouble spots are mixed in (at most half the elements): float8 NaN encodings,
infinities, +-max, subnormals, -0.0; integer extremes; empty, non-ASCII and long strings.
"""

from __future__ import annotations

import re
from functools import lru_cache

import ml_dtypes
import numpy as np

from onnx_conformance.generators.case import Opt, Seq
from onnx_conformance.harness.dtypes import numpy_of

LONG_STRING = "long:" + "".join(chr(0x41 + (i % 26)) for i in range(1000))
STRINGS = ["", "é", "日本語のテキスト", LONG_STRING, "tab\tand space ", "😀"]


def is_float(type_name: str) -> bool:
    return type_name in ("float16", "bfloat16", "float", "double") or type_name.startswith("float")


def is_small_float(type_name: str) -> bool:
    """The float formats of 8 bits or fewer (float8*, float6*, float4e2m1): every encoding is enumerable."""
    return is_float(type_name) and type_name not in ("float16", "bfloat16", "float", "double")


@lru_cache(maxsize=None)
def is_int(type_name: str) -> bool:
    return re.fullmatch(r"u?int\d+", type_name) is not None


@lru_cache(maxsize=None)
def int_range(type_name: str) -> tuple[int, int]:
    info = ml_dtypes.iinfo(numpy_of(type_name))
    return int(info.min), int(info.max)


def sample(type_name: str, shape, rng: np.random.Generator, specials: bool = True) -> np.ndarray:
    """A tensor of `type_name` and `shape`: distinct ordinary values, specials (when asked) at random places."""
    shape = tuple(int(d) for d in shape)
    n = int(np.prod(shape, dtype=np.int64))
    special = _specials(type_name) if specials else []
    special = special[: n // 2]
    ordinary = _ordinary(type_name, n - len(special), rng)
    values = list(special) + list(ordinary)
    order = rng.permutation(n) if n else np.zeros(0, np.int64)
    picked = [values[i] for i in order]
    if type_name == "string":
        out = np.empty(n, dtype=object)
        out[:] = picked
        return out.reshape(shape)
    return np.array(picked, dtype=numpy_of(type_name)).reshape(shape)


def value(type_name: str, shape, rng: np.random.Generator, specials: bool = True):
    """A value of any type a schema names: a tensor, a sequence of tensors, or an optional of either."""
    m = re.fullmatch(r"optional\((.*)\)", type_name)
    if m:
        inner = m.group(1)
        inner_name = inner[len("tensor("):-1] if inner.startswith("tensor(") else inner
        return Opt(value(inner_name, shape, rng, specials), inner_name)
    m = re.fullmatch(r"seq\(tensor\((.*)\)\)", type_name)
    if m:
        elem = m.group(1)
        shapes = [shape, tuple(shape[:-1]) + (max(1, (shape[-1] if shape else 1) + 1),), ()]
        return Seq([sample(elem, s, rng, specials) for s in shapes], elem)
    return sample(type_name, shape, rng, specials)


# ---------------------------------------------------------------------------------------------


def _ordinary(type_name: str, n: int, rng: np.random.Generator) -> list:
    if n <= 0:
        return []
    if type_name == "bool":
        start = int(rng.integers(0, 2))
        return [bool((start + i) % 2) for i in range(n)]
    if type_name == "string":
        return [f"s{i}_{'ß' if i % 3 == 0 else 'x'}" for i in rng.permutation(n).tolist()]
    if is_int(type_name):
        lo, hi = int_range(type_name)
        span = min(hi - lo + 1, max(2 * n, 16))
        base = max(lo, -(span // 2))
        taken = set(_specials(type_name))
        pool = [base + int(k) for k in rng.permutation(span)]
        pool = [v for v in pool if lo <= v <= hi and v not in taken] or [v for v in pool if lo <= v <= hi]
        return (pool * (n // len(pool) + 1))[:n]
    if is_small_float(type_name):
        pool = _small_float_encodings(type_name)[1]
        pool = [pool[i] for i in rng.permutation(len(pool))]
        return (pool * (n // len(pool) + 1))[:n]
    if type_name in ("complex64", "complex128"):
        parts = _distinct_floats("float" if type_name == "complex64" else "double", 2 * n, rng)
        return [complex(a, b) for a, b in zip(parts[::2], parts[1::2])]
    return _distinct_floats(type_name, n, rng)


def _distinct_floats(type_name: str, n: int, rng: np.random.Generator) -> list:
    """n values of the type, distinct after rounding where the type has that many in [-64, 64]."""
    dt = numpy_of(type_name)
    got: list = []
    seen = set()
    while len(got) < n:
        draw = rng.uniform(-64.0, 64.0, size=4 * n + 16).astype(np.float64).astype(dt)
        before = len(got)
        for x in draw.tolist():
            if x not in seen:
                seen.add(x)
                got.append(x)
                if len(got) == n:
                    break
        if len(got) == before:  # the type has no more distinct values there: repeat
            got = (got * (n // max(1, len(got)) + 1))[:n]
    return got


@lru_cache(maxsize=None)
def _specials(type_name: str) -> list:
    if type_name == "bool":
        return []
    if type_name == "string":
        return list(STRINGS)
    if is_int(type_name):
        lo, hi = int_range(type_name)
        out = [lo, hi, 0, 1, lo + 1, hi - 1] + ([-1] if lo < 0 else [])
        if type_name in ("int64", "uint64"):  # magnitudes a double or 32-bit path gets wrong
            out += [2**53 + 1, 2**32 + 1] + ([-(2**53 + 1)] if lo < 0 else [])
        return list(dict.fromkeys(out))
    if is_small_float(type_name):
        return _small_float_encodings(type_name)[0]
    if type_name in ("complex64", "complex128"):
        return [complex(0.0, -0.0), complex(-1.5, 2.25), complex(np.inf, 1.0)]
    fi = ml_dtypes.finfo(numpy_of(type_name))
    return [float("nan"), float("inf"), float("-inf"), float(fi.max), -float(fi.max), -0.0,
            float(fi.smallest_subnormal), -float(fi.smallest_subnormal), float(fi.smallest_normal)]


@lru_cache(maxsize=None)
def _small_float_encodings(type_name: str) -> tuple[list, list]:
    """(special, ordinary) values of an 8-bit-or-narrower float type, from every bit pattern it has.

    Special: each NaN encoding, infinities, +-max, -0.0, the smallest subnormals. Ordinary: the rest.
    """
    dt = numpy_of(type_name)
    bits = ml_dtypes.finfo(dt).bits
    encodings = np.arange(2**bits, dtype=np.uint8).view(dt)
    as_f = encodings.astype(np.float32)
    fi = ml_dtypes.finfo(dt)
    tiny = float(fi.smallest_subnormal)
    special, ordinary = [], []
    for code, x in zip(encodings, as_f.tolist()):
        if np.isnan(x) or np.isinf(x) or abs(x) == float(fi.max) or abs(x) == tiny or (x == 0 and np.signbit(x)):
            special.append(code)
        else:
            ordinary.append(code)
    # One of each kind first, so a small tensor still gets NaN, inf, max and -0.0.
    special.sort(key=lambda c: (not np.isnan(np.float32(c)), not np.isinf(np.float32(c)), float(np.abs(np.float32(c))) if not np.isnan(np.float32(c)) else 0.0))
    return special, ordinary
