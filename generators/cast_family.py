"""The conversion Cast and CastLike share: every (from, to) pair, each value exact, rounded once per the Cast doc.

`cast` is the meaning both operators state (Cast's `to`, CastLike's target_type name the target):
every element converted under the version's rules -- IEEE rounding, the float 8 saturation tables,
FLOAT8E8M0's round_mode, integer wrap-around (4- and 2-bit types included), string parsing and
printing -- and `Undefined` where the doc gives no value. Values travel as exact rationals
(Fraction) or the words "nan", "inf", "-inf", "-0". For each pair the examples' data are the
target's trouble spots (its rounding ties, +-max and just beyond, subnormals and half of the
smallest one, integer range ends and wrap-around) that the source type holds exactly, plus the
source's own special encodings; a value whose result the doc leaves undefined is left out.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache

import ml_dtypes
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import NotApplicable, Operator, Types, type_of
from onnx_conformance.generators.rounding import has_inf, has_nan, round_to
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.harness.dtypes import numpy_of

IEEE = ("float16", "bfloat16", "float", "double")
FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")
SPECIAL = ("nan", "inf", "-inf", "-0")
MAX_ELEMS = 32
DBL_MAX = Fraction(float(np.finfo(np.float64).max))


class CastOperator(Operator):
    """Bound per (T1, T2) pair, not per cell: each pair is its own conversion. Case names end in
    the source then the target type. `full(v)` says which versions get the whole matrix; the others
    get the framework's cells (every T1 to float, float to every T2)."""

    def __init__(self, name: str, full=lambda v: True):
        super().__init__(name, primary="T1", defaults={"T2": "float"})
        self.full = full

    def bindings(self, v):
        p = v.type_params
        if self.full(v):
            return [Types({"T1": a, "T2": b}, "T1", (b,)) for a in p["T1"] for b in p["T2"]]
        return [Types(dict(t), "T1", (t["T2"],)) for t in super().bindings(v)]


@lru_cache(maxsize=None)
def kind(t: str) -> str:
    if t in ("string", "bool"):
        return t
    if values.is_int(t):
        return "int"
    if t in IEEE:
        return "ieee"
    if t in FLOAT8:
        return "f8"
    if t == "float8e8m0":
        return "e8m0"
    return "mx"  # float4e2m1, float6e2m3, float6e3m2: no infinity, no NaN


def tolerance(dst: str):
    # A cast is exact: float outputs are graded to the bit, not with the type's default rtol.
    return {"ulp": 0} if dst in IEEE else None


# ---------------------------------------------------------------------------------------------
# the conversion of one value


def convert(x, src: str, dst: str, since: int, saturate: bool = True, round_mode: str = "up"):
    """x (exact or special) cast from src to dst under the version's rules; None where undefined."""
    k = kind(dst)
    from_float = kind(src) not in ("int", "bool")  # a string parses to a float value
    word = x if isinstance(x, str) else None  # one of SPECIAL, else x is an exact number
    if k == "bool":
        # "+/- 0.0 to False; all else to True"; fixed point "zero to False; nonzero to True".
        return not (word == "-0" or (word is None and x == 0))
    if k == "int":
        lo, hi = values.int_range(dst)
        if from_float:
            # "fixed point: undefined if OOR"; how a fraction becomes an integer is not stated.
            if word is not None:
                return 0 if word == "-0" else None
            if x.denominator != 1 or not lo <= x <= hi:
                return None
            return int(x)
        if not lo <= x <= hi and since < 13:
            return None  # before Cast-13 the doc states no rule for out-of-range values
        # "discard higher bits and reinterpret (with respect to two's complement ...)".
        return (int(x) - lo) % (hi - lo + 1) + lo
    if k == "e8m0":
        return _e8m0(x, saturate, round_mode)
    if word == "nan":
        return None if k == "mx" else math.nan
    if word in ("inf", "-inf"):
        sign = -1.0 if word == "-inf" else 1.0
        if k == "ieee":
            return sign * math.inf
        if k == "mx":
            return None  # no infinity to give, and no rule for it
        if saturate:
            # Cast 19-23 tables: Inf -> NaN in the fnuz types; from 24 on: Inf -> FLT_MAX in all four.
            if since < 24 and dst.endswith("fnuz"):
                return math.nan
            return sign * float(ml_dtypes.finfo(numpy_of(dst)).max)
        return sign * math.inf if dst == "float8e5m2" else math.nan
    if word == "-0":
        return -0.0
    big = _largest(dst)
    if k == "mx" and abs(x) > big:
        return None  # out of range: neither the float rule (infinity) nor a clamp is stated
    if k == "ieee" and abs(x) > big and since < 13:
        return None  # "+/- infinity if OOR" is stated from Cast-13 on
    r = round_to(x, dst, saturate=saturate if k == "f8" else False)
    if k == "ieee" and abs(x) > big and np.isfinite(r):
        # beyond FLT_MAX yet rounding back to it: "infinity if OOR" and IEEE rounding disagree
        return None
    return float(r)


