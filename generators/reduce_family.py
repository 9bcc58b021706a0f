"""The Reduce family: each operator's semantics, built from its exact step, and its examples, written once.

An operator module in generators/ops/ supplies only what differs between Reduce operators:
its exact reduction (`step`), its documented data, and the data shaping an integer result needs.
Everything else -- the semantics built from the step (axes, keepdims, noop_with_empty_axes, the
empty set), which examples exist, for which versions and dtypes, and why not -- is here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

import math
from fractions import Fraction

import ml_dtypes
import mpmath
import numpy as np

from onnx_conformance.generators.case import Case, Declared, NotApplicable, Operator
from onnx_conformance.generators.rounding import PREC, round_array
from onnx_conformance.generators.rounding import exact as exact_value
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, rule
from onnx_conformance.generators.spec import OpVersion
from onnx_conformance.harness.dtypes import name_of_numpy, numpy_of

FLOATS = ("float16", "bfloat16", "float", "double")
LOW_PRECISION = ("float16", "bfloat16")


# ---------------------------------------------------------------------------------------------
# dtype facts


@dataclass(frozen=True)
class DtypeInfo:
    name: str

    @property
    def np(self) -> np.dtype:
        return numpy_of(self.name)

    @property
    def is_float(self) -> bool:
        return self.name in FLOATS

    @property
    def is_bool(self) -> bool:
        return self.name == "bool"

    @property
    def is_unsigned(self) -> bool:
        return self.name.startswith("uint")

    @property
    def is_int(self) -> bool:
        return not self.is_float and not self.is_bool

    @property
    def finfo(self):
        return ml_dtypes.finfo(self.np) if self.name == "bfloat16" else np.finfo(self.np)

    @property
    def min(self):
        return self.finfo.min if self.is_float else int(np.iinfo(self.np).min)

    @property
    def max(self):
        return self.finfo.max if self.is_float else int(np.iinfo(self.np).max)

    @property
    def smallest_subnormal(self) -> float:
        return float(self.finfo.smallest_subnormal)

    @property
    def smallest_normal(self) -> float:
        return float(self.finfo.smallest_normal)

    @property
    def beyond_32_bits(self) -> list[int]:
        """Magnitudes a 32-bit or a double accumulator gets wrong: only for the 64-bit integers."""
        if self.name not in ("int64", "uint64"):
            return []
        return [2**32 + 1, 2**53 + 1]


# ---------------------------------------------------------------------------------------------
# exact arithmetic: integers as Python ints, floats as Fractions (NaN and the infinities as Python
# floats, whose arithmetic with a Fraction follows IEEE 754), both in object arrays; what a step
# computes beyond the rationals (a root, a logarithm) is an mpmath value at PREC bits.


def exact(x: np.ndarray, dt: DtypeInfo) -> np.ndarray:
    """The values of x as exact Python values (object array of the same shape)."""
    if dt.is_float:  # each distinct value converted once (16-bit data repeats a lot)
        seen: dict = {}
        flat = [seen[f] if f in seen else seen.setdefault(f, exact_value(f))
                for f in np.asarray(x, dtype=np.float64).reshape(-1).tolist()]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(x.shape)
    return np.array(x.tolist(), dtype=object).reshape(x.shape)


def wide(x: np.ndarray, dt: DtypeInfo) -> np.ndarray:
    """The values of x as long doubles (floats) or Python ints: enough to bound an intermediate."""
    if dt.is_float:
        return x.astype(np.float64).astype(np.longdouble)
    return np.array(x.tolist(), dtype=object).reshape(x.shape)


def elementwise(fn: Callable, x) -> np.ndarray:
    """fn on each element of x, in an object array of x's shape."""
    x = np.asarray(x, dtype=object)
    out = np.empty(x.size, dtype=object)
    for i, e in enumerate(x.reshape(-1).tolist()):
        out[i] = fn(e)
    return out.reshape(x.shape)


def is_nan(e) -> bool:
    """An exact value that is NaN (a Python float or an mpmath value)."""
    return isinstance(e, float) and math.isnan(e) or isinstance(e, mpmath.mpf) and mpmath.isnan(e)


