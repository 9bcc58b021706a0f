"""What the arithmetic operators share: exact element oracles, broadcasting, operand pools and examples.

An operator module supplies its element function on exact values (Python ints, or the float
operands' exact values, IEEE's special results where an operand is not finite), the operands its
examples draw, and its tolerance; the family turns the element function into the operator's
semantics (types, the version's broadcasting: numpy-style from version 7, the legacy
`broadcast`/`axis` attributes before), and the broadcasting forms, the dtype-range pairs and the
legacy spelling live here once. Every result is computed exactly and rounded once
(rounding.round_to); an undefined integer result (overflow, division by zero) is None, which the
semantics reports as `Undefined`, and the pairs that give one are never emitted.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import ml_dtypes
import mpmath
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import NotApplicable, Operator, Types, once_per_version, type_of
from onnx_conformance.generators.movement import declared
from onnx_conformance.generators.rounding import PREC, exact, round_to
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.generators.spec import versions
from onnx_conformance.harness.dtypes import name_of_numpy, numpy_of

FLOATS = ("float16", "bfloat16", "float", "double")
EXACT = {"ulp": 0}


def is_float(type_name: str) -> bool:
    return type_name in FLOATS


def tol_exact(type_name: str) -> dict | None:
    """Add, Sub, Mul, Max, Min, Mod: IEEE results are the exact result rounded once, graded exactly."""
    return EXACT if is_float(type_name) else None


# ---------------------------------------------------------------------------------------------
# exact element functions


def py(x, type_name: str):
    """One element's exact value: a Python int, or the float holding it (float() of these types is exact)."""
    return float(x) if is_float(type_name) else int(x)


def finite(*xs) -> bool:
    return all(isinstance(x, int) or math.isfinite(x) for x in xs)


_NP = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply, operator.truediv: np.divide}


def ieee(op, a: float, b: float):
    """a op b (+, -, *, /) as IEEE 754 defines it before rounding: the exact rational for finite
    operands (an exact zero keeps the sign IEEE gives it), IEEE's own result where an operand
    is infinite or NaN or a divisor is zero (those results are exact in float64)."""
    if finite(a, b) and not (op is operator.truediv and b == 0):
        q = op(Fraction(a), Fraction(b))
        return q if q != 0 else op(a, b)
    with np.errstate(all="ignore"):
        return float(_NP[op](np.float64(a), np.float64(b)))


def trunc_div(a: int, b: int) -> int | None:
    """'truncating division (rounding toward zero)'; None for division by zero."""
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def pow_exact(x, y):
    """x ** y for a float or integer base and exponent (the C/IEEE 754 pow special cases), exact
    where y is a small integer, correctly rounded through mpmath otherwise; None where an integer
    base has no integer result (negative or non-integral exponent, 0 ** 0, overflow certain)."""
    if isinstance(x, int):
        if isinstance(y, float):
            if not (math.isfinite(y) and y.is_integer()):
                return None
            y = int(y)
        if y < 0 or (x == 0 and y == 0):
            return None
        if abs(x) >= 2 and y > 128:
            return None  # beyond every integer type: overflow
        return x**y
    y_int = isinstance(y, int) or (math.isfinite(y) and y.is_integer())
    if y == 0:
        return Fraction(1)
    if not math.isfinite(x) or x == 0 or not finite(y):
        if isinstance(y, int):  # the sign of a result depends on y's parity: no float64 detour for huge y
            odd, big = y % 2 == 1, (math.inf if y > 0 else 0.0)
            if math.isnan(x):
                return x
            if x == 0:
                big = 0.0 if y > 0 else math.inf
            return math.copysign(big, x) if odd else big
        with np.errstate(all="ignore"):
            return float(np.power(np.float64(x), np.float64(y)))
    if x < 0 and not y_int:
        return math.nan
    if y_int and abs(y) <= 64:
        return Fraction(x) ** int(y)
    if y_int and abs(y) > 2**20 and abs(x) != 1:
        # |y * log2|x|| past 4096 (float64's estimate, off by far less than the margin): |x ** y| is beyond
        # 2^+-2000, where exact() gives mpmath's value as the signed infinity or zero it rounds to; without
        # the thousand-odd squarings mpmath takes to get there
        if abs(y) * abs(math.log2(abs(x))) > 4096:
            grows = (abs(x) > 1) == (y > 0)
            negative = x < 0 and int(y) % 2 == 1
            return math.copysign(math.inf if grows else 0.0, -1.0 if negative else 1.0)
    with mpmath.workprec(PREC):
        r = mpmath.power(mpmath.mpf(abs(x)), mpmath.mpf(y))
        if x < 0 and int(y) % 2 == 1:
            r = -r
        return exact(r)