@lru_cache(maxsize=None)
def _largest(dst: str) -> Fraction:
    """The largest finite value of a float type, exactly."""
    return Fraction(float(ml_dtypes.finfo(numpy_of(dst)).max))


def _e8m0(x, saturate: bool, round_mode: str):
    """The FLOAT8E8M0 table's two columns (saturate + up, non-saturate + nearest) where it is given;
    elsewhere only NaN and values in [E8M0_MIN, E8M0_MAX]. Negative values and -0: undefined."""
    lo, hi = Fraction(2) ** -127, Fraction(2) ** 127
    tabled = (saturate, round_mode) in ((True, "up"), (False, "nearest"))
    if x == "nan":
        return math.nan
    if x in ("-0", "-inf") or (x not in SPECIAL and x < 0):
        return None
    if x == "inf" or (x not in SPECIAL and x > hi):
        return (float(hi) if saturate else math.nan) if tabled else None
    if x < lo:  # 0 included: the saturate + up column maps it to encoding 0, E8M0_MIN
        return (float(lo) if saturate else math.nan) if tabled else None
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    down = Fraction(2) ** e
    if down == x:
        return float(x)
    if round_mode == "down":
        return float(down)
    if round_mode == "nearest" and x < down * Fraction(3, 2):  # "ties round up"
        return float(down)
    return float(min(2 * down, hi)) if saturate or 2 * down <= hi else None


# ---------------------------------------------------------------------------------------------
# the meaning: a tensor cast, strings included

ROUND_MODES = ("up", "down", "nearest")


def cast(v, attrs: dict, x, dst: str) -> np.ndarray:
    """Cast's meaning at version v: x converted to dst element by element, with the attributes'
    defaults (saturate 1, round_mode "up"); Rejected where a type or an attribute is not allowed,
    Undefined where the doc gives an element no value."""
    x = np.asarray(x)
    src = type_of(x)
    for param, name, role in (("T1", src, "the input"), ("T2", dst, "the target")):
        if name not in v.type_params[param]:
            raise Rejected(f"{role} type {name} is not among {param}'s: {', '.join(v.type_params[param])}")
    round_mode = attr(attrs, "round_mode", "up")
    if round_mode not in ROUND_MODES:
        raise Rejected(v.schema.attributes["round_mode"].description)
    saturate = bool(attr(attrs, "saturate", 1))
    ys = []
    for e in x.reshape(-1):
        y = element(e, src, dst, v.since_version, saturate, round_mode)
        if y is None:
            shown = repr(e) if src == "string" else str(e)
            raise Undefined(f"{v.op}-{v.since_version}: the doc gives no {dst} value for the {src} {shown}"
                            f" (saturate={int(saturate)}, round_mode={round_mode!r})")
        ys.append(y)
    out = strings(ys) if dst == "string" else result(ys, dst)
    return out.reshape(x.shape)


def element(e, src: str, dst: str, since: int, saturate: bool = True, round_mode: str = "up"):
    """One element of a src tensor cast to dst under Cast-`since`: the result (exact value, float,
    int or str), or None where the doc gives none."""
    if dst == "string":
        return str(e) if src == "string" else to_string(decode(e, src), src)
    if src == "string":
        return from_string(str(e), dst, since, saturate, round_mode)
    return convert(decode(e, src), src, dst, since, saturate, round_mode)


