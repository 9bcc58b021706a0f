"""MatMul: the matrix product as numpy.matmul defines it (1-D operands promoted, batch dimensions broadcast)."""

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Case, Declared, NotApplicable, Operator
from onnx_conformance.generators.linalg_family import ieee_specials, matmul, operand, to_type, tolerance

OPERATOR = Operator("MatMul")


def product(t, a, b):
    return Case({"A": a, "B": b}, {"Y": to_type(matmul(a, b), t.dtype)}, tolerance=tolerance(t))


def shapes(a_shape, b_shape):
    def example(v, t, rng):
        return product(t, operand(t, a_shape, rng), operand(t, b_shape, rng))

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
def ieee_specials_2d(v, t, rng):
    """NaN propagates, inf * 0 is NaN, inf + -inf is NaN (IEEE 754)."""
    if not values.is_float(t.dtype):
        return NotApplicable(f"{t.dtype} has no NaN or infinity")
    return product(t, ieee_specials(t, (3, 4), rng), operand(t, (4, 3), rng))


@OPERATOR.rejection
def incompatible_shapes(v, t, rng):
    """A's last dimension (4) differs from B's second to last (5): numpy.matmul refuses them."""
    return Case({"A": operand(t, (3, 4), rng), "B": operand(t, (5, 2), rng)}, {"Y": Declared(t.dtype, (3, 2))},
                error="'Matrix product that behaves like numpy.matmul': A's last dimension must equal B's "
                      "second to last")
