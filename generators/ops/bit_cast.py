"""BitCast: each element's bit pattern reinterpreted as another type of the same bit-width, shape unchanged."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator, type_of
from onnx_conformance.generators.movement import data, declared
from onnx_conformance.generators.semantics import Rejected, Undefined, rule
from onnx_conformance.harness.dtypes import elem_type_of, name_of, numpy_of

SAME_WIDTH = "The target data type must have the same bit-width as the input data type."

# Each input type's default target, of the same width: within each width the targets run through
# every type, so every T2 gets an expect-output case, and onnx's documented pairs exist
# (float -> int32, int32 -> float, int8 -> uint8, ...). 32-bit T2 also come with T1 = float.
TARGET = {
    "int8": "uint8", "uint8": "bool", "bool": "int8",
    "float8e4m3fn": "float8e4m3fnuz", "float8e4m3fnuz": "float8e5m2", "float8e5m2": "float8e5m2fnuz",
    "float8e5m2fnuz": "float8e8m0", "float8e8m0": "float8e4m3fn",
    "uint16": "int16", "int16": "bfloat16", "bfloat16": "float16", "float16": "uint16",
    "float": "int32", "int32": "float", "uint32": "int32",
    "int64": "double", "double": "int64", "uint64": "complex64", "complex64": "uint64",
    "complex128": "complex128",
    "int4": "uint4", "uint4": "float4e2m1", "float4e2m1": "int4",
    "int2": "uint2", "uint2": "int2",
}

# The sub-byte types: bits per element (the rest are whole bytes).
SUB_BYTE = {"int4": 4, "uint4": 4, "float4e2m1": 4, "int2": 2, "uint2": 2}


def width(type_name: str) -> int:
    return SUB_BYTE.get(type_name) or numpy_of(type_name).itemsize * 8


OPERATOR = Operator("BitCast", primary="T1", defaults={"T2": lambda v, b: TARGET[b["T1"]]})


def bitcast(x: np.ndarray, to: str) -> np.ndarray:
    """A numpy byte view. ml_dtypes holds a sub-byte element in the low bits of its own byte, and
    the packed layout puts element i at the same bit offset for every type of one width, so the
    element's own bits, viewed as the target type, are the packed result too."""
    if to in SUB_BYTE:
        return (x.view(np.uint8) & ((1 << SUB_BYTE[to]) - 1)).view(numpy_of(to))
    return x.view(numpy_of(to))


@OPERATOR.semantics
def bit_cast(v, attrs, inputs):
    """Each element's bits (little endian) read as type `to`, 'the same bit-width as the input data type',
    one of 'the non-string types'; shape unchanged."""
    x = inputs["input"]
    try:
        to = name_of(attrs["to"])
    except ValueError:
        to = None
    if to not in v.type_params["T2"]:
        raise Rejected(rule(v, r"Must be one of the non-string types"))
    if width(type_of(x)) != width(to):
        raise Rejected(v.sentence(r"must have the same bit-width"))
    if to == "bool" and not np.isin(x.view(np.uint8), (0, 1)).all():
        raise Undefined("a byte other than 0 and 1 read as bool: the spec encodes only false (0) and true (1)")
    return {"output": bitcast(x, to)}


def applies(t):
    if width(t["T1"]) != width(t["T2"]):
        return NotApplicable(SAME_WIDTH)
    return None


def typed(t, shape, rng):
    # bool has two encodings, 0 and 1: a bool target gets input bytes that are bools.
    if t["T2"] == "bool":
        return rng.integers(0, 2, size=shape).astype(bool).view(t.np("T1"))
    return data(t, shape, rng)


def case(v, x, to):
    return OPERATOR.expect(v, {"input": x}, {"to": elem_type_of(to)})


@OPERATOR.example
def odd_2d(v, t, rng):
    """[3, 5]: 15 elements, an odd count for the packed types; the type's special encodings included."""
    return applies(t) or case(v, typed(t, (3, 5), rng), t["T2"])


@OPERATOR.example
def scalar(v, t, rng):
    return applies(t) or case(v, typed(t, (), rng), t["T2"])


@OPERATOR.example
def empty(v, t, rng):
    return applies(t) or case(v, typed(t, (0, 3), rng), t["T2"])


@OPERATOR.example
def width_mismatch(v, t, rng):
    """float -> double: 32 bits to 64."""
    if (t["T1"], t["T2"]) != ("float", "double"):
        return NotApplicable("the rejection case is emitted once, in the float -> double binding")
    x = data(t, (3,), rng)
    return OPERATOR.reject(v, {"input": x}, {"to": elem_type_of("double")}, {"output": declared("double", 1)})


# onnx's documented examples: (input type, target type, input values).
DOCUMENTED = {
    "float32_to_int32": ("float", "int32", [1.0, -2.5, 3.75]),
    "int32_to_float32": ("int32", "float", [1065353216, -1071644672, 1081081856]),
    "float64_to_int64": ("double", "int64", [1.0, -2.5, 3.75]),
    "int64_to_float64": ("int64", "double", [4607182418800017408, -4611686018427387904, 4614256656552045184]),
    "uint32_to_int32": ("uint32", "int32", [4294967295, 2147483648, 2147483647]),
    "2d_float32_to_int32": ("float", "int32", [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    "int8_to_uint8": ("int8", "uint8", [-1, -128, 127, 0]),
    "scalar_float32_to_int32": ("float", "int32", 1.0),
    "uint16_to_int16": ("uint16", "int16", [1, 32768, 65535]),
    "bool_to_uint8": ("bool", "uint8", [True, False, True, False]),
}


def documented(name, src, dst, values):
    def example(v, t, rng):
        if (t["T1"], t["T2"]) != (src, dst):
            if (src, dst) not in {(b["T1"], b["T2"]) for b in OPERATOR.bindings(v)}:
                # bool's default target is int8 so that int8 -> uint8 and uint8 -> bool both exist.
                return NotApplicable(f"no {src} -> {dst} binding: one default target per input type; "
                                     f"{src} -> {TARGET[src]} carries the same bytes")
            return NotApplicable(f"onnx's documented example is {src} -> {dst}")
        return case(v, np.array(values, dtype=numpy_of(src)), dst)

    OPERATOR.example(example, name=name)


for _name, _spec in DOCUMENTED.items():
    documented(_name, *_spec)