# "plain (e.g., "3.14" and "1000") and scientific numeric representations (e.g., "1e-5" and "1E8")"
LITERAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
INTEGER = re.compile(r"[+-]?\d+")


def parse(text: str):
    """A string's exact value: "+INF" (and "INF"), "-INF" and "NaN" matched case-insensitively, or a
    plain or scientific number; None for anything else ("Converting non-numerical-literal string
    such as "Hello World!" is an undefined behavior")."""
    low = text.lower()
    if low == "nan":
        return "nan"
    if low in ("inf", "+inf"):
        return "inf"
    if low == "-inf":
        return "-inf"
    if not LITERAL.fullmatch(text):
        return None
    q = Fraction(text)
    return "-0" if q == 0 and text.startswith("-") else q


def from_string(text: str, dst: str, since: int, saturate: bool = True, round_mode: str = "up"):
    """A string cast to dst: to a float type, its number rounded once by the float rules; to an
    integer type an integer literal within range ("string representing floating-point ... to INT is
    an undefined behavior"); None where the doc gives no value (bool: it does not say which strings
    are True; a number no double holds: it speaks of OOR for numeric sources only)."""
    k = kind(dst)
    if k == "bool":
        return None
    if k == "int":
        lo, hi = values.int_range(dst)
        return int(text) if INTEGER.fullmatch(text) and lo <= int(text) <= hi else None
    q = parse(text)
    if q is None or (q not in SPECIAL and abs(q) > DBL_MAX):
        return None
    return convert(q, "double", dst, since, saturate, round_mode)


def to_string(x, src: str) -> str | None:
    """A number as a string: an integer in decimal; a float in "plain floating-point representation
    (such as "314.15926")" where every plain form spells it alike (plain_text); None for a bool (the
    doc does not say how it is spelled)."""
    k = kind(src)
    if k == "bool":
        return None
    if k == "int":
        return str(int(x))
    return plain_text(x)


def plain_text(x) -> str | None:
    """The doc fixes no digits: a value is spelled only where %g, the shortest round-trip text of a
    float or a double and the exact decimal expansion all agree -- not integral ("1" or "1.0"), at
    most six significant digits, no exponent (1e-4 <= |x| < 1e6); NaN and the infinities have no
    stated spelling. None elsewhere."""
    if x in SPECIAL or x.denominator == 1 or not Fraction(1, 10**4) <= abs(x) < 10**6:
        return None
    text = repr(float(x))
    if "e" in text or Fraction(text) != x or len(text.lstrip("-").replace(".", "").strip("0")) > 6:
        return None
    return text


# ---------------------------------------------------------------------------------------------
# the data for each pair


def holds(x, src: str) -> bool:
    """Whether src has x exactly."""
    k = kind(src)
    if k == "bool":
        return x in (0, 1) and x not in SPECIAL
    if k == "int":
        lo, hi = values.int_range(src)
        return x not in SPECIAL and x.denominator == 1 and lo <= x <= hi
    dt = numpy_of(src)
    if x == "nan":
        return has_nan(src)
    if x in ("inf", "-inf"):
        return has_inf(src)
    if x == "-0":
        return bool(np.signbit(np.array(-0.0).astype(dt).astype(np.float64)))
    r = float(round_to(x, src, saturate=True))
    return math.isfinite(r) and Fraction(r) == x


def decode(e, src: str):
    """One element of a src array, as an exact value or a special word."""
    if kind(src) in ("int", "bool"):
        return Fraction(int(e))
    f = float(e)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    if f == 0 and math.copysign(1.0, f) < 0:
        return "-0"
    return Fraction(f)


def float_of(x) -> float:
    return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0": -0.0}[x] if x in SPECIAL else float(x)


def array(xs, src: str) -> np.ndarray:
    k = kind(src)
    if k in ("int", "bool"):
        return np.array([int(x) for x in xs], dtype=object).astype(numpy_of(src))
    return np.array([float_of(x) for x in xs], dtype=np.float64).astype(numpy_of(src))


