"""What the comparison, logical and bitwise operators share: semantics from an element rule, data, examples.

An operator module names its operator and its element rule (a Python function of exact scalars:
ints as int, floats as float, which holds every float16/bfloat16/float/double exactly and compares
them by IEEE 754); the family turns the rule into the operator's semantics (one input type T, the
version's broadcasting: opset 1's `broadcast`/`axis` attributes, "See the doc of `Add`", or
numpy-style from opset 7), and everything else -- which examples exist, their shapes, the data at
each type's limits -- is written once here.
"""

from __future__ import annotations

import math
from typing import Callable

import ml_dtypes
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.arithmetic_family import broadcast_operands, legacy, one_type
from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import data, declared
from onnx_conformance.generators.semantics import Undefined
from onnx_conformance.generators.spec import versions
from onnx_conformance.harness.dtypes import numpy_of

Rule = Callable[..., object]


# ---------------------------------------------------------------------------------------------
# exact oracles


def scalar(x, type_name: str):
    """One element as an exact Python value: float() is exact for every IEEE type up to double."""
    if type_name == "string":
        return str(x)
    if type_name == "bool":
        return bool(x)
    if values.is_int(type_name):
        return int(x)
    return float(x)


def wrap(r: int, type_name: str) -> int:
    """An integer as the type's bits read back: modulo 2^bits, two's complement for a signed type."""
    lo, hi = values.int_range(type_name)
    return (r - lo) % (hi - lo + 1) + lo


def elementwise(rule: Rule, out_type: str, arrays: list[np.ndarray], types: list[str],
                wraps: bool = False) -> np.ndarray:
    """rule applied to each broadcast tuple of exact elements. An integer result must fit out_type
    (else it is Undefined: an overflow), unless `wraps` (a bitwise result is a bit pattern of the
    type's width)."""
    b = np.broadcast_arrays(*[np.asarray(a) for a in arrays])
    shape = b[0].shape if b else ()
    flat = [list(x.reshape(-1)) for x in b]
    out = [rule(*(scalar(x, t) for x, t in zip(items, types))) for items in zip(*flat)]
    if values.is_int(out_type):
        lo, hi = values.int_range(out_type)
        out = [wrap(r, out_type) for r in out] if wraps else out
        bad = next((r for r in out if not lo <= r <= hi), None)
        if bad is not None:
            raise Undefined(f"{bad} is outside {out_type}: the spec gives no value for an integer overflow")
        return np.array(out, dtype=object).astype(numpy_of(out_type)).reshape(shape)
    return np.array(out, dtype=numpy_of(out_type)).reshape(shape)


# Opset 1's sentence enabling B's broadcast (its rules: "See the doc of `Add`").
ENABLED = r"broadcasting is enabled"


def binary_semantics(op: Operator, rule: Rule, out_type: str | None = None) -> None:
    """Register op's meaning: `rule` on each broadcast pair of A's and B's elements (A and B of one
    type T), broadcast as the version says; C of out_type, or of T bit for bit (an integer result
    wraps to the type's width)."""

    @op.semantics
    def semantics(v, attrs, inputs):
        a, b = np.asarray(inputs["A"]), np.asarray(inputs["B"])
        t = one_type(v, {"A": a, "B": b})
        a, b = broadcast_operands(v, a, b, attrs, ENABLED)
        return {"C": elementwise(rule, out_type or t, [a, b], [t, t], wraps=out_type is None)}


def unary_semantics(op: Operator, rule: Rule) -> None:
    """Register op's meaning: `rule` on each element of X, Y of X's type T, bit for bit."""

    @op.semantics
    def semantics(v, attrs, inputs):
        x = np.asarray(inputs["X"])
        t = one_type(v, {"X": x})
        return {"Y": elementwise(rule, t, [x], [t], wraps=True)}


# ---------------------------------------------------------------------------------------------
# operands


