"""Pow: X ** Y elementwise, correctly rounded in X's type T (Y's type T1 from version 12), with broadcasting."""

import math

import numpy as np

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.arithmetic_family import (
    Binary,
    binary_examples,
    documented,
    floats,
    ints,
    is_float,
    legacy,
    pow_exact,
)
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import declared
from onnx_conformance.harness.dtypes import numpy_of

# Y's type defaults to X's where T1 allows it: the same-type pairs, then every T1 with float X.
OPERATOR = Operator("Pow", primary="T",
                    defaults={"T1": lambda v, b: b["T"] if b["T"] in v.type_params["T1"] else "int64"})


def pow_(x, y, v, t, attrs):
    """x ** y, exact or correctly rounded in X's type (pow_exact); None where undefined."""
    if isinstance(x, float) and isinstance(y, int) and math.copysign(1.0, x) < 0 and not holds(t.dtype, y):
        # A negative base's sign follows y's parity, which a runtime converting Y to T loses;
        # the spec says nothing of that conversion: undefined, and no such pair is emitted.
        return None
    return pow_exact(x, y)


def holds(type_name, y):
    """Whether X's type holds the integer exponent y exactly (an exponent beyond it overflows to inf)."""
    with np.errstate(over="ignore"):
        return float(np.array(y, dtype=np.float64).astype(numpy_of(type_name))) == y and abs(y) < 2**53


def draw(v, t, shape, rng, side):
    """Bases in [0, 8] (the documented arange's role), exponents in [-3, 3]; an integer result needs
    a nonzero integer base (0 ** 0 is left undefined) and a small non-negative integral exponent
    (a negative one is undefined there)."""
    integer_result = not is_float(t.dtype)
    if side == 0:
        if integer_result:
            return ints(t.dtype, shape, rng, -3, 3, nonzero=True)
        return floats(t.dtype, shape, rng, 0.0, 8.0)
    ty = SPEC.b_type(t)
    if integer_result or not is_float(ty):
        whole = ints("int8", shape, rng, 0 if integer_result or ty.startswith("u") else -3, 3)
        return whole.astype(numpy_of(ty))
    return floats(ty, shape, rng, -3.0, 3.0)


SPEC = Binary(pow_, draw, tolerance=lambda t: budget("pow", t.dtype), names=("X", "Y", "Z"), b_param="T1")
binary_examples(OPERATOR, SPEC, "pow", forms=("bcast_empty", "bcast_rank8"))


def documented_case(v, t, x, y):
    attrs = {"broadcast": 1} if legacy(v) and np.shape(x) != np.shape(y) else {}
    return SPEC.case(v, t, documented(t.dtype, x), documented(SPEC.b_type(t), y), attrs)


@OPERATOR.example
def example(v, t, rng):
    """[1, 2, 3] ** [4, 5, 6]; with T1 bound, the documented 'types' examples too."""
    return documented_case(v, t, [1, 2, 3], [4, 5, 6])


@OPERATOR.example
def bcast_scalar(v, t, rng):
    return documented_case(v, t, [1, 2, 3], 2)


@OPERATOR.example
def bcast_array(v, t, rng):
    return documented_case(v, t, [[1, 2, 3], [4, 5, 6]], [1, 2, 3])


@OPERATOR.rejection
def types_differ(v, t, rng):
    """Before version 12 X and Y are both of type T: a double exponent for a float base breaks that."""
    if "T1" in v.type_params:
        return NotApplicable("from version 12 Y has its own type parameter T1: any allowed pair is valid")
    x = floats("float", (2, 3), rng, 0.0, 8.0)
    inputs = {"X": x, "Y": np.array([2.0, 1.0, 0.5], np.float64)}
    return OPERATOR.reject(v, inputs, {"broadcast": 1} if legacy(v) else {}, {"Z": declared("float", 2)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(r"TypeError: .*attributes \['(axis', ')?broadcast'\]",
                           "the evaluator's Pow takes no legacy `broadcast`/`axis` attributes (Pow-1)")
OPERATOR.reference_differs(r"^types_differ .*returned outputs",
                           "the evaluator does not check type constraints: it raises a float base to a double power")
