"""ONNX element-type names (the spec's words) and their numpy dtypes."""

from __future__ import annotations

from functools import lru_cache

import ml_dtypes
import numpy as np
from onnx import TensorProto, helper


@lru_cache(maxsize=None)
def name_of(elem_type: int) -> str:
    """TensorProto.FLOAT -> 'float': the spelling used inside the spec's `tensor(float)`."""
    return TensorProto.DataType.Name(elem_type).lower()


@lru_cache(maxsize=None)
def elem_type_of(name: str) -> int:
    return TensorProto.DataType.Value(name.upper())


@lru_cache(maxsize=None)
def numpy_of(name: str) -> np.dtype:
    """numpy dtype for an ONNX type name; bfloat16 and the float8 family come from ml_dtypes."""
    return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type_of(name)))


@lru_cache(maxsize=None)
def name_of_numpy(dtype: np.dtype) -> str:
    return name_of(helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))


def from_type_str(type_str: str) -> str:
    """'tensor(float16)' (a schema's allowed type string) -> 'float16'."""
    if not (type_str.startswith("tensor(") and type_str.endswith(")")):
        raise ValueError(f"not a tensor type string: {type_str!r}")
    return type_str[len("tensor("):-1]


def element_of(type_name: str) -> str:
    """The element type inside a type name: 'optional(seq(tensor(int8)))' -> 'int8'; 'float' -> 'float';
    a map's is its value type: 'seq(map(string, float))' -> 'float'."""
    while "(" in type_name:
        if type_name.startswith("map("):  # map(K, V): K is a plain element type, V may nest
            type_name = type_name[len("map("):-1].split(",", 1)[1].strip()
            continue
        type_name = type_name[type_name.index("(") + 1:-1]
    return type_name


def bits_of(dtype: np.dtype) -> int:
    """Bits per element: below 8 the spec packs several into a byte (int4, float4e2m1, int2)."""
    if dtype.type.__module__ == "numpy":
        return dtype.itemsize * 8
    try:
        return ml_dtypes.finfo(dtype).bits
    except ValueError:
        return ml_dtypes.iinfo(dtype).bits


def pack(x: np.ndarray, bits: int) -> np.ndarray:
    """Sub-byte elements (ml_dtypes keeps one per byte) packed as the spec stores them: low bits first
    (onnx/docs/IR.md, \"4-bit/2-bit integer types\"), the last byte padded with zeros."""
    per_byte = 8 // bits
    codes = (x.reshape(-1).view(np.uint8) & ((1 << bits) - 1)).astype(np.uint8)
    pad = (-codes.size) % per_byte
    if pad:
        codes = np.concatenate([codes, np.zeros(pad, np.uint8)])
    codes = codes.reshape(-1, per_byte)
    packed = np.zeros(codes.shape[0], np.uint8)
    for slot in range(per_byte):
        packed |= codes[:, slot] << np.uint8(slot * bits)
    return packed


def unpack(raw: np.ndarray, bits: int, count: int) -> np.ndarray:
    """The inverse of pack: `count` elements, one per byte, from packed bytes."""
    per_byte = 8 // bits
    mask = np.uint8((1 << bits) - 1)
    slots = [(raw >> np.uint8(slot * bits)) & mask for slot in range(per_byte)]
    return np.stack(slots, axis=1).reshape(-1)[:count].copy()
