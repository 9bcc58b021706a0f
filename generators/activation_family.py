"""What the activation operators share: documented and dtype-range examples, and an exact / correctly rounded elementwise oracle.

An operator module supplies the exact value of one element (`fn(a, x, ...)`: `a` the node's
attributes as the exact float32 values a runtime sees, `x` a Fraction, or a float for NaN and the
infinities) and its tolerance; this module registers the operator's semantics from it (`Activation.semantics`)
and spreads its examples, data fed through that semantics, over every allowed type.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import ml_dtypes
import mpmath
import numpy as np
import onnx

from onnx_conformance.generators import values
from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.rounding import PREC, exact, round_to
from onnx_conformance.generators.semantics import Undefined
from onnx_conformance.generators.spec import OpVersion
from onnx_conformance.harness.dtypes import name_of_numpy, numpy_of

IEEE = ("float16", "bfloat16", "float", "double")
NAN, INF = math.nan, math.inf
# A result an operator's formula leaves undefined for that input (-inf * 0, inf / inf): the
# dtype-range example leaves such inputs out.
UNDEFINED = object()


def attr32(value) -> Fraction:
    """A float attribute as the runtime sees it: the float32 nearest the decimal, exactly."""
    return exact(float(np.float32(value)))


def mp(q) -> mpmath.mpf:
    """An exact dyadic value (Fraction) or a float as an mpf, exactly (call under workprec(PREC))."""
    if isinstance(q, Fraction):
        return mpmath.mpf(q.numerator) / q.denominator
    return mpmath.mpf(q)


def exact_tolerance(type_name: str) -> dict | None:
    """Exact operations (max, comparisons, selections): graded bit for bit on IEEE floats."""
    return {"ulp": 0} if type_name in IEEE else None


def composite(cancels: bool = False) -> Callable[[str], dict | None]:
    """The budget of a formula the accuracy table does not list; `cancels` where it cancels near a zero of the result."""
    return lambda type_name: budget("composite", type_name, cancels=cancels)


def unary(finite: Callable, nan=NAN, inf=UNDEFINED, ninf=UNDEFINED) -> Callable:
    """fn(a, x) from the value at finite x and the values at NaN, +inf and -inf (callables of a, or constants)."""

    def fn(a, x):
        if isinstance(x, float):
            r = nan if math.isnan(x) else (inf if x > 0 else ninf)
            return r(a) if callable(r) else r
        return finite(a, x)

    return fn


def _rounded(r, type_name: str, elems: tuple):
    """One exact (or mpmath) result rounded once to the type; Undefined where the formula gives none."""
    if r is UNDEFINED:
        raise Undefined(f"the formula gives no value at {_shown(elems)}")
    return round_to(r, type_name)


def _shown(elems: tuple) -> str:
    """Elements for a message: integers as they are, other values as floats."""
    return ", ".join(str(e) if isinstance(e, Fraction) and e.denominator == 1 else str(float(e)) for e in elems)


def element(x) -> Fraction | float:
    """One element's exact value: Fraction for finite numbers, the float itself for NaN and +-inf."""
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    return exact(float(x))


def apply(fn: Callable, a: dict, type_name: str, *arrays: np.ndarray) -> np.ndarray:
    """fn(a, *elements) over the broadcast arrays, each result rounded once to `type_name`; Undefined
    where an element has no value (the formula gives none; an integer result overflows or is no integer)."""
    arrays = np.broadcast_arrays(*[np.asarray(x) for x in arrays])
    shape = arrays[0].shape
    flat = [[element(e) for e in arr.reshape(-1).tolist()] for arr in arrays]
    out = []
    with mpmath.workprec(PREC):
        for elems in zip(*flat):
            r = fn(a, *elems)
            if values.is_int(type_name):
                if r is UNDEFINED or not isinstance(r, Fraction) or r.denominator != 1:
                    raise Undefined(f"the result at {_shown(elems)} is not an integer: the spec gives no "
                                    f"rounding to {type_name}")
                lo, hi = values.int_range(type_name)
                if not lo <= r <= hi:
                    raise Undefined(f"the result {r} at {_shown(elems)} overflows {type_name}: the spec gives no value")
                out.append(int(r))
            else:
                out.append(_rounded(r, type_name, elems))
    return np.array(out, dtype=numpy_of(type_name)).reshape(shape)


def edges(type_name: str) -> list:
    """A type's limits and their neighbours, subnormals, signed zeros, infinities and NaN."""
    if values.is_int(type_name):
        lo, hi = values.int_range(type_name)
        return list(dict.fromkeys([lo, lo + 1, *([-2, -1] if lo < 0 else []), 0, 1, 2, hi - 1, hi]))
    fi = ml_dtypes.finfo(numpy_of(type_name))
    dt = numpy_of(type_name)
    big, normal, sub = float(fi.max), float(fi.smallest_normal), float(fi.smallest_subnormal)
    bits = np.dtype(f"uint{8 * dt.itemsize}")
    below_big = float((np.array(big, dt).view(bits) - 1).view(dt))
    largest_sub = normal - sub
    out = [NAN, INF, -INF, big, -big, below_big, -below_big, normal, -normal, largest_sub, -largest_sub,
           sub, -sub, 0.0, -0.0, 1.0, -1.0]
    return out