def as_type(t, vals, param: str | None = None) -> np.ndarray:
    """Python values as the binding's type; an int beyond int64 (uint64 edges) goes in exactly."""
    return np.array(vals, dtype=object).astype(t.np(param)) if vals else np.array(vals, dtype=t.np(param))


def operands(t, shape_a, shape_b, rng, axis: int | None = None):
    """A and B of the type, B agreeing with A where they meet in about a third of its elements,
    so Equal, LessOrEqual and GreaterOrEqual see both answers. With `axis` (opset 1), B meets A
    from that dimension on."""
    if axis is not None:
        a, b = operands(t, shape_a, aligned_shape(shape_a, shape_b, axis), rng)
        return a, b.reshape(shape_b)
    a = data(t, shape_a, rng)
    b = data(t, shape_b, rng)
    if b.size and a.size:
        out = np.broadcast_shapes(np.shape(a), np.shape(b))
        big = np.broadcast_to(a, out)
        lead = len(out) - len(shape_b)
        # A's element at the first place each element of B meets it.
        meet = big[(0,) * lead + tuple(slice(0, 1) if d == 1 else slice(None) for d in shape_b)]
        same = rng.random(np.shape(b)) < 0.34
        b = np.where(same, np.reshape(meet, np.shape(b)), b).astype(b.dtype)  # a 0-d meet is a scalar
    return a, b


# ---------------------------------------------------------------------------------------------
# broadcasting


def aligned_shape(shape_a, shape_b, axis: int) -> tuple:
    """'The starting of the mutually equal shape is specified by the argument "axis"' (opset 1):
    B's dims line up with A's from axis on, where numpy lines them up at the end."""
    return tuple(shape_b) + (1,) * (len(shape_a) - axis - len(shape_b))


def binary_case(op: Operator, v, a, b, names=("A", "B", "C"), attrs: dict | None = None) -> Case:
    """The case of op on A and B, its output from op's semantics; opset 1's form asks for
    broadcast=1 where the shapes differ."""
    attrs = dict(attrs or {})
    if legacy(v) and np.shape(a) != np.shape(b):
        # 'If broadcasting is enabled, the right-hand-side argument will be broadcasted to match
        # the shape of left-hand-side argument.' (opset 1; the data above is in that form)
        attrs["broadcast"] = 1
    x, y, _ = names
    return op.expect(v, {x: a, y: b}, attrs)


# Broadcasting forms beyond the documented ones: (A, B) in numpy form, and the opset-1 form
# (B a suffix of A, or a contiguous run of A from `axis`) for versions with broadcast/axis.
FORMS = {
    # a scalar against a tensor; opset 1 only broadcasts B, so there B is the scalar
    "rank0": (((), (2, 3)), ((2, 3), ())),
    # every operand rank 0: the result is rank 0 too (a scalar against a tensor hides a (1,) reading)
    "rank0_both": (((), ()), ((), ())),
    # a zero-sized dimension broadcasting against 1s
    "zero_dim": (((2, 0, 1), (1, 3)), ((2, 0, 3), (3,))),
    # rank 8, the 1-sized dimensions in different places in A and B; opset 1 uses axis=2
    "rank8": (((2, 1, 3, 1, 1, 1, 2, 1), (1, 1, 3, 1, 1, 1, 1, 2)), ((2, 1, 3, 1, 1, 1, 2, 2), (3, 1, 1, 1), 2)),
}


def form(v, name: str):
    """(shape_a, shape_b, attrs) of a FORMS entry for this version."""
    numpy_form, legacy_form = FORMS[name]
    if not legacy(v):
        return numpy_form[0], numpy_form[1], {}
    return legacy_form[0], legacy_form[1], ({"axis": legacy_form[2]} if len(legacy_form) > 2 else {})


def legacy_only(v) -> NotApplicable | None:
    if not legacy(v):
        return NotApplicable("opset 7 replaced the broadcast/axis attributes by multidirectional "
                             "(Numpy-style) broadcasting: the version has no axis attribute")
    return None


