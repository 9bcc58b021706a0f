"""The elementwise unary operators' shared examples and oracles: documented data, dtype ranges, special values.

An operator module states only what makes the operator itself: its rule on one element (an
exact rule, or an mpmath function through `correctly_rounded`), its accuracy budget key, its
documented data and its special values. The family turns the rule into the operator's semantics
(`Unary.semantics`): each element's result is computed from the input array's actual value
(converted exactly) and rounded once to the output type; the examples are data fed through it.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable

import ml_dtypes
import mpmath
import numpy as np

from onnx_conformance.generators import spec, values
from onnx_conformance.generators.accuracy import EPSILON, budget
from onnx_conformance.generators.case import NotApplicable, Operator, Types
from onnx_conformance.generators.rounding import PREC, exact, round_to
from onnx_conformance.generators.semantics import Undefined
from onnx_conformance.generators.spec import OpVersion
from onnx_conformance.harness.dtypes import name_of_numpy, numpy_of

UNDEFINED = object()  # an element whose result the spec leaves undefined: never emitted


Rule = Callable[[object], object]


# ---------------------------------------------------------------------------------------------
# drivers: the result of one element, from its exact value


def correctly_rounded(fn, *, signed_zero: bool = False, domain: Callable[[float], bool] | None = None,
                      poles: dict | None = None) -> Rule:
    """fn at PREC bits, as an exact value (Fraction; NaN and infinities as floats) for round_to to round once.

    NaN in gives NaN; outside `domain` IEEE 754's invalid operation gives NaN; `poles` maps the
    points where IEEE 754 gives an exact infinity (log(0) = -inf) to it; `signed_zero`: f(+-0) = +-0.
    """

    def rule(x):
        if isinstance(x, float):
            if math.isnan(x) or (domain is not None and not domain(x)):
                return math.nan
            if poles and x in poles:
                return poles[x]
            if signed_zero and x == 0:
                return x
        with mpmath.workprec(PREC):
            r = fn(mpmath.mpf(x))
        if isinstance(r, mpmath.mpc):  # a domain the module did not state: a bug, not a value
            raise ValueError(f"{fn.__name__}({x}) is complex: state its domain")
        return exact(r)

    return rule


# ---------------------------------------------------------------------------------------------
# data


def is_ieee(type_name: str) -> bool:
    return type_name in EPSILON


def finfo(type_name: str):
    return ml_dtypes.finfo(numpy_of(type_name))


def elements(x: np.ndarray, type_name: str) -> list:
    """Each element's exact value: Python int for integers, Python float (exact) for floats."""
    flat = np.asarray(x).reshape(-1)
    if values.is_int(type_name):
        return flat.tolist()
    with np.errstate(invalid="ignore"):  # ml_dtypes warns on NaN encodings; they stay NaN
        return flat.astype(np.float64).tolist()


def of_type(xs: Iterable, type_name: str) -> np.ndarray:
    """Values (floats: rounded once, NaN/inf/-0.0 kept) as a 1-D array of the type."""
    if values.is_int(type_name):
        return np.array(list(xs), dtype=numpy_of(type_name))
    return np.array([round_to(v, type_name) for v in xs], dtype=numpy_of(type_name))


def next_up(x, type_name: str, steps: int = 1):
    """The value `steps` encodings above x (positive x): neighbours of the type's limits."""
    dt = numpy_of(type_name)
    bits = np.array(x).astype(dt).reshape(1).view(f"uint{dt.itemsize * 8}").astype(np.int64) + steps
    return float(bits.astype(f"uint{dt.itemsize * 8}").view(dt).astype(np.float64)[0])


def range_array(type_name: str) -> np.ndarray:
    """range_values as an array of the type; the 8-bit-and-narrower floats: every encoding, each NaN included."""
    if values.is_int(type_name) or is_ieee(type_name):
        return of_type(range_values(type_name), type_name)
    return np.arange(2 ** finfo(type_name).bits, dtype=np.uint8).view(numpy_of(type_name))


def range_values(type_name: str) -> list:
    """The type's limits and their neighbours, subnormals, signed zeros, +-1 and its neighbours,
    infinities and NaN; for integers the extremes, their neighbours and magnitudes beyond 2^32
    and 2^53 (64-bit), where a 32-bit or double path goes wrong."""
    if values.is_int(type_name):
        lo, hi = values.int_range(type_name)
        out = [lo, lo + 1, lo + 2, hi, hi - 1, 0, 1, 2] + ([-1, -2] if lo < 0 else [])
        if type_name in ("int64", "uint64"):
            for b in (2**32, 2**53):
                out += [b - 1, b, b + 1] + ([-b - 1, -b] if lo < 0 else [])
        return list(dict.fromkeys(out))
    fi = finfo(type_name)
    big, normal, sub = float(fi.max), float(fi.smallest_normal), float(fi.smallest_subnormal)
    pos = [big, next_up(big, type_name, -1), normal, next_up(normal, type_name), normal - sub, sub,
           next_up(sub, type_name), 1.0, next_up(1.0, type_name), next_up(1.0, type_name, -1), math.inf]
    return pos + [-v for v in pos] + [0.0, -0.0, math.nan]


