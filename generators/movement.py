"""What the data-movement, indexing and generator operators share: typed test data, rejection cases once per version.

Their oracles are numpy index operations on the input's own elements, so the expected output is
exact in every element type; the few that produce values (Range, OneHot, EyeLike, ...) compute
them exactly in Python and round once to the type.
"""

from __future__ import annotations

import numpy as np

from generators import values
from generators.case import Declared, NotApplicable, Types
from generators.spec import OpVersion


def data(t: Types, shape, rng: np.random.Generator, param: str | None = None, specials: bool = True) -> np.ndarray:
    """A tensor of the binding's type for `param` (default: the primary parameter)."""
    return values.value(t[param or t.primary], shape, rng, specials)


def once_per_version(v: OpVersion, t: Types) -> NotApplicable | None:
    """Rejection cases are about a rule, not a type: emit them in one binding per version
    (float where allowed, else the first allowed type, the other parameters at their defaults)."""
    allowed = v.type_params.get(t.primary, ())
    first = "float" if "float" in allowed else (allowed[0] if allowed else "")
    if t.dtype != first or t.suffix:
        return NotApplicable(f"rejection cases are emitted once per version, in {first}")
    return None


def declared(type_name: str, rank: int | None) -> Declared:
    """The output an expect-error model declares: its type, rank known, dims unknown."""
    return Declared(type_name, None if rank is None else [None] * rank)


def indices(values_: list | np.ndarray, type_name: str = "int64") -> np.ndarray:
    return np.array(values_, dtype=np.int64 if type_name == "int64" else np.int32)