def numpy_only(v) -> NotApplicable | None:
    if legacy(v):
        return NotApplicable("opset 1 to 6 broadcast only the right-hand side: 'the right-hand-side "
                             "argument will be broadcasted to match the shape of left-hand-side argument'")
    return None


def add_broadcast_examples(op: Operator, out_type: str | None = None) -> None:
    """rank0, zero_dim and rank8; for an operator with opset-1 versions, their legacy examples too."""

    def make(name):
        def example(v, t, rng):
            sa, sb, attrs = form(v, name)
            a, b = operands(t, sa, sb, rng, attrs.get("axis"))
            return binary_case(op, v, a, b, attrs=attrs)

        example.__name__ = name
        op.example(example)

    for name in FORMS:
        make(name)
    if any(legacy(v) for v in versions(op.name)):
        add_legacy_examples(op, out_type)


def add_legacy_examples(op: Operator, out_type: str | None) -> None:
    """Opset 1's axis form, and its rejection of broadcasting without broadcast=1."""

    # Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
    op.reference_differs(r"^(bcast_axis|rank8) .*(raised TypeError|shape)",
                         "opset 1-6: the evaluator ignores the axis attribute and broadcasts numpy-style "
                         "(trailing dims aligned), where 'the starting of the mutually equal shape is "
                         "specified by the argument \"axis\"'")
    op.reference_differs(r"^bcast_without_attribute .*returned outputs",
                         "opset 1-6: the evaluator broadcasts without broadcast=1; the spec enables "
                         "broadcasting only with the attribute")

    @op.example
    def bcast_axis(v, t, rng):
        """The opset-1 doc's shape(A) = (2, 3, 4, 5), shape(B) = (3, 4), with axis=1."""
        na = legacy_only(v)
        if na:
            return na
        a, b = operands(t, (2, 3, 4, 5), (3, 4), rng, axis=1)
        return binary_case(op, v, a, b, attrs={"axis": 1})

    @op.rejection
    def bcast_without_attribute(v, t, rng):
        if not legacy(v):
            return NotApplicable("from opset 7 broadcasting is multidirectional and always on: "
                                 "there is no broadcast attribute to leave out")
        a, b = operands(t, (3, 4), (4,), rng)
        return op.reject(v, {"A": a, "B": b}, None, {"C": declared(out_type or t.dtype, 2)})


def add_documented(op: Operator, shapes: dict, pick: Callable | None = None) -> None:
    """One example per documented shape pair; a multidirectional pair does not exist in opset 1.
    `pick(v, t, name, rng)` may return the documented data itself (Equal's strings)."""

    def make(name, sa, sb):
        def example(v, t, rng):
            fixed = pick(v, t, name, rng) if pick else None
            if fixed is not None:
                a, b = fixed
            else:
                if legacy(v) and np.broadcast_shapes(sa, sb) != tuple(sa):
                    return numpy_only(v)
                a, b = operands(t, sa, sb, rng)
            return binary_case(op, v, a, b)

        op.example(example, name=name)

    for name, (sa, sb) in shapes.items():
        make(name, sa, sb)


# ---------------------------------------------------------------------------------------------
# data at each type's limits


def float_info(type_name: str):
    return ml_dtypes.finfo(numpy_of(type_name))


def next_up(x: float, type_name: str) -> float:
    """The next value of the type above x (finite x below max)."""
    if x == 0:
        return float(float_info(type_name).smallest_subnormal)
    arr = np.array([x], dtype=numpy_of(type_name))
    bits = arr.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.itemsize])
    # sign-magnitude: one more in the bit pattern is one up for a positive x, one down for a negative
    if x > 0:
        bits += 1
    else:
        bits -= 1
    return float(arr[0])