# ---------------------------------------------------------------------------------------------
# typed results


def representable(result, type_name: str) -> bool:
    if result is None:
        return False
    if is_float(type_name):
        return True
    lo, hi = values.int_range(type_name)
    return lo <= result <= hi


def typed(results: list, type_name: str, shape) -> np.ndarray:
    """Exact results as an array of `type_name`, each rounded once."""
    bad = next((r for r in results if not representable(r, type_name)), False)
    if bad is not False:
        what = "no result the spec defines" if bad is None else f"{bad}, outside {type_name} (integer overflow)"
        raise Undefined(f"{type_name}: an element has {what}")
    if is_float(type_name):
        out = [round_to(r, type_name) for r in results]
        return np.array(out, dtype=numpy_of(type_name)).reshape(shape)
    return np.array([int(r) for r in results], dtype=numpy_of(type_name)).reshape(shape)


def elementwise(fn: Callable, arrays: list[np.ndarray], out_type: str) -> np.ndarray:
    """fn over the broadcast elements of `arrays` (numpy broadcasting), exact, in `out_type`."""
    shape = np.broadcast_shapes(*[a.shape for a in arrays])
    kinds = [values.is_float(name_of_numpy(a.dtype)) for a in arrays]
    cols = [np.broadcast_to(a, shape).reshape(-1).tolist() for a in arrays]
    cols = [[float(x) if k else int(x) for x in c] for c, k in zip(cols, kinds)]
    return typed([fn(*xs) for xs in zip(*cols)] if cols else [], out_type, shape)


# ---------------------------------------------------------------------------------------------
# operands


def ints(type_name: str, shape, rng: np.random.Generator, lo: int, hi: int, nonzero: bool = False) -> np.ndarray:
    """Integers drawn from [lo, hi] within the type's range (zero left out when asked)."""
    tlo, thi = values.int_range(type_name)
    pool = [k for k in range(max(lo, tlo), min(hi, thi) + 1) if not (nonzero and k == 0)]
    picked = rng.choice(np.array(pool, dtype=object), size=tuple(shape)) if pool else np.zeros(shape, dtype=object)
    return np.array(np.asarray(picked, dtype=object).tolist(), dtype=numpy_of(type_name)).reshape(shape)


def floats(type_name: str, shape, rng: np.random.Generator, lo: float = -64.0, hi: float = 64.0,
           nonzero: bool = False) -> np.ndarray:
    """Ordinary values of a float type in [lo, hi] (no zero when asked)."""
    x = rng.uniform(lo, hi, size=tuple(shape)).astype(numpy_of(type_name))
    if nonzero:
        x[x == 0] = 1
    return x


def documented(type_name: str, data) -> np.ndarray | None:
    """The documented data in the type (a float type rounds it, as onnx's examples cast it); None
    where an integer type cannot hold every value."""
    want = np.asarray(data, dtype=np.float64)
    if not is_float(type_name):
        lo, hi = values.int_range(type_name)
        if not all(float(w).is_integer() and lo <= w <= hi for w in want.reshape(-1)):
            return None
    return want.astype(numpy_of(type_name))


