"""Indices, and the small integer inputs that say how a node is shaped: spread over their whole range,
the ends and -1 drawn first (where a kernel's bound check is)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.harness.dtypes import numpy_of
from onnx_conformance.harness.strategies.common import overlay, cached, elements_of


def index_base(shape, low: int, high: int) -> np.ndarray:
    """Indices spread over [low, high] (every one of them for a long enough tensor, the ends included),
    in a fixed order a misplaced gather shows."""
    n = elements_of(shape)
    span = high - low + 1
    if span <= 0:
        return np.zeros(shape, np.int64)
    i = np.arange(n, dtype=np.int64)
    step = next(p for p in (7919, 104729, 1299709) if span % p) if span > 1 else 1
    return (low + (i * step) % span).reshape(shape)


@lru_cache(maxsize=4096)
def index_values(low: int, high: int):
    """One index in [low, high]: the ends and -1 first (where a kernel's bound check is), then any."""
    ends = [x for x in dict.fromkeys((low, high, -1, 0, high - 1, low + 1)) if low <= x <= high]
    return st.one_of(st.sampled_from(ends), st.integers(low, high))


@cached
@st.composite
def index_tensors(draw, shape, low: int, high: int, type_name_: str = "int64"):
    """An index tensor of `shape` with values in [low, high]: index_base, up to MAX_OVERLAY of them drawn."""
    x = index_base(shape, low, high)
    if x.size and high >= low:
        for i, value in draw(overlay(x.size, index_values(low, high)), label="drawn indices"):
            x.reshape(-1)[i] = value
    return x.astype(numpy_of(type_name_))


def ints(xs, type_name_: str = "int64") -> np.ndarray:
    """A rank-1 tensor of shape numbers (a shape, pads, repeats, axes) in the given integer type."""
    return np.array(list(xs), dtype=numpy_of(type_name_)).reshape(-1)


def negative_spelling(draw, axis: int, rank: int, allowed: bool = True, label: str = "negative axis") -> int:
    """axis in [0, rank), or its spelling counting from the back where the version accepts it."""
    return axis - rank if allowed and draw(st.booleans(), label=label) else axis
