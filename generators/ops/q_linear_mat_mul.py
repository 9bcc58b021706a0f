"""QLinearMatMul: the real product of the dequantized operands, quantized with y_scale and y_zero_point.

real = ((a - a_zero_point) * a_scale) @ ((b - b_zero_point) * b_scale), exactly;
y = saturate((real / y_scale) + y_zero_point), rounding half to even (integers) or once to a float 8 type.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.quant_family import (
    along,
    array,
    dtype_name,
    exact_values,
    int32_accumulation,
    int_matmul,
    matmul_shapes,
    requantize,
)
from onnx_conformance.generators.semantics import Rejected

OPERATOR = Operator("QLinearMatMul", primary="T1",
                    defaults={"T2": lambda v, b: b["T1"], "T3": lambda v, b: b["T1"], "TS": "float"})

# 'The quantization formula is y = saturate((x / y_scale) + y_zero_point)': the spec does not say in
# what precision a runtime forms a_scale * b_scale / y_scale times the integer product, so with
# onnx's documented scales (not powers of two) the result may round either way at a half.
DOC_TOLERANCE = {"atol": 1}


def scale_type(v, t) -> str:
    return t["TS"] if "TS" in v.type_params else "float"


def dequantized(v, x: np.ndarray, scale, zp, name: str, per_row: bool) -> np.ndarray:
    """(x - zero point) * scale, exactly, the pair per tensor or (a) per row / (b) per column: 'Scale and zero
    point must have same shape. They must be either scalar (per tensor) or N-D tensor (per row for 'a' and
    per column for 'b')'."""
    pair = v.sentence(r"Scale and zero point must have same shape")
    if np.shape(scale) != np.shape(zp):
        raise Rejected(f"{pair} ({name}_scale {np.shape(scale)}, {name}_zero_point {np.shape(zp)})")
    s, z = along(scale, x.shape, per_row), along(zp, x.shape, per_row)
    if s is None or z is None:
        raise Rejected(f"{v.sentence(r'They must be either scalar')} ({name}_scale {np.shape(scale)}, {name} {x.shape})")
    return (exact_values(x) - z) * s


@OPERATOR.semantics
def qlinear_mat_mul(v, attrs, inputs):
    """y = saturate(real / y_scale + y_zero_point), real = the exact numpy.matmul of the dequantized operands;
    x / y_scale rounded half to even (integers) or once to the float 8 type, saturating (QLinearMatMul has no
    saturate attribute). The integer accumulation 'may overflow if and only if in 32 bits': an overflowing
    one has no value. y's scale and zero point are per tensor (the spec gives per row and per column to a and
    b only)."""
    a, b = np.asarray(inputs["a"]), np.asarray(inputs["b"])
    matmul_shapes(a.shape, b.shape)
    ea = dequantized(v, a, inputs["a_scale"], inputs["a_zero_point"], "a", per_row=True)
    eb = dequantized(v, b, inputs["b_scale"], inputs["b_zero_point"], "b", per_row=False)
    ys, yz = inputs["y_scale"], inputs["y_zero_point"]
    if np.size(ys) != 1 or np.shape(ys) != np.shape(yz):
        raise Rejected(f"{v.sentence(r'Scale and zero point must have same shape')} y_scale and y_zero_point: per "
                       f"tensor, one value (y_scale {np.shape(ys)}, y_zero_point {np.shape(yz)})")
    if all(dtype_name(x).startswith(("int", "uint")) for x in (a, b)):
        int32_accumulation(int_matmul(exact_values(a) - along(inputs["a_zero_point"], a.shape, True),
                                      exact_values(b) - along(inputs["b_zero_point"], b.shape, False)))
    real = np.asarray(int_matmul(ea, eb), dtype=object)
    return {"y": requantize(real, exact_values(ys).reshape(-1)[0], exact_values(yz).reshape(-1)[0], dtype_name(yz))}


def qlinear_matmul(v, t, a, a_scale, azp, b, b_scale, bzp, y_scale, yzp, tolerance=None):
    inputs = {"a": a, "a_scale": a_scale, "a_zero_point": azp, "b": b, "b_scale": b_scale, "b_zero_point": bzp,
              "y_scale": y_scale, "y_zero_point": yzp}
    return OPERATOR.expect(v, inputs, tolerance=tolerance)


# ---------------------------------------------------------------------------------------------
# onnx's documented examples: 2D and 3D, uint8 and int8, float and float16 scales


A_DOC = [[208, 236, 0, 238], [3, 214, 255, 29]]
B_DOC = [[152, 51, 244], [60, 26, 255], [0, 127, 246], [127, 254, 247]]


