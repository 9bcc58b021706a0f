"""ONNX element-type names (the spec's words) and their numpy dtypes."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper


def name_of(elem_type: int) -> str:
    """TensorProto.FLOAT -> 'float': the spelling used inside the spec's `tensor(float)`."""
    return TensorProto.DataType.Name(elem_type).lower()


def elem_type_of(name: str) -> int:
    return TensorProto.DataType.Value(name.upper())


def numpy_of(name: str) -> np.dtype:
    """numpy dtype for an ONNX type name; bfloat16 and the float8 family come from ml_dtypes."""
    return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type_of(name)))


def name_of_numpy(dtype: np.dtype) -> str:
    return name_of(helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))


def from_type_str(type_str: str) -> str:
    """'tensor(float16)' (a schema's allowed type string) -> 'float16'."""
    if not (type_str.startswith("tensor(") and type_str.endswith(")")):
        raise ValueError(f"not a tensor type string: {type_str!r}")
    return type_str[len("tensor("):-1]


def element_of(type_name: str) -> str:
    """The element type inside a type name: 'optional(seq(tensor(int8)))' -> 'int8'; 'float' -> 'float'."""
    while "(" in type_name:
        type_name = type_name[type_name.index("(") + 1:-1]
    return type_name
