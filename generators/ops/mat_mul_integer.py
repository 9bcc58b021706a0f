"""MatMulInteger: (A - a_zero_point) @ (B - b_zero_point) as numpy.matmul, exactly, in int32."""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Declared, NotApplicable, Operator
from onnx_conformance.generators.quant_family import along, exact_values, int32_accumulation, int_matmul, matmul_shapes
from onnx_conformance.generators.semantics import Rejected

OPERATOR = Operator("MatMulInteger", defaults={"T2": lambda v, b: b.get("T1", "uint8")})


def shifted(v, x: np.ndarray, zp, name: str, per_row: bool) -> np.ndarray:
    """x - zero point, exactly (quant_family.along: a scalar, per row of A, per column of B)."""
    if zp is None:
        return exact_values(x)
    z = along(zp, x.shape, per_row)
    if z is None:
        formal = next(i for i in v.schema.inputs if i.name == name)
        raise Rejected(f"{name}: '{' '.join(formal.description.split())}' ({name} {np.shape(zp)}, "
                       f"{'A' if per_row else 'B'} {x.shape})")
    return exact_values(x) - z


@OPERATOR.semantics
def mat_mul_integer(v, attrs, inputs):
    """Y = (A - a_zero_point) @ (B - b_zero_point) as numpy.matmul (1-D operands promoted and the added
    dimension removed, batch dimensions broadcast), exact, in int32; 'The accumulation may overflow if
    and only if in 32 bits': an overflowing sum has no value."""
    a, b = np.asarray(inputs["A"]), np.asarray(inputs["B"])
    matmul_shapes(a.shape, b.shape)
    ea = shifted(v, a, inputs.get("a_zero_point"), "a_zero_point", per_row=True)
    eb = shifted(v, b, inputs.get("b_zero_point"), "b_zero_point", per_row=False)
    return {"Y": int32_accumulation(int_matmul(ea, eb))}


def matmul_integer(v, a, b, azp=None, bzp=None):
    """The case: zero points broadcast against A/B as the doc shapes them (scalar; [M] or [..., M, 1] per
    row of A; [N] or [..., 1, N] per column of B)."""
    return OPERATOR.expect(v, {"A": a, "B": b, "a_zero_point": azp, "b_zero_point": bzp})


def operand(type_name, shape, rng):
    """The type's whole range, its ends included."""
    lo, hi = values.int_range(type_name)
    x = rng.integers(lo, hi + 1, size=shape)
    flat = x.reshape(-1)
    flat[:2] = [lo, hi][: flat.size]
    return x.astype(type_name)


def zp(type_name, shape=()):
    return np.full(shape, 7 if type_name == "uint8" else -5, dtype=type_name)


@OPERATOR.example(name="default")
def documented(v, t, rng):
    if (t["T1"], t["T2"]) != ("uint8", "uint8"):
        return NotApplicable("the documented example is uint8 x uint8; per_tensor covers this binding")
    a = np.array([[11, 7, 3], [10, 6, 2], [9, 5, 1], [8, 4, 0]], np.uint8)
    b = np.array([[1, 4], [2, 5], [3, 6]], np.uint8)
    return matmul_integer(v, a, b, np.array([12], np.uint8), np.array([0], np.uint8))


@OPERATOR.example
def per_tensor(v, t, rng):
    """Scalar zero points; the operands span their types' ranges."""
    return matmul_integer(v, operand(t["T1"], (3, 5), rng), operand(t["T2"], (5, 4), rng), zp(t["T1"]), zp(t["T2"]))


@OPERATOR.example
def no_zero_point(v, t, rng):
    """Both zero points left out: 'default value is 0'."""
    return matmul_integer(v, operand(t["T1"], (2, 3), rng), operand(t["T2"], (3, 3), rng))


@OPERATOR.example
def per_row_column(v, t, rng):
    """a_zero_point an M element vector (per row), b_zero_point an N element vector (per column)."""
    azp = np.array([1, 0, 5], dtype=t["T1"])
    bzp = np.array([3, 0, 2, 1], dtype=t["T2"])
    return matmul_integer(v, operand(t["T1"], (3, 5), rng), operand(t["T2"], (5, 4), rng), azp, bzp)


@OPERATOR.example
def batched(v, t, rng):
    """[D, M, K] x [D, K, N] with zero points of shape [D, M, 1] and [D, 1, N]."""
    azp = np.array([[[1], [0], [5]], [[2], [3], [0]]], dtype=t["T1"])
    bzp = np.array([[[3, 0]], [[1, 2]]], dtype=t["T2"])
    return matmul_integer(v, operand(t["T1"], (2, 3, 4), rng), operand(t["T2"], (2, 4, 2), rng), azp, bzp)


@OPERATOR.example
def broadcast(v, t, rng):
    """numpy.matmul's broadcast: [2, 1, 3, 4] x [3, 4, 2]; scalar zero points."""
    return matmul_integer(v, operand(t["T1"], (2, 1, 3, 4), rng), operand(t["T2"], (3, 4, 2), rng),
                          zp(t["T1"]), zp(t["T2"]))


@OPERATOR.example
def vector(v, t, rng):
    """A 1-D A: numpy.matmul prepends a 1 to its shape and removes it after."""
    return matmul_integer(v, operand(t["T1"], (5,), rng), operand(t["T2"], (5, 3), rng), zp(t["T1"]), zp(t["T2"]))


@OPERATOR.example
def extremes(v, t, rng):
    """The largest products the types allow: (lo - zp) * (lo - zp) in every term."""
    lo1, hi1 = values.int_range(t["T1"])
    lo2, hi2 = values.int_range(t["T2"])
    a = np.array([[lo1, lo1, lo1, hi1], [hi1, hi1, hi1, lo1]], dtype=t["T1"])
    b = np.array([[lo2, hi2], [lo2, hi2], [lo2, hi2], [hi2, lo2]], dtype=t["T2"])
    return matmul_integer(v, a, b, np.array(hi1, t["T1"]), np.array(hi2, t["T2"]))


@OPERATOR.rejection
def incompatible_shapes(v, t, rng):
    """A's columns (4) differ from B's rows (5)."""
    a = operand(t["T1"], (3, 4), rng)
    b = operand(t["T2"], (5, 2), rng)
    return OPERATOR.reject(v, {"A": a, "B": b}, {}, {"Y": Declared("int32", (3, 2))})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^per_row_column \w+: .*could not be broadcast together with shapes \(3,5\) \(3,\)",
    "the evaluator subtracts a_zero_point by numpy broadcasting, which lines an M element vector up with A's "
    "K columns; the doc: 'If the input is 2D of shape [M, K] then zero point tensor may be an M element vector "
    "[zp_1, zp_2, ..., zp_M]' (per row quantization)",
)