def range_values(type_name: str) -> list:
    """A type's edges: its limits and their neighbours, -0.0, subnormals, the infinities and NaN;
    for 64-bit integers magnitudes beyond 2^32 and 2^53 (uint64: beyond 2^63)."""
    if is_float(type_name):
        fi = ml_dtypes.finfo(numpy_of(type_name))
        big, sub, tiny = float(fi.max), float(fi.smallest_subnormal), float(fi.smallest_normal)
        below_max = big - 2.0 ** (int(fi.maxexp) - 1 - int(fi.nmant))
        return [math.nan, math.inf, -math.inf, big, -big, below_max, -0.0, 0.0, sub, -sub,
                tiny - sub, tiny, 1.0, -1.5]
    lo, hi = values.int_range(type_name)
    out = [lo, lo + 1, -1, 0, 1, 2, 3, hi - 1, hi]
    if type_name in ("int64", "uint64"):
        out += [2**32 + 1, 2**53 + 1, -(2**53 + 1), 3 * 2**31]
    if type_name == "uint64":
        out += [2**63 + 1, 2**63 - 1]
    return list(dict.fromkeys(v for v in out if lo <= v <= hi))


def range_pairs(fn: Callable, a_type: str, b_type: str, out_type: str, keep=lambda a, b, r: True):
    """Every pair of the two types' edge values whose result the spec defines (and `keep` keeps)."""
    pairs = []
    for a in range_values(a_type):
        for b in range_values(b_type):
            r = fn(a, b)
            if representable(r, out_type) and keep(a, b, r):
                pairs.append((a, b))
    return pairs


def as_arrays(pairs, a_type: str, b_type: str) -> tuple[np.ndarray, np.ndarray]:
    a = np.array([p[0] for p in pairs], dtype=numpy_of(a_type))
    b = np.array([p[1] for p in pairs], dtype=numpy_of(b_type))
    return a, b


# ---------------------------------------------------------------------------------------------
# types and broadcasting, as each version states them

# Add-1's rule for B under broadcast=1 (Equal-1, And-1, ...: "See the doc of `Add`").
LEGACY_SHAPES = r"the second tensor can either be of element size 1"
MULTIDIRECTIONAL = r"multidirectional \(i\.e\., [Nn]um[Pp]y-style\) broadcasting"
NEEDS_ATTRIBUTE = r"broadcast=1. needs to be passed"


def one_type(v, named: dict, param: str = "T") -> str:
    """The one element type the inputs of type parameter `param` share, which the version's
    constraint allows; else Rejected, quoting the constraint."""
    if param not in v.type_params:  # the schema's own error, as reading the constraint gives it
        next(c.description for c in v.schema.type_constraints if c.type_param_str == param)
    types = {n: type_of(x) for n, x in named.items()}
    names = list(types)
    if len(set(types.values())) > 1 or any(t not in v.type_params[param] for t in types.values()):
        # the constraint's text, for the sentence a rejection quotes (read from the schema only then)
        constraint = next(c.description for c in v.schema.type_constraints if c.type_param_str == param)
    if len(set(types.values())) > 1:
        here = f"{names[0]} is {types[names[0]]}" + "".join(f" and {n} {types[n]}" for n in names[1:])
        each = "both" if len(names) == 2 else "all"
        raise Rejected(f"{' and '.join(names)} are {each} of type {param} ({constraint}); here {here}")
    allowed = v.type_params[param]
    for n, t in types.items():
        if t not in allowed:
            raise Rejected(f"{n} is {t}, which {param} does not allow ({constraint})")
    return types[names[0]]


def legacy(v) -> bool:
    """Versions before 7 broadcast only B, only when asked: 'Attribute `broadcast=1` needs to be passed'."""
    return v.has_attribute("broadcast")


def common_shape(v, *arrays) -> tuple:
    """'multidirectional (i.e., Numpy-style) broadcasting': the arrays' broadcast shape, or Rejected."""
    try:
        return np.broadcast_shapes(*[np.shape(x) for x in arrays])
    except ValueError:
        raise Rejected(v.sentence(MULTIDIRECTIONAL)) from None


def legacy_b(v, a: np.ndarray, b: np.ndarray, attrs: dict, enable: str = NEEDS_ATTRIBUTE) -> np.ndarray:
    """Before version 7, B onto A's shape: only with broadcast=1 (`enable`: the version's sentence
    saying so); then B 'of element size 1 (... rank equal to or smaller than the first tensor)',
    or B's shape 'a contiguous subset of the first tensor's shape' starting at `axis` ('suffix
    matching' without it; '1-dim expansion doesn't work yet'). B comes back numpy-broadcastable
    against A, with A's shape as the result's."""
    if a.shape == b.shape:
        return b
    if not attr(attrs, "broadcast", 0):
        raise Rejected(v.sentence(enable))
    if b.size == 1 and b.ndim <= a.ndim:
        return b.reshape(())
    axis = attr(attrs, "axis", a.ndim - b.ndim)
    if not (0 <= axis <= a.ndim - b.ndim and a.shape[axis:axis + b.ndim] == b.shape):
        raise Rejected(v.sentence(LEGACY_SHAPES) or versions("Add")[0].sentence(LEGACY_SHAPES))
    return b.reshape(b.shape + (1,) * (a.ndim - axis - b.ndim))


