"""Mutants of the logic, comparison and bitwise operators: signedness, 64-bit integers through doubles or
32 bits, NaN in comparisons written as negations, shift amounts at and past the width, and broadcasting."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import (
    Mutant, as_signed, empty_raises, floating, rank0_as_rank1, result, through, unidirectional, with_inputs,
)

FAMILY = "Logic, comparison and bits"

BROADCAST = "This operator supports **multidirectional (i.e., Numpy-style) broadcasting**"


def _signed(*inputs, **_):
    return tuple(as_signed(x) for x in inputs)


def _negation(of):
    """a >= b written as !(a < b) (and a <= b as !(a > b)): true where either is NaN."""
    def f(y, a, b, **_):
        if not floating(a):
            return y
        return np.logical_not(of(a.astype(np.float64), b.astype(np.float64)))
    return result(f)


def _nan_equal(y, a, b, **_):
    """Equality of the bits (a memcmp): NaN equals a NaN of the same encoding."""
    if not floating(a):
        return y
    wa, wb = np.broadcast_arrays(a.astype(np.float64), b.astype(np.float64))
    return y | (np.isnan(wa) & np.isnan(wb))


def _through_int32(y, *inputs, **_):
    """A 64-bit integer operation done in 32 bits: the high bits come back as the sign extension of bit 31."""
    x = inputs[0]
    if x.dtype.itemsize != 8 or x.dtype.kind not in "iu":
        return y
    low = y.astype(np.int64).astype(np.int32) if x.dtype.kind == "i" else y.astype(np.uint32)
    return low.astype(x.dtype)


def _logical_right_shift(call, x, y, **attrs):
    """RIGHT on a signed type as a logical shift: zeros come in from the left."""
    if attrs.get("direction") != "RIGHT" or x.dtype.kind != "i":
        return call.run(x, y, **attrs)
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    shifted = call.run(x.view(unsigned), y.astype(unsigned), **attrs)[0]
    return (shifted.view(x.dtype),)


def _shift_modulo_width(call, x, y, **attrs):
    """The shift amount taken modulo the width, as x86's shift instructions do."""
    bits = x.dtype.itemsize * 8
    return call.run(x, (y.astype(np.int64) % bits).astype(y.dtype), **attrs)


MUTANTS = [
    Mutant("And.unidirectional", "And", "broadcasting direction", BROADCAST, unidirectional, since=(7, None)),
    Mutant("And.rank0_as_rank1", "And", "scalars", "Returns the tensor resulted from performing the `and` logical "
           "operation elementwise on the input tensors `A` and `B`", rank0_as_rank1),
    Mutant("BitShift.logical_right_shift_of_signed", "BitShift", "signed/unsigned",
           "For a signed T the right shift is an arithmetic shift (sign-extending).", _logical_right_shift,
           since=(28, None)),
    Mutant("BitShift.amount_modulo_width", "BitShift", "index edges",
           "If Y is negative, or is greater than or equal to the number of bits of T, then the result is whatever "
           "the sign bit extension alone produces", _shift_modulo_width, since=(28, None)),
    Mutant("BitShift.unidirectional", "BitShift", "broadcasting direction", BROADCAST, unidirectional),
    Mutant("BitwiseAnd.through_int32", "BitwiseAnd", "cast saturation/wrap",
           "Returns the tensor resulting from performing the bitwise `and` operation elementwise",
           result(_through_int32)),
    Mutant("BitwiseAnd.unidirectional", "BitwiseAnd", "broadcasting direction", BROADCAST, unidirectional),
    Mutant("BitwiseNot.through_int32", "BitwiseNot", "cast saturation/wrap",
           "Returns the bitwise not of the input tensor element-wise.", result(_through_int32)),
    Mutant("BitwiseOr.unidirectional", "BitwiseOr", "broadcasting direction", BROADCAST, unidirectional),
    Mutant("BitwiseOr.empty_raises", "BitwiseOr", "empty tensors",
           "Returns the tensor resulting from performing the bitwise `or` operation elementwise", empty_raises),
    Mutant("BitwiseXor.unidirectional", "BitwiseXor", "broadcasting direction", BROADCAST, unidirectional),
    Mutant("BitwiseXor.rank0_as_rank1", "BitwiseXor", "scalars",
           "Returns the tensor resulting from performing the bitwise `xor` operation elementwise", rank0_as_rank1),
    Mutant("Equal.int64_through_double", "Equal", "integer through float",
           "Returns the tensor resulted from performing the `equal` logical operation elementwise",
           through(np.float64)),
    Mutant("Equal.nan_equals_nan", "Equal", "NaN propagation",
           "Returns the tensor resulted from performing the `equal` logical operation elementwise",
           result(_nan_equal), note="IEEE 754 equality: NaN equals nothing, itself included"),
    Mutant("Equal.unidirectional", "Equal", "broadcasting direction", BROADCAST, unidirectional, since=(7, None)),
    Mutant("Greater.int64_through_double", "Greater", "integer through float",
           "Returns the tensor resulted from performing the `greater` logical operation elementwise",
           through(np.float64)),
    Mutant("Greater.unsigned_as_signed", "Greater", "signed/unsigned",
           "Returns the tensor resulted from performing the `greater` logical operation elementwise",
           with_inputs(_signed)),
    Mutant("GreaterOrEqual.not_less", "GreaterOrEqual", "NaN propagation",
           "Returns the tensor resulted from performing the `greater_equal` logical operation elementwise",
           _negation(np.less), note="IEEE 754 comparisons with NaN are false"),
    Mutant("GreaterOrEqual.unsigned_as_signed", "GreaterOrEqual", "signed/unsigned",
           "Returns the tensor resulted from performing the `greater_equal` logical operation elementwise",
           with_inputs(_signed)),
    Mutant("Less.int64_through_double", "Less", "integer through float",
           "Returns the tensor resulted from performing the `less` logical operation elementwise",
           through(np.float64)),
    Mutant("Less.unsigned_as_signed", "Less", "signed/unsigned",
           "Returns the tensor resulted from performing the `less` logical operation elementwise",
           with_inputs(_signed)),
    Mutant("LessOrEqual.not_greater", "LessOrEqual", "NaN propagation",
           "Returns the tensor resulted from performing the `less_equal` logical operation elementwise",
           _negation(np.greater), note="IEEE 754 comparisons with NaN are false"),
    Mutant("LessOrEqual.int64_through_double", "LessOrEqual", "integer through float",
           "Returns the tensor resulted from performing the `less_equal` logical operation elementwise",
           through(np.float64)),
    Mutant("Not.rank0_as_rank1", "Not", "scalars", "Returns the negation of the input tensor element-wise.",
           rank0_as_rank1),
    Mutant("Or.unidirectional", "Or", "broadcasting direction", BROADCAST, unidirectional, since=(7, None)),
    Mutant("Or.empty_raises", "Or", "empty tensors", "Returns the tensor resulted from performing the `or` logical "
           "operation elementwise", empty_raises),
    Mutant("Where.unidirectional", "Where", "broadcasting direction", BROADCAST, unidirectional),
    Mutant("Where.empty_raises", "Where", "empty tensors",
           "Return elements, either from X or Y, depending on condition.", empty_raises),
    Mutant("Xor.unidirectional", "Xor", "broadcasting direction", BROADCAST, unidirectional, since=(7, None)),
    Mutant("Xor.rank0_as_rank1", "Xor", "scalars", "Returns the tensor resulted from performing the `xor` logical "
           "operation elementwise", rank0_as_rank1),
]