def nan_inf_encodings(fi) -> np.ndarray:
    """The encodings around the all-ones exponent, by bit pattern (a float cannot carry a payload):
    +-max, +-inf and NaNs of both signs, quiet and signaling, with small and full payloads; for the
    8-bit-and-narrower types, every NaN and infinity encoding the type has."""
    dt, bits = np.dtype(fi.dtype), int(fi.bits)
    if bits <= 8:
        codes = np.arange(2**bits, dtype=np.uint8).view(dt)
        wide = codes.astype(np.float32)
        keep = np.isnan(wide) | np.isinf(wide) | (np.abs(wide) == np.float32(fi.max))
        return codes[keep]
    uint = np.dtype(f"uint{bits}")
    m = int(fi.nmant)
    top = ((1 << int(fi.nexp)) - 1) << m  # all-ones exponent
    quiet = 1 << (m - 1)
    patterns = [top, top | 1, top | quiet, top | quiet | 1, top | ((1 << m) - 1), top - 1]
    sign = 1 << (bits - 1)
    return np.array(patterns + [p | sign for p in patterns], dtype=uint).view(dt)


def cast_documented(data, t: Types, rng: np.random.Generator) -> np.ndarray:
    """The documented data in the type: cast as onnx's own example casts it for the IEEE floats,
    exactly where another type holds every value, else the type's own test data of that shape."""
    arr = np.array(data, dtype=np.float64)
    x = arr.astype(t.np())
    if is_ieee(t.dtype):
        return x
    back = x.astype(np.float64)
    if np.array_equal(back, arr, equal_nan=True):
        return x
    return values.sample(t.dtype, arr.shape, rng, specials=values.is_small_float(t.dtype))


# Documented random data, as float64 draws: cast to float types; integer types take their own data.
def randn(rng, shape):
    return rng.standard_normal(shape)


def abs_randn(rng, shape):
    return np.abs(rng.standard_normal(shape))


def uniform(lo: float, hi: float):
    def draw(rng, shape):
        return rng.uniform(lo, hi, shape)

    return draw


# ---------------------------------------------------------------------------------------------
# the examples