def trouble(dst: str) -> list:
    """The values where a conversion into dst goes wrong if it is done wrong."""
    F = Fraction
    out = [F(0), "-0", F(1), F(-1), "nan", "inf", "-inf"]
    k = kind(dst)
    if k == "int":
        lo, hi = values.int_range(dst)
        bits = (hi - lo + 1).bit_length() - 1
        out += [F(lo), F(hi), F(hi + 1), F(lo - 1), F(2**bits + 5), F(-(2**bits) - 3), F(hi - 1), F(lo + 1)]
    elif k == "e8m0":
        out += [F(2) ** -127, F(2) ** 127, F(3), F(5), F(6), F(7, 10), F(124, 1000), F(11, 10), F(2) ** -130,
                F(3, 2) * F(2) ** 126, F(3) * F(2) ** 126, F(float(np.finfo(np.float32).max)), F(2) ** 200,
                F(3, 2) * F(2) ** -127]
    elif k in ("ieee", "f8", "mx"):
        fi = ml_dtypes.finfo(numpy_of(dst))
        top, sub, tiny = F(float(fi.max)), F(float(fi.smallest_subnormal)), F(float(fi.smallest_normal))
        eps = F(2) ** -int(fi.nmant)
        ulp_top = F(2) ** (int(fi.maxexp) - 1 - int(fi.nmant))
        out += [top, -top, top + ulp_top / 2, -(top + ulp_top / 2), top + ulp_top / 4, 2 * top, -4 * top,
                top - ulp_top / 2, sub, -sub, sub / 2, -sub / 2, 3 * sub / 2, sub / 4, tiny, tiny - sub,
                1 + eps / 2, 1 + 3 * eps / 2, -(1 + eps / 4), 1 + eps, 3 + 3 * eps, -(3 + 3 * eps) / 2,
                F(2) ** (int(fi.nmant) + 1) + 1, F(2) ** (int(fi.nmant) + 1) + 3]
        # a double 0.1, a float 0.1 and a float16 0.1: each rounds differently into narrower types
        out += [F(0.1), F(float(np.float32(0.1))), F(float(np.float16(0.1)))]
    out += [F(2), F(-3), F(7), F(-8), F(100), F(200), F(-56), F(300), F(1000), F(5, 2), F(-15, 4), F(1, 2), F(3, 4)]
    return out


def pool(src: str, dst: str, rng, since: int, saturate: bool, round_mode: str, extra=()) -> list:
    """(input value, expected value) pairs for src -> dst, distinct, defined, at most MAX_ELEMS."""
    got, seen = [], set()
    candidates = list(extra) + trouble(dst) + [decode(e, src) for e in
                                                values.sample(src, (12,), rng).reshape(-1)]
    for x in candidates:
        key = x if x in SPECIAL else ("v", x)
        if key in seen or not holds(x, src):
            continue
        y = convert(x, src, dst, since, saturate, round_mode)
        if y is None:
            continue
        seen.add(key)
        got.append((x, y))
    return got[:MAX_ELEMS]


def decimal(q: Fraction) -> str:
    """A decimal string with exactly the value q (q dyadic): the shortest double text where it is exact."""
    if abs(q) < 2**1000:
        short = repr(float(q))
        if Fraction(short) == q:
            return short
    with localcontext() as ctx:
        ctx.prec = 2000
        return str(Decimal(q.numerator) / Decimal(q.denominator))


# The doc's string forms: plain and scientific numbers, and the reserved words matched case-insensitively.
STRING_FORMS = ["3.14", "1000", "1e-5", "1E8", "100.5", "-0", "NaN", "nan", "INF", "+INF", "-INF", "inf", "-Inf",
                "+iNf", "1.5e1", "-2.5E-1"]
# Float to string: the doc asks only for a "plain floating-point representation (such as "314.15926")"
# without fixing digits, so only short non-integral binary fractions, which every plain form spells alike.
PLAIN_TEXT = [Fraction(1, 2), Fraction(-3, 2), Fraction(1, 4), Fraction(-1, 8), Fraction(11, 4), Fraction(3, 8),
              Fraction(-13, 2), Fraction(25, 2)]


def strings(texts) -> np.ndarray:
    out = np.empty(len(texts), dtype=object)
    out[:] = list(texts)
    return out


