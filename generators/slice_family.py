"""What Slice, Split, Concat, Tile and Transpose share: documented data where a type holds it, variadic names."""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators.movement import data
from onnx_conformance.harness.dtypes import numpy_of

def documented(t, values, rng: np.random.Generator, param: str | None = None) -> np.ndarray:
    """The data a documented example fixes, in the binding's type where every value is exact there;
    otherwise (bool, string, narrow types) distinct values of the type in the same shape."""
    type_name = t[param or t.primary]
    want = np.asarray(values, dtype=np.float64)
    if type_name not in ("bool", "string"):
        dt = numpy_of(type_name)
        got = want.astype(dt)
        wide = np.complex128 if np.issubdtype(dt, np.complexfloating) else np.float64
        if np.array_equal(got.astype(wide), want.astype(wide)):
            return got
    return data(t, want.shape, rng, param)


def variadic(formal: str, values: list) -> dict:
    """A variadic formal parameter's values, one graph value each: 'inputs' -> inputs_0, inputs_1, ...
    (the case model names one value per key; a variadic parameter needs one key per value)."""
    return {f"{formal}_{k}": x for k, x in enumerate(values)}
