"""Range: start, start + delta, ... up to limit (exclusive), each element start + i*delta computed exactly and rounded once."""

import math
from fractions import Fraction

import ml_dtypes
import numpy as np

from onnx_conformance.generators.case import Operator, type_of
from onnx_conformance.generators.rounding import round_array
from onnx_conformance.generators.semantics import Rejected, Undefined
from onnx_conformance.generators.values import is_float
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = Operator("Range")


@OPERATOR.semantics
def range_semantics(v, attrs, inputs):
    """The spec's number_of_elements = max(ceil((limit - start) / delta), 0) and output[i] = start + (i * delta),
    in exact arithmetic, each element rounded once to T (stash_type, from version 27, names a precision
    for the intermediate values of float16 and bfloat16: the exact value is what it approximates)."""
    operands = [inputs[name] for name in ("start", "limit", "delta")]
    for name, x in zip(("start", "limit", "delta"), operands):
        if np.ndim(x) != 0:
            raise Rejected(f"{name}: " + " ".join(next(i.description for i in v.schema.inputs if i.name == name).split()))
    kind = type_of(operands[0])
    if is_float(kind) and not all(math.isfinite(float(x)) for x in operands):
        raise Undefined("a NaN or infinite operand: ceil((limit - start) / delta) has no value")
    fs, fl, fd = (Fraction(float(x)) if is_float(kind) else Fraction(int(x)) for x in operands)
    if fd == 0:
        raise Undefined("delta 0: number_of_elements = max(ceil((limit - start) / delta), 0) divides by zero")
    n = max(math.ceil((fl - fs) / fd), 0)
    exact = [fs + i * fd for i in range(n)]
    if is_float(kind):
        return {"output": round_array(exact, kind, (n,))}
    return {"output": np.array([int(x) for x in exact], dtype=object).astype(numpy_of(kind)).reshape(n)}


def _case(v, t, start, limit, delta):
    """Operands exact in the type, so only the rounding of each element is left."""
    dt = t.np()
    s, l, d = (np.array(float(x) if is_float(t.dtype) else int(x), dtype=dt) for x in (start, limit, delta))
    fs, fl, fd = (Fraction(float(x)) if is_float(t.dtype) else Fraction(int(x)) for x in (s, l, d))
    if (fs, fl, fd) != (Fraction(start), Fraction(limit), Fraction(delta)):
        raise ValueError(f"Range example operands {start}, {limit}, {delta} are not exact in {t.dtype}")
    return OPERATOR.expect(v, {"start": s, "limit": l, "delta": d})


@OPERATOR.example
def positive_delta(v, t, rng):
    """onnx's test_range_{float,float16,bfloat16}_type_positive_delta: 1, 5, 2 -> [1, 3]."""
    return _case(v, t, 1, 5, 2)


@OPERATOR.example
def negative_delta(v, t, rng):
    """onnx's test_range_int32_type_negative_delta: 10, 6, -3 -> [10, 7]."""
    return _case(v, t, 10, 6, -3)


@OPERATOR.example
def doc_example_1(v, t, rng):
    """The schema's Example 1: start = 3, limit = 9, delta = 3 -> [3, 6]."""
    return _case(v, t, 3, 9, 3)


@OPERATOR.example
def doc_example_2(v, t, rng):
    """The schema's Example 2: start = 10, limit = 4, delta = -2 -> [10, 8, 6] (odd count)."""
    return _case(v, t, 10, 4, -2)


@OPERATOR.example
def empty(v, t, rng):
    """limit on the wrong side of start: max(ceil(...), 0) = 0 elements."""
    return _case(v, t, 5, 1, 2)


@OPERATOR.example
def partial_step(v, t, rng):
    """(limit - start) / delta not whole: the count rounds up, the last element stays below limit."""
    if is_float(t.dtype):
        return _case(v, t, Fraction(-1, 2), Fraction(9, 4), Fraction(3, 4))  # exact binary fractions: 4 elements
    return _case(v, t, -4, 7, 3)


@OPERATOR.example
def near_max(v, t, rng):
    """Elements next to the type's largest value (integers) or where the float spacing is 2: no overflow,
    no accumulated rounding (start + i*delta, not repeated additions)."""
    dt = t.np()
    if is_float(t.dtype):
        top = Fraction(2) ** (ml_dtypes.finfo(dt).nmant + 1)  # spacing 2 from here: only even values exist
        return _case(v, t, top, top + 8, 2)
    hi = int(np.iinfo(dt).max)
    return _case(v, t, hi - 7, hi, 3)


@OPERATOR.example
def negative_range(v, t, rng):
    """Negative start, negative delta, down towards the type's smallest value (integers)."""
    if is_float(t.dtype):
        return _case(v, t, -1, -6, -1)
    lo = int(np.iinfo(t.np()).min)
    return _case(v, t, lo + 8, lo, -4)

# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(r"output 0 shape \((\d+), 1\) != expected \(\1,\)",
                           "in the expanded twin, the body's Loop scans out a scalar (range = Identity(prev)) each "
                           "iteration; Loop's scan outputs are those values concatenated along a new first axis, "
                           "(n,), and the evaluator's Loop stacks them as (n, 1)")