def documented(rank, quant, scale):
    def example(v, t, rng):
        st = scale_type(v, t)
        if (t["T1"], t["T2"], t["T3"], st) != (quant, quant, quant, scale):
            return NotApplicable(f"the documented example is {quant} with {scale} scales; per_tensor covers this binding")
        shift = 127 if quant == "int8" else 0
        a = np.array(A_DOC) - shift
        b = np.array(B_DOC) - shift
        if rank == 3:
            a, b = np.stack([a, a]), np.stack([b, b])
        s = lambda x: np.array([x], dtype=np.float32).astype(np.dtype("float16") if scale == "float16" else np.float32)
        z = lambda k: np.array([k - shift], dtype=quant)
        return qlinear_matmul(v, t, a.astype(quant), s(0.0066), z(113), b.astype(quant), s(0.00705), z(114),
                              s(0.0107), z(118), tolerance=DOC_TOLERANCE)

    return example


for _rank in (2, 3):
    for _quant in ("uint8", "int8"):
        for _scale in ("float", "float16"):
            OPERATOR.example(documented(_rank, _quant, _scale),
                             name=f"{_rank}D_{_quant}_{'float32' if _scale == 'float' else _scale}")


# ---------------------------------------------------------------------------------------------
# our own: power-of-two scales and small magnitudes, so every reading of the arithmetic is exact


def small(type_name: str, shape, rng, zp: int) -> np.ndarray:
    """Values within 3 of the zero point (integers) or in {0, +-0.5, +-1, +-1.5, +-2, +-3} (float 8)."""
    n = int(np.prod(shape))
    if values.is_int(type_name):
        return array([zp + int(k) for k in rng.integers(-3, 4, size=n)], type_name, shape)
    pool = [0, 0.5, -0.5, 1, -1, 1.5, -1.5, 2, -2, 3, -3]
    return array([Fraction(pool[int(k)]) for k in rng.integers(0, len(pool), size=n)], type_name, shape)


def zero_point(type_name: str, near_top: bool = False) -> int:
    if not values.is_int(type_name):
        return 0
    lo, hi = values.int_range(type_name)
    return hi - 4 if near_top else (5 if lo == 0 else -2)


def ours(v, t, rng, a_shape, b_shape, y_near_top=False):
    st = scale_type(v, t)
    azp, bzp = zero_point(t["T1"]), zero_point(t["T2"])
    yzp = zero_point(t["T3"], y_near_top)
    a = small(t["T1"], a_shape, rng, azp)
    b = small(t["T2"], b_shape, rng, bzp)
    one = lambda x: array([x], st)
    zp = lambda k, ty: array([k], ty)
    # a_scale * b_scale / y_scale = 1/2: integer products land on halves (ties to even)
    return qlinear_matmul(v, t, a, one(Fraction(1, 2)), zp(azp, t["T1"]), b, one(Fraction(1, 4)), zp(bzp, t["T2"]),
                          one(Fraction(1, 4)), zp(yzp, t["T3"]))


@OPERATOR.example
def per_tensor(v, t, rng):
    """Every binding: 2D [3, 3] x [3, 5], halves in real / y_scale."""
    return ours(v, t, rng, (3, 3), (3, 5))


@OPERATOR.example
def saturation(v, t, rng):
    """y_zero_point near the top of the output type: large products saturate."""
    if not values.is_int(t["T3"]):
        return NotApplicable("saturation of a float 8 output needs values beyond its range; the spec gives "
                             "QLinearMatMul no saturate attribute to say which rule applies")
    st = scale_type(v, t)
    azp, bzp = zero_point(t["T1"]), zero_point(t["T2"])
    a = array([[azp + 3] * 3, [azp - 3] * 3], t["T1"]) if values.is_int(t["T1"]) else array([[3] * 3, [-3] * 3], t["T1"])
    b = array([[bzp + 3] * 2] * 3, t["T2"]) if values.is_int(t["T2"]) else array([[3] * 2] * 3, t["T2"])
    lo, hi = values.int_range(t["T3"])
    yzp = hi - 4
    return qlinear_matmul(v, t, a, array([1], st), array([azp], t["T1"]), b, array([1], st), array([bzp], t["T2"]),
                          array([Fraction(1, 4)], st), array([yzp], t["T3"]))


@OPERATOR.example
def batched(v, t, rng):
    """3D [2, 2, 3] x [2, 3, 4]."""
    return ours(v, t, rng, (2, 2, 3), (2, 3, 4))


@OPERATOR.example
def broadcast(v, t, rng):
    """numpy.matmul's broadcast: [2, 3, 2] x [2, 4]."""
    return ours(v, t, rng, (2, 3, 2), (2, 4))


# Per row (a) and per column (b): 'Scalar refers to per tensor quantization whereas N-D refers to per row or per
# column quantization.' Scales are powers of two with a_scale * b_scale / y_scale a whole number, so no product
# lands on a half; the zero points differ row by row (column by column) in the integer types.
ROW_SCALES = [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)]
COLUMN_SCALES = [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)]


