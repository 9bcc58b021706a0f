"""BitShift: X's bits moved by Y places, toward the low end ("RIGHT") or the high end ("LEFT")."""

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.arithmetic_family import broadcast_operands, one_type
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.logic_family import FORMS, as_type, binary_case, bit_patterns, elementwise
from onnx_conformance.generators.movement import data, declared
from onnx_conformance.generators.semantics import Rejected, Undefined, rule

OPERATOR = Operator("BitShift", primary="T")


def width(t) -> int:
    """T's number of bits."""
    return int(t.np().itemsize * 8)


def defines_overflow(v) -> bool:
    """Opset 28 says what bits shifted out of T, and shifts by >= the width or < 0, give; opset 11
    says neither (C leaves both undefined), so its data keeps every shift inside the type."""
    return v.sentence(r"greater than or equal to the number of bits") is not None


def shift(direction: str, bits: int):
    """The opset-28 rule: an arithmetic right shift, a left shift whose bits past T's width are
    discarded (elementwise wraps them), and a shift by < 0 or >= the width giving the sign fill."""

    def rule(x: int, y: int) -> int:
        if y < 0 or y >= bits:
            # 'the result is whatever the sign bit extension alone produces: -1 for a right shift
            # on a negative X ... and 0 in every other case'
            return -1 if direction == "RIGHT" and x < 0 else 0
        # Python's >> on a negative int is the arithmetic (sign-extending) shift the spec asks for
        return x >> y if direction == "RIGHT" else x << y

    return rule


@OPERATOR.semantics
def bit_shift(v, attrs, inputs):
    """Z = X shifted by Y places (numpy-style broadcasting), in T's width; opset 11 defines neither
    bits shifted out of T nor a shift by T's width or more (Undefined), opset 28 both."""
    x, y = np.asarray(inputs["X"]), np.asarray(inputs["Y"])
    t = one_type(v, {"X": x, "Y": y})
    direction = attrs.get("direction")
    if direction not in ("RIGHT", "LEFT"):
        raise Rejected(rule(v, r"^It can be", "direction"))
    x, y = broadcast_operands(v, x, y, attrs)
    bits = int(np.dtype(x.dtype).itemsize * 8)
    each = shift(direction, bits) if defines_overflow(v) else within_width(shift(direction, bits), bits)
    return {"Z": elementwise(each, t, [x, y], [t, t], wraps=defines_overflow(v))}


def within_width(rule, bits: int):
    """Opset 11: a shift by the type's width or more is undefined (as in C)."""

    def shifted(x: int, y: int) -> int:
        if y >= bits:
            raise Undefined(f"BitShift-11 does not define a shift by {y}, {bits} bits or more (C leaves it undefined)")
        return rule(x, y)

    return shifted


def case(v, t, direction, x, y):
    x, y = np.asarray(x), np.asarray(y)
    return binary_case(OPERATOR, v, x, y, names=("X", "Y", "Z"), attrs={"direction": direction})


def listed(v, t, direction, x, y):
    return case(v, t, direction, as_type(t, x), as_type(t, y))


def signed_only(v, t):
    if values.int_range(t.dtype)[0] == 0:
        return NotApplicable("a negative value needs a signed T (opset 28 adds them); Y has type T too")
    return None


def overflow_only(v, what: str):
    if not defines_overflow(v):
        return NotApplicable(f"BitShift-11 does not define {what} (C leaves it undefined); opset 28 defines it")
    return None


@OPERATOR.example
def right(v, t, rng):
    """The doc's 'if "direction" is "RIGHT", X is [1, 4], and Y is [1, 1]' in onnx's [16, 4, 1] form."""
    return listed(v, t, "RIGHT", [16, 4, 1], [1, 2, 3])


@OPERATOR.example
def left(v, t, rng):
    return listed(v, t, "LEFT", [16, 4, 1], [1, 2, 3])


