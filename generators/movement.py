"""What the data-movement, indexing and generator operators share: typed test data, declared outputs, indices.

Their oracles are numpy index operations on the input's own elements, so the expected output is
exact in every element type; the few that produce values (Range, OneHot, EyeLike, ...) compute
them exactly in Python and round once to the type.
"""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Declared, Types


def data(t: Types, shape, rng: np.random.Generator, param: str | None = None, specials: bool = True) -> np.ndarray:
    """A tensor of the binding's type for `param` (default: the primary parameter)."""
    return values.value(t[param or t.primary], shape, rng, specials)


def declared(type_name: str, rank: int | None) -> Declared:
    """The output an expect-error model declares: its type, rank known, dims unknown."""
    return Declared(type_name, None if rank is None else [None] * rank)


def indices(values_: list | np.ndarray, type_name: str = "int64") -> np.ndarray:
    return np.array(values_, dtype=np.int64 if type_name == "int64" else np.int32)
