"""Gemm: Y = alpha * A' * B' + beta * C, A' and B' optionally transposed, C broadcast to (M, N)."""

import re
from fractions import Fraction

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Declared, NotApplicable, Operator
from onnx_conformance.generators.linalg_family import (absorbing, beyond_the_type, exact_array, finite_magnitudes,
                                                       matmul, operand, plain, rounded, tolerance)
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, rule
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("Gemm")


def attribute_value(x: float) -> Fraction:
    """alpha and beta are FLOAT attributes: their value is the float32 nearest the written one."""
    return Fraction(float(np.float32(x)))


SHAPES = "input tensor A has shape (M, K) or (K, M), input tensor B has shape (K, N) or (N, K)"


@OPERATOR.semantics
def gemm(v, attrs, inputs):
    """Y = alpha * A' * B' + beta * C, A' = A transposed when transA (B' likewise), C broadcast to
    (M, N) (unidirectionally from version 7; before, only with broadcast = 1), a missing C (from
    version 11) 'as if C is a scalar 0'; exact, rounded once to the inputs' type."""
    a, b, c = inputs["A"], inputs["B"], inputs.get("C")
    for name, x in (("A", a), ("B", b)):
        if x.ndim != 2:
            raise Rejected(rule(v, r"The shape of", name) or f"'{SHAPES}': {name} has rank {x.ndim}")
    a = a.T if attr(attrs, "transA", 0) else a
    b = b.T if attr(attrs, "transB", 0) else b
    if a.shape[1] != b.shape[0]:
        raise Rejected(f"'{SHAPES}': A's K ({a.shape[1]}) and B's K ({b.shape[0]}) differ")
    y = matmul(a, b) * attribute_value(attr(attrs, "alpha", 1.0))
    if c is None and v.schema.inputs[2].option.name != "Optional":
        raise Rejected(f"Gemm-{v.since_version}'s input C is required; it is optional from Gemm-11")
    if c is not None:
        if c.shape != y.shape and v.has_attribute("broadcast") and not attr(attrs, "broadcast", 0):
            raise Rejected(re.search(r"input tensor C and output tensor Y have dimension \(M X N\)", v.doc).group(0))
        try:
            if np.broadcast_shapes(c.shape, y.shape) != y.shape:
                raise ValueError
        except ValueError:
            raise Rejected(rule(v, r"broadcastable", "C") or f"'{SHAPES}, input tensor C is broadcastable "
                                                              f"to shape (M, N)': C {c.shape}, (M, N) {y.shape}")
        beta = attribute_value(attr(attrs, "beta", 1.0))
        y = plain(absorbing(y) + absorbing(np.broadcast_to(exact_array(c), y.shape)) * beta)
    type_name = name_of_numpy(a.dtype)
    if values.is_int(type_name) and any(e.denominator != 1 for e in np.asarray(y, dtype=object).reshape(-1)):
        raise Undefined("alpha or beta makes an integer Y non-integral; the spec does not say how Gemm rounds it")
    return {"Y": rounded(y, type_name)}


@OPERATOR.quality
def overflowing(v, attrs, inputs, outputs):
    """alpha * A' * B' + beta * C: the finite terms' magnitudes, each scaled as the formula scales it."""
    a, b, c = inputs["A"], inputs["B"], inputs.get("C")
    a = a.T if attr(attrs, "transA", 0) else a
    b = b.T if attr(attrs, "transB", 0) else b
    alpha, beta = (abs(float(attribute_value(attr(attrs, k, 1.0)))) for k in ("alpha", "beta"))
    bound = np.matmul(finite_magnitudes(a), finite_magnitudes(b)) * np.longdouble(alpha)
    if c is not None:
        bound = bound + np.broadcast_to(finite_magnitudes(c), bound.shape) * np.longdouble(beta)
    return beyond_the_type(bound, name_of_numpy(a.dtype))