def row_zero_points(type_name: str, n: int) -> list[int]:
    if not values.is_int(type_name):
        return [0] * n
    lo, _ = values.int_range(type_name)
    return [(5 if lo == 0 else -2) + 3 * k for k in range(n)]


def shifted(type_name: str, shape, rng, zps, axis: int) -> np.ndarray:
    """Values within 3 of each row's (axis -2) or column's (axis -1) zero point, or small float 8 values."""
    if not values.is_int(type_name):
        return small(type_name, shape, rng, 0)
    zp = np.array(zps).reshape((-1, 1) if axis == -2 else (1, -1))
    return array(zp + rng.integers(-3, 4, size=shape), type_name)


def per_row_column(v, t, rng, batch: tuple, vectors: bool):
    """a [*batch, 3, 4] per row, b [*batch, 4, 5] per column: as the doc's 'M element vector' and 'K element
    vector' (`vectors`, 2-D) or as its N-D '[D1, D2, M, 1]' and '[D1, D2, 1, K]' shapes."""
    st = scale_type(v, t)
    azp, bzp = row_zero_points(t["T1"], 3), row_zero_points(t["T2"], 5)
    a = shifted(t["T1"], batch + (3, 4), rng, azp, -2)
    b = shifted(t["T2"], batch + (4, 5), rng, bzp, -1)
    a_shape = (3,) if vectors else batch + (3, 1)
    b_shape = (5,) if vectors else batch + (1, 5)
    a_scale = array(np.broadcast_to(np.array(ROW_SCALES, dtype=object).reshape(3, 1), batch + (3, 1)), st, a_shape)
    a_zp = array(np.broadcast_to(np.array(azp, dtype=object).reshape(3, 1), batch + (3, 1)), t["T1"], a_shape)
    b_scale = array(np.broadcast_to(np.array(COLUMN_SCALES, dtype=object), batch + (1, 5)), st, b_shape)
    b_zp = array(np.broadcast_to(np.array(bzp, dtype=object), batch + (1, 5)), t["T2"], b_shape)
    yzp = (128 if t["T3"] == "uint8" else 0) if values.is_int(t["T3"]) else 0
    return qlinear_matmul(v, t, a, a_scale, a_zp, b, b_scale, b_zp, array([Fraction(1, 16)], st),
                          array([yzp], t["T3"]))


@OPERATOR.example
def per_row_per_column(v, t, rng):
    """2-D: a_scale and a_zero_point 'an M element vector' (3), b's 'K element vector' (5, b's columns)."""
    return per_row_column(v, t, rng, (), vectors=True)


@OPERATOR.example
def per_row_per_column_batched(v, t, rng):
    """3-D [2, 3, 4] x [2, 4, 5]: a's scale and zero point [2, 3, 1] ('[D1, D2, M, 1] for per row'), b's
    [2, 1, 5] ('[D1, D2, 1, K] for per column')."""
    return per_row_column(v, t, rng, (2,), vectors=False)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"max abs err 1\b",
    "the evaluator rounds after adding the zero point (rint(C * a_scale * b_scale / y_scale + y_zero_point)); the "
    "spec rounds x / y_scale half to even and then adds y_zero_point ('For (x / y_scale), it is rounding to "
    "nearest ties to even'), so at a half with an odd zero point they differ by one (onnxruntime agrees with ours)",
)
OPERATOR.reference_differs(
    r"Invalid integer data type",
    "the evaluator's QLinearMatMul clips with np.iinfo and has no float 8 (QLinearMatMul-21's float8 types)",
)
OPERATOR.reference_differs(
    r"^per_tensor int8: .*max abs err 2\b",
    "with a float 8 operand (b float8e4m3fn) the evaluator converts b to int32 (b.astype(np.int32)), truncating "
    "its halves; the spec dequantizes b as (b - b_zero_point) * b_scale",
)
OPERATOR.reference_differs(
    r"^per_row_per_column_batched int8: .*values differ",
    "with a float 8 operand (b float8e4m3fn, ...) the evaluator converts b to int32 (b.astype(np.int32)), truncating "
    "its fractions; the spec dequantizes b as (b - b_zero_point) * b_scale (onnxruntime 1.31.1 has no float 8 "
    "QLinearMatMul)",
)
OPERATOR.reference_differs(
    r"^per_row_per_column \S+: reference evaluator raised ValueError: operands could not be broadcast",
    "the evaluator subtracts a's zero point and multiplies a's scale along the last axis (numpy broadcasting), so "
    "'an M element vector [v_1, v_2, ..., v_M] for per row quantization' of a [M, K] does not broadcast; "
    "onnxruntime 1.31.1 refuses it too ('input zero point must be a scalar or 1D tensor of size 1'), a finding",
)
