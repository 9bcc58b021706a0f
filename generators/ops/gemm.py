"""Gemm: Y = alpha * A' * B' + beta * C, A' and B' optionally transposed, C broadcast to (M, N)."""

from fractions import Fraction

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Case, Declared, NotApplicable, Operator
from onnx_conformance.generators.linalg_family import exact_array, matmul, operand, to_type, tolerance

OPERATOR = Operator("Gemm")


def attribute_value(x: float) -> Fraction:
    """alpha and beta are FLOAT attributes: their value is the float32 nearest the written one."""
    return Fraction(float(np.float32(x)))


def gemm(v, t, a, b, c, alpha=None, beta=None, transA=0, transB=0):
    """The case; C None leaves the input out (optional from Gemm-11: 'computed as if C is a scalar 0')."""
    if c is None and not v.schema.inputs[2].option.name == "Optional":
        return NotApplicable(f"Gemm-{v.since_version}'s input C is required; it is optional from Gemm-11")
    attrs = {k: x for k, x in (("alpha", alpha), ("beta", beta), ("transA", transA), ("transB", transB)) if x}
    ab = matmul(a.T if transA else a, b.T if transB else b)
    y = ab * attribute_value(1.0 if alpha is None else alpha)
    if c is not None:
        if c.shape != y.shape:
            if v.has_attribute("broadcast"):
                # Gemm-1/6: 'If attribute broadcast is non-zero, input tensor C will be broadcasted'.
                attrs["broadcast"] = 1
        y = y + exact_array(c) * attribute_value(1.0 if beta is None else beta)
    if values.is_int(t.dtype) and any(e.denominator != 1 for e in np.asarray(y, dtype=object).reshape(-1)):
        raise ValueError("integer Gemm with a non-integral exact result")
    return Case({"A": a, "B": b, "C": c}, {"Y": to_type(y, t.dtype)}, attrs, tolerance=tolerance(t))



@OPERATOR.example
def default_zero_bias(v, t, rng):
    return gemm(v, t, operand(t, (3, 5), rng), operand(t, (5, 4), rng), np.zeros((1, 4), t.np()))


@OPERATOR.example
def default_no_bias(v, t, rng):
    return gemm(v, t, operand(t, (2, 10), rng), operand(t, (10, 3), rng), None)


@OPERATOR.example
def default_scalar_bias(v, t, rng):
    return gemm(v, t, operand(t, (2, 3), rng), operand(t, (3, 4), rng), operand(t, (), rng))


@OPERATOR.example
def default_single_elem_vector_bias(v, t, rng):
    return gemm(v, t, operand(t, (3, 7), rng), operand(t, (7, 3), rng), operand(t, (1,), rng))


@OPERATOR.example
def default_vector_bias(v, t, rng):
    return gemm(v, t, operand(t, (2, 7), rng), operand(t, (7, 4), rng), operand(t, (1, 4), rng))


@OPERATOR.example
def default_matrix_bias(v, t, rng):
    return gemm(v, t, operand(t, (3, 6), rng), operand(t, (6, 4), rng), operand(t, (3, 4), rng))


@OPERATOR.example
def column_bias(v, t, rng):
    """C of shape (M, 1): broadcast along N, the other unidirectional direction."""
    return gemm(v, t, operand(t, (3, 6), rng), operand(t, (6, 4), rng), operand(t, (3, 1), rng))


@OPERATOR.example
def transposeA(v, t, rng):
    return gemm(v, t, operand(t, (6, 3), rng), operand(t, (6, 4), rng), np.zeros((1, 4), t.np()), transA=1)


@OPERATOR.example
def transposeB(v, t, rng):
    return gemm(v, t, operand(t, (3, 6), rng), operand(t, (4, 6), rng), np.zeros((1, 4), t.np()), transB=1)


def even(t, shape, rng):
    """Integer data scaled by 0.5 stays integral when it is even (an integer Y must be exact)."""
    x = operand(t, shape, rng)
    return (x // 2 * 2).astype(t.np()) if values.is_int(t.dtype) else x


@OPERATOR.example
def alpha(v, t, rng):
    return gemm(v, t, even(t, (3, 5), rng), operand(t, (5, 4), rng), np.zeros((1, 4), t.np()), alpha=0.5)


@OPERATOR.example
def beta(v, t, rng):
    return gemm(v, t, operand(t, (2, 7), rng), operand(t, (7, 4), rng), even(t, (1, 4), rng), beta=0.5)


@OPERATOR.example
def all_attributes(v, t, rng):
    if values.is_int(t.dtype):
        # float32(0.35) * C is no integer for any nonzero integer C.
        return NotApplicable("beta = 0.35 makes Y non-integral for integer C; the spec does not say how "
                             "Gemm rounds an integer Y")
    return gemm(v, t, operand(t, (4, 3), rng), operand(t, (5, 4), rng), operand(t, (1, 5), rng),
                alpha=0.25, beta=0.35, transA=1, transB=1)



@OPERATOR.rejection
def inner_dimensions_mismatch(v, t, rng):
    """A is (M, K) = (3, 4), B is (K, N) = (5, 2): the two K differ."""
    return Case({"A": operand(t, (3, 4), rng), "B": operand(t, (5, 2), rng), "C": operand(t, (3, 2), rng)},
                {"Y": Declared(t.dtype, (3, 2))},
                error="'input tensor A has shape (M, K) or (K, M), input tensor B has shape (K, N) or (N, K)': "
                      "A's K (4) and B's K (5) differ")


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"No implementation for operator 'Gemm' domain '' and version [1-5]\b",
    "the evaluator implements Gemm from version 6 only",
)
OPERATOR.reference_differs(
    r"^default_matrix_bias float16: .*dtype float != expected float16",
    "the evaluator's Gemm-6 returns alpha * A * B + beta * C without casting back when broadcast is 0 "
    "(numpy promotes the float attributes' product to float32)",
)
