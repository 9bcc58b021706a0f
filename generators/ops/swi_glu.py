"""SwiGLU: Y = Swish_alpha(A) * B, Swish_alpha(a) = a * Sigmoid(alpha * a); A and B of one shape."""

import mpmath
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.norm_family import float_attr
from onnx_conformance.generators.norm_family import documented, ex, mp, rounded
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("SwiGLU")

DOC_A = [[1.0, -2.0, 3.0, 4.0], [-1.0, 2.0, -3.0, 0.5]]
DOC_B = [[0.5, 1.0, -1.0, 2.0], [2.0, -1.0, 0.5, 1.0]]


@OPERATOR.semantics
def swiglu(v, attrs, inputs):
    """Y = A * Sigmoid(alpha * A) * B elementwise ('Inputs `A` and `B` must have identical shapes'),
    alpha a FLOAT (default 1.0): in mpmath at PREC bits, rounded once to T."""
    a, b = inputs["A"], inputs["B"]
    if a.shape != b.shape:
        raise Rejected(v.sentence(r"must have identical shapes") or "A and B must have identical shapes")
    al = mp(float_attr(attr(attrs, "alpha", 1.0)))
    with mpmath.workprec(PREC):
        y = np.vectorize(lambda x, z: mp(x) / (1 + mpmath.exp(-al * mp(x))) * mp(z), otypes=[object])(ex(a), ex(b))
    return {"Y": rounded(np.asarray(y, dtype=object).reshape(a.shape), name_of_numpy(a.dtype))}


def case(v, t, a, b, alpha=None):
    """The case: the attributes given, the semantics' Y."""
    attrs = {} if alpha is None else {"alpha": alpha}
    # a sigmoid and two products: the composite budget (accuracy.py), no cancellation
    return OPERATOR.expect(v, {"A": a, "B": b}, attrs, tolerance=budget("composite", t.dtype))


@OPERATOR.example
def swiglu_(v, t, rng):
    """onnx's test_swiglu (and, in float16, test_swiglu_float16): the documented (2, 4) data."""
    return case(v, t, documented(DOC_A, t.dtype), documented(DOC_B, t.dtype))


OPERATOR.examples["swiglu"] = OPERATOR.examples.pop("swiglu_")


@OPERATOR.example
def alpha(v, t, rng):
    """onnx's test_swiglu_alpha: alpha 0.5."""
    return case(v, t, documented(DOC_A, t.dtype), documented(DOC_B, t.dtype), alpha=0.5)


def operand(t, shape, rng):
    return (values.sample(t.dtype, shape, rng, specials=False).astype(np.float64) / 8).astype(t.np())


@OPERATOR.example
def random(v, t, rng):
    """(3, 4, 5) gates and values in [-8, 8]."""
    return case(v, t, operand(t, (3, 4, 5), rng), operand(t, (3, 4, 5), rng))


@OPERATOR.example
def alpha_large_gate(v, t, rng):
    """alpha 1.702 (the GELU-like Swish), gates out to +-8 where the sigmoid saturates."""
    return case(v, t, operand(t, (2, 9), rng), operand(t, (2, 9), rng), alpha=1.702)


@OPERATOR.example
def rank0(v, t, rng):
    return case(v, t, operand(t, (), rng), operand(t, (), rng))


@OPERATOR.example
def empty(v, t, rng):
    return case(v, t, operand(t, (2, 0, 3), rng), operand(t, (2, 0, 3), rng))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^\w+ b?float16: .*max ulp",
    "the evaluator computes float16 and bfloat16 in the type itself (exp and the products each rounded to "
    "the narrow type); ours is the exact value rounded once",
)