@OPERATOR.example
def right_negative_input(v, t, rng):
    """'For a signed T the right shift is an arithmetic shift (sign-extending).'"""
    lo = values.int_range(t.dtype)[0]
    return signed_only(v, t) or listed(v, t, "RIGHT", [-8, -1, lo], [1, 1, 1])


@OPERATOR.example
def left_overflow(v, t, rng):
    """'bits shifted past the sign bit are discarded'; in an unsigned T, past the top bit."""
    na = overflow_only(v, "bits shifted out of T")
    if na:
        return na
    lo, hi = values.int_range(t.dtype)
    bits = width(t)
    top = [2 ** (bits - 2), 1, -(2 ** (bits - 2))] if lo < 0 else [2 ** (bits - 1), 1, hi]
    return listed(v, t, "LEFT", top, [1, bits - 1, 1])


def shift_ge_width(direction):
    def example(v, t, rng):
        na = overflow_only(v, "a shift amount >= the bit width")
        if na:
            return na
        lo, hi = values.int_range(t.dtype)
        bits = width(t)
        x = [-8, 4, -1, 1] if lo < 0 else [hi - 7, 4, hi, 1]
        return listed(v, t, direction, x, [bits, bits + 1, 127 if bits == 8 else 100, hi])

    return example


def negative_shift(direction):
    def example(v, t, rng):
        na = overflow_only(v, "a negative shift amount") or signed_only(v, t)
        if na:
            return na
        lo = values.int_range(t.dtype)[0]
        bits = width(t)
        return listed(v, t, direction, [-8, 4, -1, 1], [-1, -bits, -2 * bits, lo])

    return example


OPERATOR.example(shift_ge_width("RIGHT"), name="right_shift_ge_width")
OPERATOR.example(shift_ge_width("LEFT"), name="left_shift_ge_width")
OPERATOR.example(negative_shift("RIGHT"), name="right_negative_shift")
OPERATOR.example(negative_shift("LEFT"), name="left_negative_shift")


def dtype_range(direction):
    """The type's limits and alternating bit patterns, each by 0, 1, half the width and width - 1."""

    def example(v, t, rng):
        bits = width(t)
        hi = values.int_range(t.dtype)[1]
        pairs = [(x, y) for x in bit_patterns(t.dtype) for y in (0, 1, bits // 2, bits - 1)]
        if direction == "LEFT" and not defines_overflow(v):
            pairs = [(x, y) for x, y in pairs if x << y <= hi]
        x, y = zip(*pairs)
        return listed(v, t, direction, list(x), list(y))

    return example


OPERATOR.example(dtype_range("RIGHT"), name="dtype_range_right")
OPERATOR.example(dtype_range("LEFT"), name="dtype_range_left")


def amounts(t, shape, most, rng):
    return rng.integers(0, most + 1, size=shape).astype(t.np())


@OPERATOR.example
def rank0(v, t, rng):
    """A scalar X shifted right by a (2, 3) tensor of amounts."""
    (sx, sy), _ = FORMS["rank0"]
    return case(v, t, "RIGHT", data(t, sx, rng), amounts(t, sy, width(t) - 1, rng))


@OPERATOR.example
def zero_dim(v, t, rng):
    (sx, sy), _ = FORMS["zero_dim"]
    return case(v, t, "LEFT", amounts(t, sx, 15, rng), amounts(t, sy, 3, rng))


@OPERATOR.example
def rank8(v, t, rng):
    """Values below 16 shifted left by at most 3: inside every T, so defined in opset 11 too."""
    (sx, sy), _ = FORMS["rank8"]
    return case(v, t, "LEFT", amounts(t, sx, 15, rng), amounts(t, sy, 3, rng))


@OPERATOR.rejection
def invalid_direction(v, t, rng):
    x = as_type(t, [16, 4, 1])
    return OPERATOR.reject(v, {"X": x, "Y": as_type(t, [1, 2, 3])}, {"direction": "UP"}, {"Z": declared(t.dtype, 1)})