def is_finite(e) -> bool:
    """An exact value that is neither NaN nor infinite (ints and Fractions always are)."""
    return not isinstance(e, (float, mpmath.mpf)) or bool(mpmath.isfinite(e))


def nan_propagating(extreme: np.ufunc) -> Callable:
    """A step taking the largest (np.maximum) or smallest (np.minimum) element of each group, NaN
    where the group holds a NaN (Python's comparisons with NaN would pick by position)."""

    def step(x: np.ndarray, axes: tuple[int, ...], dt: "DtypeInfo") -> np.ndarray:
        r = extreme.reduce(x, axis=axes, keepdims=True)
        if not dt.is_float:
            return r
        nan = np.logical_or.reduce(elementwise(is_nan, x).astype(bool), axis=axes, keepdims=True)
        return np.where(nan, math.nan, r)

    return step


def mp_function(fn: Callable) -> Callable:
    """An mpmath function (at PREC bits) on an exact value: a Fraction, or a NaN or infinity."""

    def apply(q):
        with mpmath.workprec(PREC):
            return fn(mpmath.mpf(q.numerator) / q.denominator if isinstance(q, Fraction) else mpmath.mpf(q))

    return apply


def real_log(x):
    """The natural logarithm: -inf at 0, NaN below it (the real function's, not mpmath's complex one)."""
    return mpmath.mpf("nan") if x < 0 else mpmath.log(x)


def to_dtype(values: np.ndarray, dt: DtypeInfo) -> np.ndarray:
    """Round an exact result once to dt; None when it cannot be represented (overflow)."""
    flat = [v for v in np.asarray(values, dtype=object).reshape(-1)]
    if dt.is_float:
        if any(is_finite(v) and abs(v) > dt.max for v in flat):
            return None
        return round_array(values, dt.name)
    if dt.is_bool:
        return np.array([bool(v) for v in flat], dtype=np.bool_).reshape(np.shape(values))
    if any(not (dt.min <= int(v) <= dt.max) for v in flat):
        return None
    return np.array([int(v) for v in flat], dtype=dt.np).reshape(np.shape(values))


class NotIntegral(ValueError):
    """An integer-typed reduction whose exact result is not an integer."""