class Unary:
    """One elementwise operator: its rule on one element, how its results are graded, its examples.

    `rule` is one element's exact result (UNDEFINED where the spec gives none); with
    `of_attributes`, `rule(v, attrs)` gives the element rule that the node's attributes make.
    The family registers the operator's semantics from it.
    """

    def __init__(self, operator: Operator, rule, budget_key: str | None = None,
                 out_param: str | None = None, undefined: str = "", *, of_attributes: bool = False):
        self.operator = operator
        self.rule_for: Callable[[OpVersion, dict], Rule] = rule if of_attributes else (lambda v, attrs: rule)
        self.budget_key = budget_key  # None: an exact operation, graded exactly
        self.out_param = out_param  # the output's type parameter where it differs from the input's
        self.undefined = undefined  # the spec's reason an example's element has no defined result
        operator.semantics(self.semantics)

    def out_type(self, t: Types) -> str:
        return t[self.out_param] if self.out_param else t.dtype

    def semantics(self, v: OpVersion, attrs: dict, inputs: dict) -> dict:
        """The rule the attributes make, on every element, each result rounded once to the output
        type (the output has the input's shape); no value where any element's result has none."""
        x = np.asarray(inputs[v.schema.inputs[0].name])
        in_type = name_of_numpy(x.dtype)
        out_type = output_type(v, in_type)
        rule = self.rule_for(v, attrs)
        ys = [self.result(rule, e, out_type) for e in elements(x, in_type)]
        return {v.schema.outputs[0].name: np.array(ys, dtype=numpy_of(out_type)).reshape(x.shape)}

    def result(self, rule: Rule, x, out_type: str):
        """One element's result in out_type; Undefined where the spec gives it no value."""
        r = rule(x)
        if r is UNDEFINED:
            raise Undefined(self.undefined or f"{self.operator.name} has no defined result at {x}")
        if out_type == "bool":
            return bool(r)
        if values.is_int(out_type):
            q = exact(r)
            lo, hi = values.int_range(out_type)
            if isinstance(q, float) or q.denominator != 1 or not lo <= q <= hi:
                raise Undefined(self.undefined or f"{self.operator.name}({x}) = {r} is not a value of {out_type}: "
                                                  "an integer result that overflows (or is no integer) has no value")
            return int(q)
        return round_to(r, out_type)

    def defined(self, v: OpVersion, t: Types, x: np.ndarray, attrs: dict | None) -> list[int]:
        """The flat positions of x whose element has a defined result (the rule picks them)."""
        rule, out_type = self.rule_for(v, dict(attrs or {})), self.out_type(t)
        kept = []
        for i, e in enumerate(elements(x, t.dtype)):
            try:
                self.result(rule, e, out_type)
            except Undefined:
                continue
            kept.append(i)
        return kept

    def tolerance(self, out_type: str) -> dict | None:
        if not is_ieee(out_type):
            return None
        return budget(self.budget_key, out_type) if self.budget_key else {"ulp": 0}

    def case(self, v: OpVersion, t: Types, x: np.ndarray, attrs: dict | None = None, keep_defined=False):
        """The Case for input x, its outputs the semantics'; with keep_defined, elements without a
        defined result are dropped first."""
        if keep_defined:
            kept = self.defined(v, t, x, attrs)
            if not kept:
                return NotApplicable(self.undefined or "no element has a defined result")
            x = np.asarray(x).reshape(-1)[kept]
        inp = v.schema.inputs[0].name
        try:
            return self.operator.expect(v, {inp: x}, dict(attrs or {}), tolerance=self.tolerance(self.out_type(t)))
        except Undefined:
            return NotApplicable(self.undefined)

    # -- registration ---------------------------------------------------------------------------

    def documented(self, name: str, data, attrs: dict | None = None):
        """An example whose data the documentation fixes."""

        def example(v, t, rng):
            return self.case(v, t, cast_documented(data, t, rng), attrs)

        self.operator.example(example, name=name)

    def random(self, name: str, draw, shape=(3, 4, 5), attrs: dict | None = None):
        """The documented random example: the documented distribution for floats, the type's own data else."""

        def example(v, t, rng):
            return self.case(v, t, self._draw(draw, t, shape, rng), attrs)

        self.operator.example(example, name=name)

    def _draw(self, draw, t: Types, shape, rng):
        if is_ieee(t.dtype):
            return draw(rng, shape).astype(t.np())
        return values.sample(t.dtype, shape, rng, specials=False)

    def dtype_range(self, attrs: dict | None = None):
        """Values at and next to the type's limits, subnormals, signed zeros, infinities, NaN."""

        def dtype_range(v, t, rng):
            return self.case(v, t, range_array(t.dtype), attrs, keep_defined=True)

        self.operator.example(dtype_range)

    def special_values(self, specials, name: str = "special_values", attrs: dict | None = None):
        """The points where the spec or IEEE 754 fixes the result: `specials` is a list of values, or a
        function of the type's finfo giving them; each is rounded once to the type (an array of the type
        is taken as it is)."""

        def example(v, t, rng):
            if values.is_int(t.dtype):
                return NotApplicable("the special values are float encodings (signed zeros, infinities, NaN, "
                                     "ties); integer types have them in dtype_range")
            got = specials(finfo(t.dtype)) if callable(specials) else specials
            x = got if isinstance(got, np.ndarray) else of_type(got, t.dtype)  # an array: encodings as they are
            return self.case(v, t, x, attrs, keep_defined=True)

        self.operator.example(example, name=name)

    def shapes(self, draw=randn, attrs: dict | None = None):
        """A rank-0 input and an input with a zero-sized dimension: elementwise keeps the shape."""

        def rank0(v, t, rng):
            return self.case(v, t, self._draw(draw, t, (), rng), attrs)

        def empty(v, t, rng):
            return self.case(v, t, self._draw(draw, t, (2, 0, 3), rng), attrs)

        self.operator.example(rank0)
        self.operator.example(empty)


def output_type(v: OpVersion, in_type: str) -> str:
    """The output's element type: the input's where they share a type parameter, else the one type
    the output's parameter allows (IsNaN's and IsInf's T2: bool)."""
    out_param, in_param = v.schema.outputs[0].type_str, v.schema.inputs[0].type_str
    if out_param == in_param:
        return in_type
    allowed = v.type_params.get(out_param) or (spec.type_name(out_param),)
    if len(allowed) != 1:
        raise ValueError(f"{v.op}-{v.since_version}: the output's type {out_param} is not fixed by the input's")
    return allowed[0]


def standard(operator: Operator, rule: Rule, budget_key: str | None, *, example=None, draw=randn,
             specials=(), shape=(3, 4, 5), undefined: str = "") -> Unary:
    """The usual set: onnx's `<op>_example` data (where documented), its random example (named after the
    operator), dtype_range, special_values, rank0 and empty."""
    u = Unary(operator, rule, budget_key, undefined=undefined)
    if example is not None:
        u.documented("example", example)
    u.random(operator.name.lower(), draw, shape)
    u.dtype_range()
    if specials:
        u.special_values(specials)
    u.shapes(draw)
    return u
