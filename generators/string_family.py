"""Shared pieces of the string operators (StringConcat, StringSplit, StringNormalizer, RegexFullMatch):
string tensors as object arrays, and a binding for a schema with no type parameter."""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators.case import Operator, Types


def strings(nested) -> np.ndarray:
    """A string tensor (numpy object array) from nested lists of str; shape from the nesting."""
    return np.array(nested, dtype=object)


def empty(shape) -> np.ndarray:
    return np.empty(shape, dtype=object)


class UntypedOperator(Operator):
    """An operator whose schema names its types directly, with no type parameter (StringNormalizer:
    X is tensor(string)). Its one binding names the first input's fixed type under the input's
    name ({"X": "string"}), so cases and the index say their type like every other case's."""

    def __init__(self, name: str, formal: str, dtype: str, **kw):
        super().__init__(name, **kw)
        self._fixed = (formal, dtype)

    def bindings(self, v):
        if v.type_params:
            return super().bindings(v)
        formal, dtype = self._fixed
        return [Types({formal: dtype}, formal, ())]
