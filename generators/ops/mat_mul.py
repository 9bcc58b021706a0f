"""MatMul: the matrix product as numpy.matmul defines it (1-D operands promoted, batch dimensions broadcast)."""

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.accuracy import accumulation
from onnx_conformance.generators.case import Declared, NotApplicable, Operator
from onnx_conformance.generators.linalg_family import (beyond_the_type, finite_magnitudes, ieee_specials, matmul,
                                                       operand, rounded, tolerance)
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("MatMul")

NUMPY = "'Matrix product that behaves like numpy.matmul'"


@OPERATOR.semantics
def product(v, attrs, inputs):
    """Y = A @ B as numpy.matmul: a 1-D A gains a leading 1 and a 1-D B a trailing 1 (removed from
    Y), the batch dimensions broadcast; exact, rounded once to the inputs' type."""
    a, b = inputs["A"], inputs["B"]
    if a.ndim == 0 or b.ndim == 0:
        raise Rejected(f"{NUMPY}: numpy.matmul takes no scalar operand")
    if a.shape[-1] != b.shape[0 if b.ndim == 1 else -2]:
        raise Rejected(f"{NUMPY}: A's last dimension must equal B's second to last")
    try:
        np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise Rejected(f"{NUMPY}: the batch dimensions of A and B must broadcast")
    return {"Y": rounded(matmul(a, b), name_of_numpy(a.dtype))}


@OPERATOR.quality
def overflowing(v, attrs, inputs, outputs):
    a, b = inputs["A"], inputs["B"]
    return beyond_the_type(np.matmul(finite_magnitudes(a), finite_magnitudes(b)), name_of_numpy(a.dtype))


def case(v, t, a, b):
    return OPERATOR.expect(v, {"A": a, "B": b}, tolerance=tolerance(t))


def shapes(a_shape, b_shape):
    def example(v, t, rng):
        return case(v, t, operand(t, a_shape, rng), operand(t, b_shape, rng))

    return example


# The documented shapes (onnx's test_matmul_*).
OPERATOR.example(shapes((3, 4), (4, 3)), name="2d")
OPERATOR.example(shapes((2, 3, 4), (2, 4, 3)), name="3d")
OPERATOR.example(shapes((1, 2, 3, 4), (1, 2, 4, 3)), name="4d")
OPERATOR.example(shapes((3, 1, 3, 4), (1, 2, 4, 2)), name="bcast")
OPERATOR.example(shapes((4,), (2, 4, 1)), name="1d_3d")
OPERATOR.example(shapes((1, 2, 4, 3), (3,)), name="4d_1d")
OPERATOR.example(shapes((3,), (3,)), name="1d_1d")
# A zero inner dimension: every element is an empty sum, 0.
OPERATOR.example(shapes((2, 3, 0), (0, 4)), name="zero_inner")


@OPERATOR.example
def long_inner(v, t, rng):
    """K = 256: a 16-bit runtime that adds in the 16-bit type drifts by several units in the last place,
    beyond one rounding of a float sum. Floats scaled by 1/16 (sums stay far below float16's 65504); the
    tolerance is that of a 256-term sum in any order (accuracy.accumulation)."""
    a, b = operand(t, (2, 256), rng), operand(t, (256, 3), rng)
    if values.is_float(t.dtype):
        a, b = a / np.asarray(16, a.dtype), b / np.asarray(16, b.dtype)
        magnitude = float(np.max(np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))))
        return OPERATOR.expect(v, {"A": a, "B": b}, tolerance=accumulation(t.dtype, 256, magnitude))
    return case(v, t, a, b)


@OPERATOR.example
def ieee_specials_2d(v, t, rng):
    """NaN propagates, inf * 0 is NaN, inf + -inf is NaN (IEEE 754)."""
    if not values.is_float(t.dtype):
        return NotApplicable(f"{t.dtype} has no NaN or infinity")
    return case(v, t, ieee_specials(t, (3, 4), rng), operand(t, (4, 3), rng))


@OPERATOR.rejection
def incompatible_shapes(v, t, rng):
    """A's last dimension (4) differs from B's second to last (5): numpy.matmul refuses them."""
    return OPERATOR.reject(v, {"A": operand(t, (3, 4), rng), "B": operand(t, (5, 2), rng)}, {},
                           {"Y": Declared(t.dtype, (3, 2))})