def edge_pairs(type_name: str) -> list[tuple]:
    """(a, b) pairs at and next to the type's limits, where a backend's wider or narrower path
    gets a comparison wrong, and equal pairs among them. Each unequal pair comes also swapped."""
    if type_name == "bool":
        pairs = [(False, False), (False, True), (True, True)]
    elif type_name == "string":
        nfc, nfd = "\u00e9", "e\u0301"  # the same glyph, different code points: not equal
        pairs = [("", ""), ("", " "), ("a", "A"), (nfc, nfd), ("日本語", "日本語"), ("😀", "😁"),
                 (values.LONG_STRING, values.LONG_STRING[:-1] + "Z"), ("abc", "abc\t")]
    elif values.is_int(type_name):
        lo, hi = values.int_range(type_name)
        pairs = [(hi, hi - 1), (lo, lo + 1), (lo, hi), (0, 1), (0, hi), (hi, hi), (lo, lo)]
        if lo < 0:
            pairs += [(-1, 0), (-1, lo), (-1, hi)]
        bits = int(np.dtype(numpy_of(type_name)).itemsize * 8)
        if bits >= 32:  # a float32 path holds 24 bits: 2^24 + 1 becomes 2^24
            pairs += [(2**24 + 1, 2**24), (2**24, 2**24 + 2)]
        if bits == 64:  # beyond 2^32 and 2^53, differing only in the low bits: equal on a double path
            pairs += [(2**32 + 1, 2**32), (2**53 + 1, 2**53), (2**53 + 1, 2**53 + 2), (2**62 + 1, 2**62),
                      (hi, hi - 2), (2**53 + 1, 2**53 + 1), (2**62 + 1, 2**62 + 1)]
            if lo < 0:
                pairs += [(-(2**53) - 1, -(2**53)), (lo, lo + 2)]
    else:
        fi = float_info(type_name)
        big, tiny, sub = float(fi.max), float(fi.smallest_normal), float(fi.smallest_subnormal)
        below_big = -next_up(-big, type_name)
        largest_sub = -next_up(-tiny, type_name)
        one_up = next_up(1.0, type_name)
        nan, inf = math.nan, math.inf
        pairs = [(nan, nan), (nan, 1.0), (nan, inf), (nan, -inf), (nan, 0.0),  # every comparison with NaN is false
                 (-0.0, 0.0), (-0.0, -0.0), (0.0, sub), (-sub, -0.0), (sub, -sub), (sub, 2 * sub),
                 (largest_sub, tiny), (tiny, tiny), (inf, inf), (-inf, inf), (inf, big), (-inf, -big),
                 (big, below_big), (-big, -below_big), (1.0, one_up), (one_up, one_up)]
    return pairs + [(b, a) for a, b in pairs if repr(a) != repr(b)]


def pair_arrays(t, pairs) -> tuple[np.ndarray, np.ndarray]:
    a, b = zip(*pairs)
    if t.dtype == "string":
        return np.array(a, dtype=object), np.array(b, dtype=object)
    return as_type(t, list(a)), as_type(t, list(b))


