"""What the data-movement, indexing and generator operators share: typed test data, declared outputs, indices.

Their oracles are numpy index operations on the input's own elements, so the expected output is
exact in every element type; the few that produce values (Range, OneHot, EyeLike, ...) compute
them exactly in Python and round once to the type.
"""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Declared, Types
from onnx_conformance.generators.semantics import Rejected


def data(t: Types, shape, rng: np.random.Generator, param: str | None = None, specials: bool = True) -> np.ndarray:
    """A tensor of the binding's type for `param` (default: the primary parameter)."""
    return values.value(t[param or t.primary], shape, rng, specials)


def declared(type_name: str, rank: int | None) -> Declared:
    """The output an expect-error model declares: its type, rank known, dims unknown."""
    return Declared(type_name, None if rank is None else [None] * rank)


def indices(values_: list | np.ndarray, type_name: str = "int64") -> np.ndarray:
    return np.array(values_, dtype=np.int64 if type_name == "int64" else np.int32)


def axis_in(axis: int, rank: int, rule: str, negative: bool = True) -> int:
    """An axis of a tensor of rank `rank` in [0, rank - 1]: one in [-rank, -1] counts from the back
    where the version allows negative axes (`negative`); anything else breaks `rule`, quoted."""
    low = -rank if negative else 0
    if not low <= axis < rank:
        raise Rejected(rule)
    return axis % rank


def broadcast_shape(shapes, rule: str) -> tuple:
    """Multidirectional (numpy-style) broadcasting: shapes right-aligned, each dimension equal to the
    others or 1, the result taking the dimension that is not 1; shapes that do not broadcast break `rule`."""
    n = max((len(s) for s in shapes), default=0)
    out = []
    for dims in zip(*[(1,) * (n - len(s)) + tuple(s) for s in shapes]):
        big = {int(d) for d in dims if d != 1}
        if len(big) > 1:
            raise Rejected(rule)
        out.append(big.pop() if big else 1)
    return tuple(out)


def ints_of(x) -> list[int] | None:
    """An int list given as an attribute or as an integer tensor input, as Python ints (None stays None)."""
    if x is None:
        return None
    return [int(i) for i in np.asarray(x).reshape(-1).tolist()]