def gemm_case(v, t, a, b, c, alpha=None, beta=None, transA=0, transB=0):
    """The case; C None leaves the input out (optional from Gemm-11: 'computed as if C is a scalar 0')."""
    if c is None and not v.schema.inputs[2].option.name == "Optional":
        return NotApplicable(f"Gemm-{v.since_version}'s input C is required; it is optional from Gemm-11")
    attrs = {k: x for k, x in (("alpha", alpha), ("beta", beta), ("transA", transA), ("transB", transB)) if x}
    mn = (a.shape[1 if transA else 0], b.shape[0 if transB else 1])
    if c is not None and v.has_attribute("broadcast") and c.shape != mn:
        # Gemm-1/6: 'If attribute broadcast is non-zero, input tensor C will be broadcasted'.
        attrs["broadcast"] = 1
    return OPERATOR.expect(v, {"A": a, "B": b, "C": c}, attrs, tolerance=tolerance(t))


@OPERATOR.example
def default_zero_bias(v, t, rng):
    return gemm_case(v, t, operand(t, (3, 5), rng), operand(t, (5, 4), rng), np.zeros((1, 4), t.np()))


@OPERATOR.example
def default_no_bias(v, t, rng):
    return gemm_case(v, t, operand(t, (2, 10), rng), operand(t, (10, 3), rng), None)


@OPERATOR.example
def default_scalar_bias(v, t, rng):
    return gemm_case(v, t, operand(t, (2, 3), rng), operand(t, (3, 4), rng), operand(t, (), rng))


@OPERATOR.example
def default_single_elem_vector_bias(v, t, rng):
    return gemm_case(v, t, operand(t, (3, 7), rng), operand(t, (7, 3), rng), operand(t, (1,), rng))


@OPERATOR.example
def default_vector_bias(v, t, rng):
    return gemm_case(v, t, operand(t, (2, 7), rng), operand(t, (7, 4), rng), operand(t, (1, 4), rng))


@OPERATOR.example
def default_matrix_bias(v, t, rng):
    return gemm_case(v, t, operand(t, (3, 6), rng), operand(t, (6, 4), rng), operand(t, (3, 4), rng))


@OPERATOR.example
def column_bias(v, t, rng):
    """C of shape (M, 1): broadcast along N, the other unidirectional direction."""
    return gemm_case(v, t, operand(t, (3, 6), rng), operand(t, (6, 4), rng), operand(t, (3, 1), rng))


@OPERATOR.example
def transposeA(v, t, rng):
    return gemm_case(v, t, operand(t, (6, 3), rng), operand(t, (6, 4), rng), np.zeros((1, 4), t.np()), transA=1)


@OPERATOR.example
def transposeB(v, t, rng):
    return gemm_case(v, t, operand(t, (3, 6), rng), operand(t, (4, 6), rng), np.zeros((1, 4), t.np()), transB=1)


def even(t, shape, rng):
    """Integer data scaled by 0.5 stays integral when it is even (an integer Y must be exact)."""
    x = operand(t, shape, rng)
    return (x // 2 * 2).astype(t.np()) if values.is_int(t.dtype) else x


@OPERATOR.example
def alpha(v, t, rng):
    return gemm_case(v, t, even(t, (3, 5), rng), operand(t, (5, 4), rng), np.zeros((1, 4), t.np()), alpha=0.5)


@OPERATOR.example
def beta(v, t, rng):
    return gemm_case(v, t, operand(t, (2, 7), rng), operand(t, (7, 4), rng), even(t, (1, 4), rng), beta=0.5)


@OPERATOR.example
def all_attributes(v, t, rng):
    if values.is_int(t.dtype):
        # float32(0.35) * C is no integer for any nonzero integer C.
        return NotApplicable("beta = 0.35 makes Y non-integral for integer C; the spec does not say how "
                             "Gemm rounds an integer Y")
    return gemm_case(v, t, operand(t, (4, 3), rng), operand(t, (5, 4), rng), operand(t, (1, 5), rng),
                alpha=0.25, beta=0.35, transA=1, transB=1)



@OPERATOR.rejection
def inner_dimensions_mismatch(v, t, rng):
    """A is (M, K) = (3, 4), B is (K, N) = (5, 2): the two K differ."""
    inputs = {"A": operand(t, (3, 4), rng), "B": operand(t, (5, 2), rng), "C": operand(t, (3, 2), rng)}
    return OPERATOR.reject(v, inputs, {}, {"Y": Declared(t.dtype, (3, 2))})


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