# How a version spreads an operator's other inputs over X (PRelu's slope): the arrays to broadcast
# against X, or Rejected / Undefined quoting the rule they break.
Spread = Callable[[OpVersion, np.ndarray, list], list]
# A rule on the node's attributes (exact values, as `fn` gets them), raising Rejected where one breaks it.
AttributeRule = Callable[[OpVersion, dict], None]


def no_other_inputs(v: OpVersion, x: np.ndarray, others: list) -> list:
    """The default: an operator with no other input has nothing to spread."""
    return others


class Activation:
    """An elementwise activation: its per-element exact value, its tolerance, its formal names.

    The family registers the operator's semantics from `fn`; `spread` (the operator's broadcasting
    of its other inputs) and `check` (its rules on attributes) are what an operator adds to it.
    """

    def __init__(self, op: Operator, fn: Callable, tolerance: Callable[[str], dict | None] = exact_tolerance,
                 x: str = "X", y: str = "Y", *, spread: Spread = no_other_inputs, check: AttributeRule | None = None):
        self.op, self.fn, self.tolerance, self.x, self.y = op, fn, tolerance, x, y
        self.spread, self.check = spread, check
        op.semantics(self.semantics)

    def attributes(self, v, attrs: dict | None) -> dict:
        """Every float and string attribute of the version, the node's or the schema's default; the float
        ones as exact float32 values (other attributes, such as the legacy consumed_inputs, as given)."""
        out = {}
        for name, schema_attr in v.schema.attributes.items():
            if name in (attrs or {}):
                given = attrs[name]
                out[name] = attr32(given) if schema_attr.type == onnx.defs.OpSchema.AttrType.FLOAT else given
            elif schema_attr.default_value.type == 1:  # AttributeProto.FLOAT
                out[name] = attr32(schema_attr.default_value.f)
            elif schema_attr.default_value.type == 3:  # AttributeProto.STRING
                out[name] = schema_attr.default_value.s.decode()
        return out

    def semantics(self, v: OpVersion, attrs: dict, inputs: dict) -> dict:
        """y = fn(attributes, x, others...) elementwise, each element's exact value rounded once to T;
        the output has X's shape."""
        x = np.asarray(inputs[self.x])
        others = [np.asarray(inputs[i.name]) for i in v.schema.inputs[1:] if inputs.get(i.name) is not None]
        a = self.attributes(v, attrs)
        if self.check is not None:
            self.check(v, a)
        return {self.y: apply(self.fn, a, name_of_numpy(x.dtype), x, *self.spread(v, x, others))}

    def case(self, v, t, x: np.ndarray, attrs: dict | None = None, **others):
        """The Case for x (and the other inputs by formal name), its output the semantics'."""
        return self.op.expect(v, {self.x: x, **others}, dict(attrs or {}), tolerance=self.tolerance(t.dtype))

    def defined(self, v, t, x: list, attrs: dict | None = None) -> list:
        """The values of x for which the formula gives a result (and, for integers, no overflow)."""
        a = self.attributes(v, attrs)
        keep = []
        with mpmath.workprec(PREC):
            for e in x:
                r = self.fn(a, element(e))
                if r is UNDEFINED:
                    continue
                if values.is_int(t.dtype):
                    lo, hi = values.int_range(t.dtype)
                    if not (isinstance(r, Fraction) and r.denominator == 1 and lo <= r <= hi):
                        continue
                keep.append(e)
        return keep

    # ---- example registrations

    def documented(self, name: str, data=None, attrs: dict | None = None, shape=(3, 4, 5), when=None) -> None:
        """A documented example: its fixed data rounded to each type (integers: where held exactly),
        or for randomly drawn documented data, the type's own ordinary values in the same shape."""

        def example(v, t, rng):
            if when is not None:
                skip = when(v, t)
                if skip:
                    return skip
            x = typed(data, t.dtype, rng, shape)
            return self.case(v, t, x, attrs)

        self.op.example(example, name=name)

    def dtype_range(self, name: str = "dtype_range", attrs: dict | None = None, extra=()) -> None:
        """Values at and next to the type's limits, subnormals, -0.0, +-inf and NaN where the formula defines a result."""

        def example(v, t, rng):
            candidates = edges(t.dtype) + [e for e in extra if values.is_float(t.dtype) or float(e).is_integer()]
            x = self.defined(v, t, candidates, attrs)
            return self.case(v, t, array(x, t.dtype), attrs)

        self.op.example(example, name=name)


def array(xs: list, type_name: str) -> np.ndarray:
    """Python numbers as a 1-d tensor of the type (integers straight in: uint64's top values pass no float)."""
    if values.is_int(type_name):
        return np.array(xs, dtype=numpy_of(type_name))
    return np.array(xs, dtype=np.float64).astype(numpy_of(type_name))


def typed(data, type_name: str, rng: np.random.Generator, shape=(3, 4, 5)) -> np.ndarray:
    """Documented data in a type: each value rounded once to a float type; for an integer type the
    data where every value is an integer the type holds, else the type's own ordinary values."""
    if data is None:
        return values.sample(type_name, shape, rng, specials=False)
    arr = np.asarray(data, dtype=np.float64)
    if values.is_float(type_name):
        return np.array([round_to(exact(float(e)), type_name) for e in arr.reshape(-1)],
                        dtype=numpy_of(type_name)).reshape(arr.shape)
    lo, hi = values.int_range(type_name)
    if np.all(arr == np.round(arr)) and arr.min(initial=0) >= lo and arr.max(initial=0) <= hi:
        return arr.astype(numpy_of(type_name))
    return values.sample(type_name, arr.shape, rng, specials=False)