def conversion(v, src: str, dst: str, rng, saturate: bool = True, round_mode: str = "up", extra=()):
    """The input array for src -> dst under version v (values whose result the doc defines), or
    NotApplicable with the doc's reason."""
    since = v.since_version
    if dst == "string":
        if src == "string":
            return values.sample("string", (6,), rng)
        if src == "bool":
            return NotApplicable("the doc does not say how a bool is spelled as a string")
        if kind(src) == "int":
            lo, hi = values.int_range(src)
            xs = list(dict.fromkeys(q for q in (lo, hi, 0, -1, 7, 1000, -56) if lo <= q <= hi))
            return array([Fraction(q) for q in xs], src)
        xs = [q for q in PLAIN_TEXT if holds(q, src)]
        if not xs:
            return NotApplicable("no value of this type has an unambiguous plain text")
        return array(xs, src)
    if src == "string":
        if dst == "bool":
            return NotApplicable("the doc defines strings to float types (and integer literals); "
                                 "it does not say which strings are True or False")
        if kind(dst) == "int":
            lo, hi = values.int_range(dst)
            # "string representing floating-point ... to INT is an undefined behavior": integer literals only
            xs = list(dict.fromkeys(q for q in (0, 1, -7, 42, 1000, lo, hi, -1) if lo <= q <= hi))
            return strings([str(q) for q in xs])
        texts = list(STRING_FORMS) + [decimal(x) for x in trouble(dst) if x not in SPECIAL]
        got = []
        for text in texts:
            if text not in got and from_string(text, dst, since, saturate, round_mode) is not None:
                got.append(text)
        return strings(got[:MAX_ELEMS])
    pairs = pool(src, dst, rng, since, saturate, round_mode, extra)
    if not pairs:
        return NotApplicable(f"no {src} value has a result in {dst} that the doc defines")
    return array([p[0] for p in pairs], src)


def result(ys, dst: str) -> np.ndarray:
    if kind(dst) in ("int", "bool"):
        return np.array([int(q) for q in ys], dtype=object).astype(numpy_of(dst))
    return np.array(ys, dtype=np.float64).astype(numpy_of(dst))


def exactly(src: str, xs, shape) -> np.ndarray:
    """Given data put in src (rounded, as onnx's documented examples do), as an input array of `shape`."""
    return array(xs, src).reshape(shape)


def like(dst: str) -> np.ndarray:
    """CastLike's target_type: an empty tensor of the target type, as onnx's documented examples give."""
    return strings([]) if dst == "string" else np.zeros((0,), numpy_of(dst))


def explain_reference(op: Operator) -> None:
    """Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md)."""
    op.reference_differs(
        r"TypeError: Issues with types",
        "the evaluator has no conversion for this pair (string to or from bfloat16, float 8 and the 4-/2-bit types; "
        "4-/2-bit to 4-/2-bit; float8e8m0 to the 4-/2-bit types) and no round_mode on CastLike",
    )
    op.reference_differs(
        r"KeyError: '[A-Z0-9]+'",
        "Cast-1's `to` is a STRING attribute (\"FLOAT16\"); the evaluator reads it as the DataType enum value",
    )
    op.reference_differs(
        r"got (240|57344) expected nan",
        "Cast-19, -21 and -23's saturate table maps Inf to NaN in E4M3FNUZ and E5M2FNUZ; the evaluator "
        "applies Cast-24's table (Inf to FLT_MAX) at every opset",
    )
    op.reference_differs(
        r"(got nan expected 1\.70141e\+38|got 1\.17549e-38 expected 5\.87747e-39|got 5\.87747e-39 expected nan)",
        "the FLOAT8E8M0 table: saturate + up maps Inf and x > E8M0_MAX to E8M0_MAX (the evaluator: NaN) and "
        "0 <= x <= E8M0_MIN to E8M0_MIN = 2^-127 (the evaluator: 2^-126, rounding the float32 subnormal up); "
        "non-saturate + nearest maps 0 to NaN (the evaluator: E8M0_MIN)",
    )
    op.reference_differs(
        r"^default u?int64: .*values differ",
        "into float8e8m0, 2^32 + 1 and 2^53 + 1 rounded up are 2^33 and 2^54; the evaluator first rounds the "
        "64-bit integer to float32 (2^32, 2^53), then up",
    )