def broadcast_operands(v, a: np.ndarray, b: np.ndarray, attrs: dict, enable: str = NEEDS_ATTRIBUTE):
    """A and B as numpy-broadcastable arrays under the version's rule: from version 7 both ways,
    numpy-style; before, B onto A (legacy_b)."""
    if legacy(v):
        return a, legacy_b(v, a, b, attrs, enable)
    common_shape(v, a, b)
    return a, b


# ---------------------------------------------------------------------------------------------
# binary operators: Add, Sub, Mul, Div, Mod, Pow

# name: ((A shape, B shape) numpy-style, (A shape, B shape, attributes) legacy)
FORMS = {
    "bcast": (((3, 4, 5), (5,)), ((3, 4, 5), (5,), {"broadcast": 1})),
    "bcast_scalar": (((2, 3), ()), ((2, 3), (), {"broadcast": 1})),
    "bcast_empty": (((2, 1, 3), (0, 1)), ((2, 0, 3), (3,), {"broadcast": 1})),
    # rank 8 both ways; the legacy form: B a contiguous run of A's dimensions from `axis`
    "bcast_rank8": (((2, 1, 3, 1, 1, 1, 1, 2), (1, 2, 1, 1, 1, 1, 1, 1)),
                    ((2, 1, 3, 1, 2, 1, 2, 1), (3, 1, 2), {"broadcast": 1, "axis": 2})),
}


@dataclass
class Binary:
    """A two-input operator: its element function, its operands, its tolerance."""

    fn: Callable  # (a, b, version, types, attributes) -> exact result or None (undefined)
    draw: Callable  # (version, types, shape, rng, side 0|1) -> array
    tolerance: Callable = tol_exact  # (types) -> tolerance
    names: tuple = ("A", "B", "C")
    b_param: str = ""  # B's type parameter where a version gives it its own (Pow's T1 from version 12)
    attrs: Callable = lambda v, t: {}  # attributes every case carries (Mod's fmod)
    check: Callable = lambda v, t, attrs: None  # raises Rejected where attributes and types break a rule
    op: Operator | None = None  # set by binary_examples

    def b_type(self, t) -> str:
        return t.get(self.b_param, t.dtype)

    def case(self, v, t, a, b, attrs=None):
        attrs = {**self.attrs(v, t), **(attrs or {})}
        na, nb, _ = self.names
        return self.op.expect(v, {na: a, nb: b}, attrs, tolerance=self.tolerance(t))

    def drawn(self, v, t, a_shape, b_shape, rng, attrs=None):
        a = self.draw(v, t, a_shape, rng, 0)
        b = self.draw(v, t, b_shape, rng, 1)
        return self.case(v, t, a, b, attrs)


def binary_semantics(op: Operator, spec: Binary) -> None:
    """Register op's meaning: spec's element function, exact and rounded once into A's type, over A
    and B of one type T (B of its own type where the version gives it one), broadcast as the version
    says."""
    na, nb, nc = spec.names

    @op.semantics
    def semantics(v, attrs, inputs):
        a, b = np.asarray(inputs[na]), np.asarray(inputs[nb])
        if spec.b_param in v.type_params:
            types = {"T": one_type(v, {na: a}), spec.b_param: one_type(v, {nb: b}, spec.b_param)}
        else:
            types = {"T": one_type(v, {na: a, nb: b})}
        t = Types(types, "T", ())
        spec.check(v, t, attrs)
        a, b = broadcast_operands(v, a, b, attrs)
        return {nc: elementwise(lambda x, y: spec.fn(x, y, v, t, attrs), [a, b], t.dtype)}


