"""The kinds of value an operator takes and gives besides plain tensors, and a value's type in the spec's words.

The case model (case.py) and the exact backend (exact.py) both speak them; neither owns them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from onnx_conformance.harness.dtypes import name_of_numpy


@dataclass
class Seq:
    """A sequence value: its tensors, and their element type (an empty sequence has no tensor to say it)."""

    items: list
    elem: str  # 'float', ...


@dataclass
class Opt:
    """An optional value: its content or None (empty), and the content's type ('float', 'seq(tensor(float))')."""

    value: Any
    type: str


@dataclass
class Map:
    """A map value (ai.onnx.ml): each key to one scalar value, with the key type ('int64', 'string')
    and the value type ('float', 'string', ...) the spec's 'map(K, V)' names. A sequence of maps is
    a Seq whose items are Maps and whose elem is the map's type string, 'map(string, float)'."""

    items: dict
    key: str
    value: str

    @property
    def type(self) -> str:
        return f"map({self.key}, {self.value})"


@dataclass
class Declared:
    """An output of an expect-error case: no value, only the type and shape the graph declares."""

    type: str
    shape: tuple | list | None


def type_of(value: Any) -> str:
    """A value's type in the spec's words: 'float', 'string', 'seq(tensor(int8))', 'optional(tensor(bool))'."""
    if isinstance(value, Seq):
        return f"seq({tensor_str(value.elem)})"
    if isinstance(value, Map):
        return value.type
    if isinstance(value, Opt):
        return f"optional({tensor_str(value.type)})"
    if isinstance(value, Declared):
        return value.type
    arr = np.asarray(value)
    return "string" if arr.dtype.kind in "OUS" else name_of_numpy(arr.dtype)


def tensor_str(type_name: str) -> str:
    """'float' -> 'tensor(float)'; composite type strings stay as they are."""
    return type_name if "(" in type_name else f"tensor({type_name})"