def bit_patterns(type_name: str) -> list[int]:
    """Values at the integer type's limits, and the alternating patterns 0x55.. and 0xAA.. (two's
    complement for a signed type); for 64 bits, values past 2^32 and 2^53 a double path loses."""
    lo, hi = values.int_range(type_name)
    bits = int(np.dtype(numpy_of(type_name)).itemsize * 8)
    fives = int("01" * (bits // 2), 2)
    tens = (fives << 1) - (2**bits if lo < 0 else 0)
    pats = [lo, hi, 0, 1, lo + 1, hi - 1, fives, tens] + ([-1] if lo < 0 else [])
    if bits == 64:
        pats += [2**32 + 1, 2**53 + 1]
    return list(dict.fromkeys(pats))


# ---------------------------------------------------------------------------------------------
# the operators' example sets

# the documented example shapes (onnx's backend node tests): test_<op>, test_<op>_bcast
COMPARISON_SHAPES = {"default": ((3, 4, 5), (3, 4, 5)), "bcast": ((3, 4, 5), (5,))}
# test_and2d ... test_and_bcast4v4d (And, Or, Xor alike)
LOGICAL_SHAPES = {
    "2d": ((3, 4), (3, 4)), "3d": ((3, 4, 5), (3, 4, 5)), "4d": ((3, 4, 5, 6), (3, 4, 5, 6)),
    "bcast3v1d": ((3, 4, 5), (5,)), "bcast3v2d": ((3, 4, 5), (4, 5)), "bcast4v2d": ((3, 4, 5, 6), (5, 6)),
    "bcast4v3d": ((3, 4, 5, 6), (4, 5, 6)), "bcast4v4d": ((1, 4, 1, 6), (3, 1, 5, 6)),
}
UNARY_SHAPES = {"2d": (3, 4), "3d": (3, 4, 5), "4d": (3, 4, 5, 6)}
# shapes of a unary operator's spec edge cases
UNARY_EDGES = {"rank0": (), "zero_dim": (2, 0, 3), "rank8": (2, 1, 3, 1, 1, 1, 2, 1)}
# Equal's documented string data (test_equal_string, test_equal_string_broadcast)
STRINGS = {"default": (["string1", "string2"], ["string1", "string3"]), "bcast": (["string1", "string2"], ["string1"])}


def _documented_strings(v, t, name, rng):
    if t.dtype != "string":
        return None
    a, b = STRINGS[name]
    return np.array(a, dtype=object), np.array(b, dtype=object)


def comparison(name: str, rule: Rule) -> Operator:
    """Equal, Greater, Less, GreaterOrEqual, LessOrEqual: bool C from A and B of type T."""
    op = Operator(name, primary="T")
    binary_semantics(op, rule, "bool")
    add_documented(op, COMPARISON_SHAPES, pick=_documented_strings)
    add_broadcast_examples(op, "bool")

    @op.example
    def dtype_range(v, t, rng):
        """Limits, their neighbours, subnormals, +-0, +-inf and NaN; 64-bit values past 2^53."""
        a, b = pair_arrays(t, edge_pairs(t.dtype))
        return binary_case(op, v, a, b)

    return op


def logical(name: str, rule: Rule) -> Operator:
    """And, Or, Xor: bool C from bool A and B."""
    op = Operator(name, primary="T")
    binary_semantics(op, rule, "bool")
    add_documented(op, LOGICAL_SHAPES)
    add_broadcast_examples(op, "bool")

    @op.example
    def truth_table(v, t, rng):
        a, b = pair_arrays(t, edge_pairs("bool"))
        return binary_case(op, v, a, b)

    return op


def bitwise(name: str, rule: Rule, shapes: dict) -> Operator:
    """BitwiseAnd, BitwiseOr, BitwiseXor: C of type T, bit by bit from A and B."""
    op = Operator(name, primary="T")
    binary_semantics(op, rule)
    add_documented(op, shapes)
    add_broadcast_examples(op)

    @op.example
    def dtype_range(v, t, rng):
        """Every pair of the type's limits and alternating bit patterns, by broadcasting a column
        against a row."""
        pats = bit_patterns(t.dtype)
        a = as_type(t, pats).reshape(-1, 1)
        return binary_case(op, v, a, a.reshape(1, -1)[:, ::-1].copy())

    return op


def unary(name: str, rule: Rule, shapes: dict, ranges: bool = True) -> Operator:
    """Not, BitwiseNot: Y of type T from X, element by element."""
    op = Operator(name, primary="T")
    unary_semantics(op, rule)

    def make(example_name, shape):
        def example(v, t, rng):
            return op.expect(v, {"X": data(t, shape, rng)})

        op.example(example, name=example_name)

    for example_name, shape in {**shapes, **UNARY_EDGES}.items():
        make(example_name, shape)

    if ranges:
        @op.example
        def dtype_range(v, t, rng):
            return op.expect(v, {"X": as_type(t, bit_patterns(t.dtype))})

    return op