def binary_examples(op: Operator, spec: Binary, plain: str | None, forms=tuple(FORMS)) -> None:
    """Register the operator's semantics and the examples every binary arithmetic operator has: the
    operator's own name (same shapes, where onnx documents one), the broadcasting forms, the
    dtype-range pairs, and the legacy broadcast rule."""
    spec.op = op
    binary_semantics(op, spec)

    def same_shape(v, t, rng):
        return spec.drawn(v, t, (3, 4, 5), (3, 4, 5), rng)

    if plain:
        op.example(same_shape, name=plain)
    for form in forms:
        modern, old = FORMS[form]
        op.example(_form_example(spec, modern, old), name=form)

    def dtype_range(v, t, rng):
        """Each pair of the types' edge values whose result the spec defines."""
        attrs = spec.attrs(v, t)
        pairs = range_pairs(lambda a, b: spec.fn(a, b, v, t, attrs), t.dtype, spec.b_type(t), t.dtype)
        if not pairs:
            return NotApplicable(f"no pair of {t.dtype} edge values has a defined result")
        a, b = as_arrays(pairs, t.dtype, spec.b_type(t))
        return spec.case(v, t, a, b)

    op.example(dtype_range)

    def legacy_needs_broadcast(v, t, rng):
        """Versions before 7: unequal shapes without broadcast=1."""
        if not legacy(v):
            return NotApplicable(f"{v.op}-{v.since_version} broadcasts numpy-style with no attribute to forget")
        skip = once_per_version(v, t)
        if skip:
            return skip
        a = spec.draw(v, t, (3, 4, 5), rng, 0)
        b = spec.draw(v, t, (5,), rng, 1)
        na, nb, nc = spec.names
        return op.reject(v, {na: a, nb: b}, spec.attrs(v, t), {nc: declared(t.dtype, 3)})

    if any(legacy(v) for v in versions(op.name)):
        op.example(legacy_needs_broadcast)
    op.reference_differs(r"^bcast_rank8 .*shape", "the evaluator ignores the legacy `axis` attribute "
                         "(versions before 7) and aligns B with A's last dimensions")
    op.reference_differs(r"^legacy_needs_broadcast .*returned outputs", "the evaluator broadcasts "
                         "numpy-style in every version, whatever the legacy `broadcast` attribute says")


def _form_example(spec: Binary, modern, old):
    def example(v, t, rng):
        if legacy(v):
            a_shape, b_shape, attrs = old
            return spec.drawn(v, t, a_shape, b_shape, rng, attrs)
        a_shape, b_shape = modern
        return spec.drawn(v, t, a_shape, b_shape, rng)

    return example


# ---------------------------------------------------------------------------------------------
# variadic operators: Max, Min, Sum, Mean


def largest(xs: list, pick=max):
    """Max (pick=max) or Min (pick=min) of exact values; NaN propagates, as in IEEE 754-2019's
    maximum/minimum and numpy (onnx's own reference)."""
    if any(isinstance(x, float) and math.isnan(x) for x in xs):
        return math.nan
    return pick(xs)


def exact_sum(xs: list):
    """The exact sum (a Fraction) of finite floats; IEEE's result where one is infinite or NaN, and
    IEEE's signed zero where the exact sum is zero."""
    if not finite(*xs) or sum(Fraction(x) for x in xs) == 0:
        with np.errstate(invalid="ignore"):  # inf + -inf is NaN, as IEEE says
            return float(np.sum(np.array(xs, dtype=np.float64)))
    return sum(Fraction(x) for x in xs)


def positive(t, shape, rng) -> np.ndarray:
    """Sum's and Mean's drawn operands: positive, so a runtime's partial sums never cancel (its
    roundings of a partial sum would then be far larger than the result's ulp)."""
    return floats(t.dtype, shape, rng, 0.0, 64.0)


def finite_sum(t, a, b) -> bool:
    """Pairs whose finite sum stays within the type: a runtime's intermediate sum must not overflow."""
    if not finite(a, b):
        return True
    return abs(Fraction(a) + Fraction(b)) <= Fraction(float(ml_dtypes.finfo(numpy_of(t.dtype)).max))