def integral(values: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Exact results computed in floating point for integer data: must be within tol of an integer."""
    out = np.empty(np.shape(values), dtype=object)
    for idx, v in np.ndenumerate(np.asarray(values, dtype=np.longdouble)):
        if not np.isfinite(v) or abs(v - np.round(v)) > tol:
            raise NotIntegral(f"exact result {v} is not an integer")
        out[idx] = int(np.round(v))
    return out


def group_count(shape: Sequence[int], axes: tuple[int, ...]) -> int:
    return int(np.prod([shape[a] for a in axes], dtype=np.int64)) if axes else 1


def logsumexp(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """log(sum(exp(x))) in long double without overflow: the estimate integral() checks for integer data."""
    x = np.asarray(x, dtype=np.longdouble)
    if not axes:
        return np.log(np.exp(x)) if x.size else x
    m = np.max(x, axis=axes, keepdims=True)
    safe_m = np.where(np.isfinite(m), m, 0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        s = np.sum(np.exp(x - safe_m), axis=axes, keepdims=True)
        r = safe_m + np.log(s)
    return np.where(np.isfinite(m), r, m)


def regroup(x: np.ndarray, axes: tuple[int, ...], fix: Callable[[list, np.random.Generator], list], rng) -> np.ndarray:
    """Apply `fix` to each reduction group (the elements reduced into one output) of an object array."""
    if not axes:
        axes_ = ()
    else:
        axes_ = axes
    keep = [a for a in range(x.ndim) if a not in axes_]
    perm = keep + list(axes_)
    moved = np.transpose(x, perm).copy()
    n = group_count(x.shape, axes_)
    flat = moved.reshape(-1, n) if moved.size else moved.reshape(0, n)
    for i in range(flat.shape[0]):
        flat[i, :] = fix(list(flat[i, :]), rng)
    return np.transpose(flat.reshape(moved.shape), np.argsort(perm))


# ---------------------------------------------------------------------------------------------
# an operator of the family


class ReduceOp(Operator):
    """What one Reduce operator contributes; see generators/ops/. Its semantics is built from its
    `step`, and its examples are the family's."""

    def __init__(
        self,
        name: str,
        # exact reduction over `axes` with keepdims, on exact(...) values; axes=() is the noop path,
        # where composite operators still apply their non-reduction steps (schema of version 18).
        step: Callable[[np.ndarray, tuple[int, ...], "DtypeInfo"], np.ndarray],
        example_data: list,  # the documented example's data (shape [3, 2, 2])
        random_range: tuple[float, float] = (-10.0, 10.0),
        large_range: tuple[float, float] = (0.5, 1.5),
        # for integer dtypes, reshape each reduction group so the exact result is an integer
        make_integral: Callable[[list, np.random.Generator, "DtypeInfo"], list] | None = None,
        integral_note: str | None = None,
        # pairs of values at the edges of a dtype, each reduced to one output
        range_pairs: Callable[["DtypeInfo"], list[tuple]] = lambda dt: [],
        positive_only: bool = False,  # data must stay > 0 (logarithm of the values)
        # the largest magnitude the reduction's formula reaches on the way, per group (keepdims
        # shape), on exact(...) values: where it leaves a float type whose result does not, the
        # expected value is marked (Case.quality); see quality_marks
        intermediate: Callable[[np.ndarray, tuple[int, ...]], np.ndarray] | None = None,
    ):
        super().__init__(name)
        self.step = step
        self.example_data = example_data
        self.random_range = random_range
        self.large_range = large_range
        self.make_integral = make_integral
        self.integral_note = integral_note
        self.range_pairs = range_pairs
        self.positive_only = positive_only
        self.intermediate = intermediate
        self.semantics(reduce_semantics(self))
        for example, build in EXAMPLES.items():
            self.example(lambda v, t, rng, build=build: to_case(self, v, build(self, v, DtypeInfo(t.dtype), rng)),
                         name=example)
        for pattern, reason in REFERENCE_DIFFERS:
            self.reference_differs(pattern, reason)


# ---------------------------------------------------------------------------------------------
# the semantics, built from the operator's step


def reduce_semantics(op: ReduceOp):
    """The operator's meaning: its step over each group of `data` the axes select, rounded once."""

    def reduce(v: OpVersion, attrs: dict, inputs: dict) -> dict:
        """reduced = step(data) over the effective axes (keepdims, noop_with_empty_axes, the empty set
        as the schema states them), rounded once to data's type; an integer result out of range, or
        one the step leaves non-integral, has no value in the spec."""
        dt = DtypeInfo(name_of_numpy(inputs["data"].dtype))
        r = reduction(op, v, attrs, inputs)
        if dt.is_float:
            return {"reduced": rounded_float(r, dt)}
        out = to_dtype(r, dt)
        if out is None:
            raise Undefined(f"integer overflow: the exact {op.name} leaves {dt.name}'s range")
        return {"reduced": out}

    return reduce


def rounded_float(values, dt: DtypeInfo) -> np.ndarray:
    """Exact results rounded once to a float type; beyond its largest finite value they round to infinity."""
    return round_array(values, dt.name, shape=np.shape(values))


def reduction(op: ReduceOp, v: OpVersion, attrs: dict, inputs: dict) -> np.ndarray:
    """The exact result before rounding (keepdims applied), or Rejected / Undefined."""
    x = inputs["data"]
    dt = DtypeInfo(name_of_numpy(x.dtype))
    axes = reduced_axes(v, attrs, inputs, x.ndim)
    keep = [1 if a in axes else d for a, d in enumerate(x.shape)]
    if int(np.prod(keep, dtype=np.int64)) == 0:  # no group at all: nothing to compute
        r = np.empty(keep, dtype=object)
    elif group_count(x.shape, axes) == 0:
        r = np.full(keep, empty_group_value(op, v, dt), dtype=object)
    else:
        # mpmath's sums of the values a step computes beyond the rationals (exp) keep PREC bits
        with np.errstate(all="ignore"), mpmath.workprec(PREC):
            try:
                r = op.step(exact(x, dt), axes, dt)
            except NotIntegral as e:
                # the spec says nothing of rounding an integer result the step leaves fractional
                raise Undefined(f"integer {op.name}: {e}")
    if attr(attrs, "keepdims", 1) == 0:
        r = np.reshape(r, [d for i, d in enumerate(np.shape(r)) if i not in axes])
    return r


def reduced_axes(v: OpVersion, attrs: dict, inputs: dict, rank: int) -> tuple[int, ...]:
    """The axes reduced: the axes attribute (older versions) or input (ReduceSum-13, the others from
    18), each in [-r, r-1]; none or empty reduce all, unless noop_with_empty_axes (then none)."""
    if v.has_input("axes"):
        given = inputs.get("axes")
        if given is not None:
            formal = next(i for i in v.schema.inputs if i.name == "axes")
            if np.asarray(given).dtype != np.int64:
                raise Rejected(f"input 'axes' is {formal.type_str}")
            given = [int(a) for a in np.asarray(given).reshape(-1)]
    else:
        given = attrs.get("axes")
    for a in given or ():
        if not -rank <= a < rank:
            raise Rejected(rule(v, r"^Accepted range", "axes") or f"axis {a} names no dimension of data of rank {rank}")
    if given and len({a % rank for a in given}) != len(given):
        raise Undefined(f"axes {list(given)} name a dimension twice; the spec does not say what that means")
    noop = attr(attrs, "noop_with_empty_axes", 0) if v.has_attribute("noop_with_empty_axes") else 0
    return effective_axes(given, noop, rank)


def empty_group_value(op: ReduceOp, v: OpVersion, dt: DtypeInfo):
    """'Reduction over an empty set of values yields ...': the value this version's schema names."""
    sentence = v.sentence(r"empty set")
    if sentence is None:
        raise Undefined(f"{op.name}-{v.since_version}'s schema does not define reduction over an empty set")
    value = empty_set_value(sentence, dt)
    if isinstance(value, NotApplicable):
        raise Undefined(sentence)
    return value


def effective_axes(axes, noop, rank: int) -> tuple[int, ...]:
    """The axes actually reduced, per the schema: none given or empty -> all, unless noop_with_empty_axes."""
    if axes is None or len(axes) == 0:
        return () if noop == 1 else tuple(range(rank))
    return tuple(sorted(a % rank for a in axes))


def empty_set_value(sentence: str, dt: DtypeInfo):
    """The value the schema's sentence 'Reduction over an empty set of values yields ...' names for dt."""
    m = re.search(r"yields (.*)\.$", sentence)
    text = m.group(1) if m else ""
    if text in ("0", "1"):
        return int(text)
    infinite = re.match(r"(plus|minus) infinity \(if supported by the datatype\) or (.*) otherwise", text)
    if infinite:
        sign, otherwise = infinite.groups()
        if dt.is_float:
            return np.inf if sign == "plus" else -np.inf
        if otherwise == "undefined":
            return NotApplicable(sentence)
        if dt.is_bool:  # "False < True" (schema of version 20)
            return otherwise == "the maximum value of the data type"
        if otherwise == "the maximum value of the data type":
            return dt.max
        if otherwise == "the minimum value of the data type":
            return dt.min
    return NotApplicable(sentence)


# ---------------------------------------------------------------------------------------------
# quality marks: a fact of an example, beside its expected value


QUALITY_REASON = ("the formula's intermediate ({what}) leaves {type} on the way to a representable result; "
                  "the spec names no intermediate precision")


def quality_marks(op: ReduceOp, ex: "Example", dt: "DtypeInfo", expected: np.ndarray) -> dict | None:
    """The expected values a backend computing the formula in the type itself cannot reach: the
    group's intermediate (op.intermediate) is beyond the type's largest finite value while the
    result is finite. Integers are never marked: integer arithmetic is exact in the spec."""
    if op.intermediate is None or not dt.is_float:
        return None
    axes = effective_axes(ex.axes, ex.noop, ex.data.ndim)
    if not axes:
        return None
    with np.errstate(all="ignore"):
        bound = np.abs(np.asarray(op.intermediate(wide(ex.data, dt), axes), dtype=np.longdouble))
    flat_expected = np.asarray(expected, dtype=np.float64).reshape(-1)
    beyond = (bound.reshape(-1) > np.longdouble(dt.max)) & np.isfinite(flat_expected)
    marked = [int(i) for i in np.flatnonzero(beyond)]
    if not marked:
        return None
    what = " ".join(op.intermediate.__doc__.split()).rstrip(".")
    return {"reason": QUALITY_REASON.format(what=what, type=dt.name), "outputs": {"0": marked}}


def partial_sums(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """the largest partial sum in any order: the sum of the positive terms or of the negative ones."""
    pos = np.add.reduce(np.where(x > 0, x, 0), axis=axes, keepdims=True)
    neg = np.add.reduce(np.where(x < 0, x, 0), axis=axes, keepdims=True)
    return np.maximum(pos, -neg)


def sum_of_squares(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """the sum of squares."""
    return np.add.reduce(x * x, axis=axes, keepdims=True)


def sum_of_exponentials(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """the sum of exponentials."""
    return np.add.reduce(np.exp(x), axis=axes, keepdims=True)


def factors_above_one(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """the product of the factors above 1 in magnitude."""
    return np.multiply.reduce(np.where(np.abs(x) > 1, np.abs(x), 1), axis=axes, keepdims=True)


# ---------------------------------------------------------------------------------------------
# examples as data: inputs and attributes, the expected value from the semantics


@dataclass
class Example:
    """One concrete example: data, and how the node is configured."""

    data: np.ndarray  # already of the case dtype
    axes: tuple[int, ...] | None  # None: no axes at all (attribute or input omitted)
    keepdims: int | None  # None: attribute omitted (default 1)
    noop: int | None = None
    kind: str = "expect-output"
    tolerance: dict | None = None
    axes_dtype: str = "int64"

    def node(self, v: OpVersion) -> tuple[dict, dict]:
        """The node's inputs and attributes: axes as an input or as an attribute, per the version."""
        inputs = {"data": self.data}
        attrs = {}
        if self.keepdims is not None:
            attrs["keepdims"] = self.keepdims
        if self.noop is not None:
            attrs["noop_with_empty_axes"] = self.noop
        if self.axes is not None:
            if v.has_input("axes"):
                inputs["axes"] = np.array(self.axes, dtype=DtypeInfo(self.axes_dtype).np)
            else:
                attrs["axes"] = list(self.axes)
        return inputs, attrs


def to_case(op: ReduceOp, v: OpVersion, ex) -> Case | NotApplicable:
    """The example's Case: expected values (and their quality marks) from the semantics, or the
    spec sentence the semantics rejects the node with."""
    if isinstance(ex, NotApplicable):
        return ex
    inputs, attrs = ex.node(v)
    dt = DtypeInfo(name_of_numpy(ex.data.dtype))
    if ex.kind == "expect-error":
        # An expect-error case has no result shape; its output still declares one (the input's rank,
        # dims unknown), because the checker requires a shape on graph outputs and the model's only
        # defect must be the one the case is about.
        return op.reject(v, inputs, attrs, {"reduced": Declared(dt.name, [None] * ex.data.ndim)})
    na = representable(op, v, ex)
    if na:
        return na
    case = op.expect(v, inputs, attrs, tolerance=ex.tolerance)
    case.quality = quality_marks(op, ex, dt, case.outputs["reduced"])
    return case


def representable(op: ReduceOp, v: OpVersion, ex: Example) -> NotApplicable | None:
    """Why the example has no expected value: an integer result the step cannot give, or an exact
    result beyond the type's range (examples stay within range: overflow is a separate question)."""
    inputs, attrs = ex.node(v)
    try:
        r = reduction(op, v, attrs, inputs)
    except Undefined as e:
        return NotApplicable(e.reason)
    if to_dtype(r, DtypeInfo(name_of_numpy(ex.data.dtype))) is None:
        return NotApplicable(f"the exact result leaves {name_of_numpy(ex.data.dtype)}'s range")
    return None


# ---------------------------------------------------------------------------------------------
# data


BOOL_EXAMPLE = [[[True, False], [True, True]], [[False, False], [False, True]], [[True, True], [True, True]]]
BOOL_INPUTS = [[True, True], [True, False], [False, True], [False, False]]  # bool_inputs, axes [1]
DOC_SHAPE = (3, 2, 2)


def random_data(op: ReduceOp, dt: DtypeInfo, shape, rng, span: tuple[float, float] | None = None) -> np.ndarray:
    lo, hi = span or op.random_range
    if dt.is_bool:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dt.is_float:
        return rng.uniform(lo, hi, size=shape).astype(np.float64).astype(dt.np)
    if dt.is_unsigned or op.positive_only:
        lo, hi = (1 if op.positive_only else 0), int(hi - lo)
    return rng.integers(int(lo), int(hi) + 1, size=shape).astype(dt.np)


def shaped_for_integer_result(op: ReduceOp, data: np.ndarray, dt: DtypeInfo, axes, rng) -> np.ndarray:
    """Integer dtypes of operators whose result is not integral in general get data for which it is."""
    if not (dt.is_int and op.make_integral):
        return data
    fixed = regroup(exact(data, dt), axes, lambda g, r: op.make_integral(g, r, dt), rng)
    if any(not (dt.min <= int(v) <= dt.max) for v in fixed.reshape(-1)):
        raise NotIntegral("shaping the data for an integer result leaves the dtype's range")
    return np.array(fixed.tolist(), dtype=dt.np).reshape(data.shape)


# ---------------------------------------------------------------------------------------------
# examples: each (op, version, dtype, rng) -> Example | NotApplicable


def _doc_example(axes, keepdims, noop=None):
    def build(op: ReduceOp, v: OpVersion, dt: DtypeInfo, rng):
        if dt.is_bool:
            data = np.array(BOOL_EXAMPLE, dtype=np.bool_)
        else:
            data = np.array(op.example_data, dtype=np.float64).astype(dt.np)
        data = shaped_for_integer_result(op, data, dt, effective_axes(axes, noop, 3), rng)
        return Example(data, axes, keepdims, noop=noop)

    return build


def _doc_random(axes, keepdims):
    def build(op: ReduceOp, v: OpVersion, dt: DtypeInfo, rng):
        return fitting_random(op, v, dt, rng, DOC_SHAPE, axes, keepdims)

    return build


def fitting_random(op: ReduceOp, v: OpVersion, dt: DtypeInfo, rng, shape, axes, keepdims, noop=None, **kw):
    """Random data whose exact result fits dt: the value range shrinks until it does."""
    lo, hi = op.random_range
    for shrink in range(8):
        span = (lo / 2**shrink, hi / 2**shrink) if dt.is_float else (lo, hi)
        if dt.is_int:  # integers shrink toward a range of at least [-1, 1]
            span = (min(-1.0, lo / 2**shrink) if lo < 0 else lo, max(1.0, hi / 2**shrink))
        data = random_data(op, dt, shape, rng, span=span)
        try:
            data = shaped_for_integer_result(op, data, dt, effective_axes(axes, noop, len(shape)), rng)
        except NotIntegral:
            continue
        ex = Example(data, axes, keepdims, noop=noop, **kw)
        if representable(op, v, ex) is None:
            return ex
    return NotApplicable(f"no random {dt.name} data in {op.random_range} gives a result within {dt.name}'s range")


def empty_set(op: ReduceOp, v: OpVersion, dt: DtypeInfo, rng):
    """Groups of no element: the value the schema's 'Reduction over an empty set' sentence names
    (none where it names none, or says undefined)."""
    return Example(np.zeros((2, 0, 4), dtype=dt.np), (1,), 1)


def bool_inputs(op: ReduceOp, v: OpVersion, dt: DtypeInfo, rng):
    if not dt.is_bool:
        return NotApplicable("bool_inputs is the example for tensor(bool)")
    return Example(np.array(BOOL_INPUTS, dtype=np.bool_), (1,), 1)


def _needs_axes_input(v: OpVersion) -> NotApplicable | None:
    if not v.has_input("axes") or not v.has_attribute("noop_with_empty_axes"):
        return NotApplicable(
            f"{v.op}-{v.since_version} has no axes input and no noop_with_empty_axes attribute"
        )
    return None


def _noop_random(op, v, dt, rng, axes):
    return _needs_axes_input(v) or fitting_random(op, v, dt, rng, DOC_SHAPE, axes, 1, noop=1)


def empty_axes_input_noop_example(op, v, dt, rng):
    na = _needs_axes_input(v)
    if na:
        return na
    return _doc_example((), 1, noop=1)(op, v, dt, rng)


def empty_axes_input_noop_random(op, v, dt, rng):
    return _noop_random(op, v, dt, rng, ())


def noop_axes_omitted(op, v, dt, rng):
    # "When axes is empty (either not provided or explicitly empty) ..." (axes input, version 18)
    return _noop_random(op, v, dt, rng, None)


def empty_axes_input_reduce_all(op, v, dt, rng):
    return _needs_axes_input(v) or fitting_random(op, v, dt, rng, DOC_SHAPE, (), 1, noop=0)


def rank0(op, v, dt, rng):
    if v.sentence(r"rank zero are valid") is None:
        return NotApplicable(f"{op.name}-{v.since_version}'s schema does not say rank-0 inputs are valid")
    return fitting_random(op, v, dt, rng, (), None, None)


def all_axes_do_not_keepdims(op, v, dt, rng):
    return fitting_random(op, v, dt, rng, DOC_SHAPE, (0, 1, 2), 0)


def keepdims_omitted(op, v, dt, rng):
    """keepdims left out on a rank-3 input: 'default 1 means keep reduced dimension' (numpy's is False)."""
    return fitting_random(op, v, dt, rng, DOC_SHAPE, (1,), None)


# A NaN first, last and in the middle of a group, beside numbers; the last group has none. The spec
# names no NaN rule: a NaN among the operands of a sum or a product is NaN by IEEE 754, and the
# family reads max and min as IEEE 754-2019's maximum and minimum, which propagate it (as Max and Min).
NAN_GROUPS = [[math.nan, 1.0, 2.0, 3.0], [1.0, 2.0, 3.0, math.nan], [2.0, math.nan, 3.0, 1.0], [1.0, 2.0, 3.0, 4.0]]


def nan_in_group(op, v, dt, rng):
    if not dt.is_float:
        return NotApplicable(f"{dt.name} holds no NaN")
    return Example(np.array(NAN_GROUPS, dtype=np.float64).astype(dt.np), (1,), 0)


# Accumulating 1024 values: float16 has 11 significant bits, bfloat16 8. A backend that sums in
# the input type drifts by several units in the last place; one that accumulates wider stays
# within rounding of the result. The tolerance allows 4 ulp of the result's magnitude.
LARGE_TOLERANCE = {"float16": {"atol": 0.0, "rtol": 4 * 2.0**-10}, "bfloat16": {"atol": 0.0, "rtol": 4 * 2.0**-7}}


def large_random(op, v, dt, rng):
    if dt.name not in LOW_PRECISION:
        return NotApplicable("accumulation example is for float16 and bfloat16")
    data = random_data(op, dt, (8, 1024), rng, span=op.large_range)
    return Example(data, (1,), 0, tolerance=LARGE_TOLERANCE[dt.name])


def dtype_range(op, v, dt, rng):
    pairs = []
    for pair in op.range_pairs(dt):
        try:
            arr = np.array([pair], dtype=object if dt.is_int else np.float64)
            data = arr.astype(dt.np) if not dt.is_int else np.array(pair, dtype=dt.np).reshape(1, 2)
        except (OverflowError, ValueError):
            continue
        if dt.is_int and [int(a) for a in data.reshape(-1)] != [int(p) for p in pair]:
            continue  # not representable
        ex = Example(data, (1,), 0)
        if representable(op, v, ex) is None:
            pairs.append(data.reshape(2))
    if not pairs:
        return NotApplicable(f"no dtype-range values of {dt.name} have a representable {op.name}")
    return Example(np.stack(pairs), (1,), 0)


def _rejection_dtype(v: OpVersion, dt: DtypeInfo) -> NotApplicable | None:
    first = "float" if "float" in v.dtypes else v.dtypes[0]
    if dt.name != first:
        return NotApplicable(f"rejection cases are emitted once per version, in {first}")
    return None


def axes_out_of_range(op, v, dt, rng):
    na = _rejection_dtype(v, dt)
    if na:
        return na
    sentence = rule(v, r"^Accepted range", "axes")
    if sentence is None:
        return NotApplicable(f"{op.name}-{v.since_version} states no accepted range for axes")
    data = random_data(op, dt, DOC_SHAPE, rng)
    return Example(data, (3,), 1, kind="expect-error")


def axes_wrong_type(op, v, dt, rng):
    na = _rejection_dtype(v, dt)
    if na:
        return na
    axes_inputs = [i for i in v.schema.inputs if i.name == "axes"]
    if not axes_inputs:
        return NotApplicable(f"{op.name}-{v.since_version} takes axes as an attribute")
    data = random_data(op, dt, DOC_SHAPE, rng)
    return Example(data, (1,), 1, kind="expect-error", axes_dtype="int32")


EXAMPLES: dict[str, Callable] = {
    "do_not_keepdims_example": _doc_example((1,), 0),
    "do_not_keepdims_random": _doc_random((1,), 0),
    "keepdims_example": _doc_example((1,), 1),
    "keepdims_random": _doc_random((1,), 1),
    "default_axes_keepdims_example": _doc_example(None, 1),
    "default_axes_keepdims_random": _doc_random(None, 1),
    "negative_axes_keepdims_example": _doc_example((-2,), 1),
    "negative_axes_keepdims_random": _doc_random((-2,), 1),
    "empty_set": empty_set,
    "bool_inputs": bool_inputs,
    "empty_axes_input_noop_example": empty_axes_input_noop_example,
    "empty_axes_input_noop_random": empty_axes_input_noop_random,
    "noop_axes_omitted": noop_axes_omitted,
    "empty_axes_input_reduce_all": empty_axes_input_reduce_all,
    "rank0": rank0,
    "all_axes_do_not_keepdims": all_axes_do_not_keepdims,
    "keepdims_omitted": keepdims_omitted,
    "nan_in_group": nan_in_group,
    "large_random": large_random,
    "dtype_range": dtype_range,
    "axes_out_of_range": axes_out_of_range,
    "axes_wrong_type": axes_wrong_type,
}


# Where onnx's ReferenceEvaluator (1.23) differs from the family's exact oracle, and why ours stands.
REFERENCE_DIFFERS = [
    (r"^axes_(out_of_range|wrong_type) .*returned outputs for an expect-error case",
     "the evaluator checks neither the range nor the type of axes: it reduces whatever it is given"),
    (r"^large_random bfloat16: ",
     "the evaluator accumulates bfloat16 in bfloat16, so 1024 terms drift; ours is the exact result rounded once"),
    (r"^dtype_range \w+: .*got inf expected",
     "the evaluator overflows in an intermediate of the input type (squares, or the sum before dividing); "
     "the exact result is representable"),
    (r"^dtype_range u?int\d+: .*values differ",
     "the evaluator wraps around in the input integer type (squares, or the sum before dividing); ours is exact"),
    (r"Issues with types",
     "the evaluator cannot run this operator on integers (numpy's log of an integer array)"),
    (r"dtype (u?int64) != expected u?int32",
     "the evaluator widens 32-bit integer results to 64 bits"),
]