def variadic_names(xs) -> dict:
    """data_0, data_1, ...: one graph input per value of the variadic 'data_0'."""
    return {f"data_{k}": x for k, x in enumerate(xs)}


@dataclass
class Variadic:
    fn: Callable  # (list of exact values) -> exact result
    output: str  # formal output name
    documented: tuple  # the documented three inputs
    tolerance: Callable  # (types, number of inputs) -> tolerance
    draw: Callable = lambda t, shape, rng: values.sample(t.dtype, shape, rng, specials=False)
    keep: Callable = lambda t, a, b: True  # which dtype-range pairs to emit
    op: Operator | None = None  # set by variadic_examples

    def case(self, v, t, xs):
        return self.op.expect(v, variadic_names(xs), tolerance=self.tolerance(t, len(xs)))


def variadic_semantics(op: Operator, spec: Variadic) -> None:
    """Register op's meaning: spec's function of the inputs' exact elements, rounded once into their
    one type T; before version 8 'All inputs and outputs must have the same shape', from version 8
    numpy-style broadcasting."""

    @op.semantics
    def semantics(v, attrs, inputs):
        formal = v.schema.inputs[0]
        xs = [np.asarray(x) for x in inputs[formal.name]]
        if not xs:
            raise Rejected(f"{formal.name}: {formal.description.strip()} (at least one: none given)")
        type_name = one_type(v, variadic_names(xs))
        same = v.sentence(r"same shape")
        if same and len({x.shape for x in xs}) > 1:
            raise Rejected(same)
        common_shape(v, *xs)
        return {spec.output: elementwise(lambda *e: spec.fn(list(e)), xs, type_name)}


def variadic_examples(op: Operator, spec: Variadic) -> None:
    """Register the operator's semantics; the documented example (three inputs), one and two inputs,
    broadcasting over three inputs with a rank-0 one, zero-sized and rank-8 broadcasting, and the
    dtype-range pairs."""
    spec.op = op
    variadic_semantics(op, spec)

    def data(t, rng, k):
        x = documented(t.dtype, spec.documented[k])
        return x if x is not None else spec.draw(t, (3,), rng)

    def example(v, t, rng):
        return spec.case(v, t, [data(t, rng, k) for k in range(3)])

    def one_input(v, t, rng):
        return spec.case(v, t, [data(t, rng, 0)])

    def two_inputs(v, t, rng):
        return spec.case(v, t, [data(t, rng, 0), data(t, rng, 1)])

    for f in (example, one_input, two_inputs):
        op.example(f)

    def shapes(*shape_list):
        def broadcast(v, t, rng):
            if not v.sentence(r"[Bb]roadcasting"):
                return NotApplicable(f"{v.op}-{v.since_version} does not broadcast: "
                                     f"'{v.sentence(r'same shape')}'")
            return spec.case(v, t, [spec.draw(t, s, rng) for s in shape_list])

        return broadcast

    op.example(shapes((2, 1, 3), (4, 1), ()), name="bcast")
    op.example(shapes((2, 1, 3), (0, 1)), name="bcast_empty")
    op.example(shapes((2, 1, 3, 1, 1, 1, 1, 2), (1, 2, 1, 1, 1, 1, 1, 1)), name="bcast_rank8")

    def dtype_range(v, t, rng):
        pairs = range_pairs(lambda a, b: spec.fn([a, b]), t.dtype, t.dtype, t.dtype,
                            lambda a, b, r: spec.keep(t, a, b))
        return spec.case(v, t, list(as_arrays(pairs, t.dtype, t.dtype)))

    op.example(dtype_range)

    def same_shape_required(v, t, rng):
        """Versions before 8: inputs of different shapes."""
        rule = v.sentence(r"same shape")
        if not rule:
            return NotApplicable(f"{v.op}-{v.since_version} broadcasts its inputs")
        skip = once_per_version(v, t)
        if skip:
            return skip
        xs = [spec.draw(t, (2, 3), rng), spec.draw(t, (3,), rng)]
        return op.reject(v, variadic_names(xs), None, {spec.output: declared(t.dtype, 2)})

    op.example(same_shape_required)
    op.reference_differs(r"^same_shape_required .*returned outputs", "the evaluator broadcasts in every "
                         "version; versions before 8 require inputs of the same shape")
