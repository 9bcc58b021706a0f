"""What every family's strategies share: dimensions and shapes, each element type's values, attributes read from the schema (the type bindings: bindings.py).

A draw is a `Probe`: the node's inputs (by the case model's names), its attributes and, where the
operator's outputs depend on it, the names of its outputs; the family turns it into a Case whose
expected outputs are the operator's semantics (generators/case.py). Everything here shrinks toward
the plain: the default type binding (float where allowed), rank 0, dimensions of 1, the ordinary
values of a type before its edges, attributes left at their defaults.
"""

from __future__ import annotations

import math
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import ml_dtypes
import numpy as np
import onnx
from hypothesis import strategies as st

from onnx_conformance.generators import values
from onnx_conformance.generators.case import NotApplicable, Types, seeded_rng
from onnx_conformance.generators.spec import OpVersion
from onnx_conformance.generators.unary_family import nan_inf_encodings, range_values
from onnx_conformance.harness.dtypes import numpy_of

# Sizes a kernel's vector widths and tiles make special: powers of two and their neighbours, and
# primes (no tile divides them). Drawn beside plain dims of 1 to 4.
INTERESTING_DIMS = (1, 2, 3, 4, 5, 7, 8, 9, 11, 13, 15, 16, 17, 23, 31, 32, 33, 37, 47, 61, 63, 64, 65,
                    97, 127, 128, 129, 251, 255, 256, 257, 509, 511, 512, 513, 1021, 1023, 1024, 1025,
                    2039, 2047, 2048, 2049, 4093, 4095, 4096, 4097)
# A shape is empty (one dimension 0), and a dimension drawn alone is 0, about once in this many draws,
# whatever the rank and the room left: as one of the sizes above, 0 was most of the few that fit in a
# shape's last dimensions, and a quarter of all draws held an empty tensor (issue 30: they find crashes,
# but are not worth a quarter of the budget).
ZERO_DIM_ONE_IN = 16
# The exact semantics costs about a microsecond per exact operation and an mpmath function tens of
# them: a draw holds at most this many elements in all (a dimension of 4097 fits, alone).
MAX_ELEMENTS = 4097
MAX_RANK = 8  # the spec's largest broadcast rank in the corpus (Expand, Where); no schema states a limit
MAX_OVERLAY = 16  # elements of a tensor given a drawn value (an edge value, or an ordinary one)
IEEE = ("float16", "bfloat16", "float", "double")


@contextmanager
def steady_draws():
    """Draws that depend on the seed alone. hypothesis mixes into its draws the literals of every local
    module imported so far (its "local constants": this project's own modules too, in an editable
    install), so the same seed drew differently in a process that had imported more of the project (a
    pytest worker after other tests) than in a fresh one. Within this block that pool is empty."""
    try:
        from hypothesis.internal.conjecture import providers

        own, cache, empty = providers._get_local_constants, providers.CONSTANTS_CACHE.cache, providers.Constants()
    except (ImportError, AttributeError):  # a hypothesis without the pool: nothing to hold steady
        yield
        return
    providers._get_local_constants = lambda: empty
    cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = own
        cache.clear()


def cached(fn):
    """A strategy-making function whose strategies are kept by their arguments: hypothesis's strategies
    are costly to make and validate (a third of a draw's time when made afresh) and cheap to draw from."""
    return lru_cache(maxsize=4096)(fn)


@dataclass
class Probe:
    """One drawn node: inputs by the case model's names (a variadic parameter's values under names of
    their own), attributes, and the node's output names where the operator's outputs depend on them."""

    inputs: dict[str, Any]
    attrs: dict[str, Any] = field(default_factory=dict)
    outputs: list | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # what the family needs to finish the case


# ---------------------------------------------------------------------------------------------
# dimensions and shapes


def dims(limit: int | None = None):
    """A dimension: 1 to 4, or an interesting size, at most `limit` (default MAX_ELEMENTS); 0 about once in
    ZERO_DIM_ONE_IN. Shrinks away from 0."""
    return _dims(MAX_ELEMENTS if limit is None else limit)


_ZERO = st.integers(1, ZERO_DIM_ONE_IN).map(lambda k: k == ZERO_DIM_ONE_IN)  # shrinks to 1: not empty


@lru_cache(maxsize=None)
def _sized(limit: int):
    """A dimension of 1 to `limit`: 1 to 4, or an interesting size."""
    listed = [d for d in INTERESTING_DIMS if d <= limit]
    small = st.integers(1, max(1, min(4, limit)))
    return st.one_of(small, st.sampled_from(listed)) if listed else small


@lru_cache(maxsize=None)
def _dims(limit: int):
    return st.tuples(_ZERO, _sized(limit)).map(lambda drawn: 0 if drawn[0] else drawn[1])


@cached
@st.composite
def shapes(draw, min_rank: int = 0, max_rank: int = MAX_RANK, limit: int | None = None):
    """A shape of rank min_rank..max_rank whose nonzero dimensions multiply to at most `limit` (default
    MAX_ELEMENTS); the dimensions are drawn in a drawn order, so a large one is not always the first.
    About once in ZERO_DIM_ONE_IN the first of them in that order is 0 (an empty tensor), whatever the rank."""
    limit = MAX_ELEMENTS if limit is None else limit
    rank = draw(st.integers(min_rank, max_rank), label="rank")
    order = draw(st.permutations(range(rank))) if rank > 1 else list(range(rank))
    empty = rank > 0 and draw(_ZERO, label="empty")
    out = [1] * rank
    room = limit
    for k, axis in enumerate(order):
        d = 0 if empty and k == 0 else draw(_sized(room))
        out[axis] = d
        room //= max(d, 1)
    return tuple(out)


def elements_of(shape) -> int:
    return int(np.prod(shape, dtype=np.int64)) if len(shape) else 1


@cached
@st.composite
def broadcast_shapes(draw, count: int, limit: int | None = None, max_rank: int = MAX_RANK):
    """`count` shapes that broadcast multidirectionally (numpy's rule): a common shape, each operand
    aligned to its trailing dimensions with some of them 1 and possibly fewer of them. Shrinks
    toward every operand holding the whole shape."""
    full = draw(shapes(0, max_rank, limit), label="broadcast shape")
    out = []
    for _ in range(count):
        drop = draw(st.integers(0, len(full)), label="leading dims left out") if full else 0
        own = list(full[drop:])
        for i in range(len(own)):
            if own[i] != 1 and draw(st.booleans()):
                own[i] = 1
        out.append(tuple(own))
    return out


@cached
@st.composite
def unidirectional_shape(draw, target):
    """A shape that broadcasts to `target` (onnx's unidirectional rule): its trailing dimensions,
    each the target's or 1."""
    drop = draw(st.integers(0, len(target))) if target else 0
    own = list(target[drop:])
    for i in range(len(own)):
        if own[i] != 1 and draw(st.booleans()):
            own[i] = 1
    return tuple(own)


# ---------------------------------------------------------------------------------------------
# element values


def _storage(type_name_: str) -> np.dtype:
    """What a tensor's elements are written through: the bit pattern of an IEEE float (so every NaN
    encoding survives), the byte of an 8-bit-or-narrower float, the value of anything else."""
    dt = numpy_of(type_name_)
    if type_name_ in IEEE:
        return np.dtype(f"uint{dt.itemsize * 8}")
    if values.is_small_float(type_name_):
        return np.dtype(np.uint8)
    return dt


def _bits(xs, type_name_: str) -> list[int]:
    arr = np.asarray(xs, dtype=np.float64).astype(numpy_of(type_name_))
    return [int(b) for b in arr.view(_storage(type_name_)).reshape(-1)]


@lru_cache(maxsize=None)
def edges(type_name_: str) -> tuple:
    """Each type's trouble spots, in the storage _storage names: the limits and their neighbours,
    subnormals, signed zeros, +-1 and its neighbours, infinities, every NaN encoding of note; integer
    extremes, their neighbours and magnitudes past 2^32 and 2^53 (generators/unary_family.py's list)."""
    if type_name_ == "bool":
        return (True, False)
    if type_name_ == "string":
        return tuple(values.STRINGS) + ("0", "-0", "1.5", "NaN", "-INF", "1e40", "0x10", " 7 ")
    if type_name_ in ("complex64", "complex128"):
        part = "float" if type_name_ == "complex64" else "double"
        finite = [x for x in range_values(part) if math.isfinite(x)]
        return tuple(complex(a, b) for a in finite[:6] for b in (0.0, -0.0, math.inf, math.nan, 1.0))
    if values.is_int(type_name_):
        lo, hi = values.int_range(type_name_)
        return tuple(x for x in range_values(type_name_) if lo <= x <= hi)
    if values.is_small_float(type_name_):
        return tuple(range(2 ** ml_dtypes.finfo(numpy_of(type_name_)).bits))
    specials = nan_inf_encodings(ml_dtypes.finfo(numpy_of(type_name_)))
    return tuple(dict.fromkeys(_bits(range_values(type_name_), type_name_) +
                               [int(b) for b in specials.view(_storage(type_name_))]))


@lru_cache(maxsize=None)
def ordinary(type_name_: str):
    """The plain values of a type (what a find shrinks to): small integers, moderate floats."""
    if type_name_ == "bool":
        return st.booleans()
    if type_name_ == "string":
        return st.text(max_size=8)
    if type_name_ in ("complex64", "complex128"):
        part = st.floats(-1000, 1000, width=32 if type_name_ == "complex64" else 64)
        return st.builds(complex, part, part)
    if values.is_int(type_name_):
        lo, hi = values.int_range(type_name_)
        return st.integers(max(lo, -8), min(hi, 8))
    if values.is_small_float(type_name_):
        return st.sampled_from(edges(type_name_))  # every encoding: there are at most 256
    width = {"float16": 16, "double": 64}.get(type_name_, 32)
    return st.floats(-1000, 1000, width=width).map(lambda x, n=type_name_: _bits([x], n)[0])


@lru_cache(maxsize=None)
def element_values(type_name_: str, edge_values: bool = True, nan: bool = True):
    """One element, in the storage _storage names: ordinary values first (what a find shrinks to), then
    the type's edges (without NaN where `nan` is False: an operator whose spec leaves NaN's rank open)."""
    if not edge_values:
        return ordinary(type_name_)
    listed = edges(type_name_)
    if not nan and (type_name_ in IEEE or values.is_small_float(type_name_)):
        with np.errstate(invalid="ignore"):
            decoded = np.array(listed, dtype=_storage(type_name_)).view(numpy_of(type_name_)).astype(np.float64)
        listed = tuple(e for e, x in zip(listed, decoded) if not np.isnan(x))
        plain = ordinary(type_name_)
        if values.is_small_float(type_name_):
            plain = st.sampled_from(listed)
        return st.one_of(plain, st.sampled_from(listed))
    return st.one_of(ordinary(type_name_), st.sampled_from(listed))


def base(type_name_: str, shape, role: str = "distinct", operand: int = 0) -> np.ndarray:
    """The values a drawn tensor starts from, before the drawn ones are put in: `distinct` (a misplaced
    element shows: generators/values.py's ordinary values, seeded by the shape), `tame` (an
    arithmetic operand: floats as distinct, integers small and positive, the first operand the
    larger, so sums, differences, products and quotients of integers stay defined), `sparse` (a
    reduction's: integers whose sums stay within every type), `unit` (a product's: near 1), `tied` (0, 1
    and 2 repeating: ties for an arg-max or a top-k to break)."""
    return _base(type_name_, tuple(shape), role, operand).copy()


@lru_cache(maxsize=256)
def _base(type_name_: str, shape: tuple, role: str, operand: int) -> np.ndarray:
    n = elements_of(shape)
    dt = numpy_of(type_name_) if type_name_ != "string" else np.dtype(object)
    rng = seeded_rng("explore", type_name_, shape, operand)
    if role == "tied" and type_name_ not in ("string", "complex64", "complex128"):
        # few distinct values, each many times: where an arg-max or a top-k must break ties by index
        flat = (np.arange(n) * 7) % (2 if type_name_ == "bool" else 3)
        return flat.astype(np.float64).astype(dt).reshape(shape)
    if role != "distinct" and values.is_int(type_name_):
        i = np.arange(n)
        signed = values.int_range(type_name_)[0] < 0
        if role == "tame":
            flat = (6 + i % 5) if operand == 0 else (1 + i % 3)
        elif role == "unit":  # 1s, every third -1 where the type has it
            flat = 1 - 2 * ((i % 3 == 2) & signed)
        elif signed:  # sparse: 0, 1, -1 repeating, every partial sum 0 or 1
            flat = (i % 3 == 1).astype(np.int64) - (i % 3 == 2).astype(np.int64)
        else:  # sparse, unsigned: a single 1
            flat = (i == 1).astype(np.int64)
        return flat.astype(dt).reshape(shape)
    if role == "unit" and type_name_ in IEEE:  # factors near 1: a product of thousands stays in range
        return rng.uniform(0.5, 2.0, size=shape).astype(dt)
    return values.sample(type_name_, shape, rng, specials=False)


@cached
@st.composite
def tensors(draw, type_name_: str, shape, role: str = "distinct", operand: int = 0, elements=None):
    """A tensor of `shape`: its base values with up to MAX_OVERLAY elements drawn (`elements`: a
    strategy of values in the type's storage, default element_values), at drawn positions."""
    x = base(type_name_, shape, role, operand)
    n = x.size
    if n == 0:
        return x
    picks = draw(overlay(n, element_values(type_name_) if elements is None else elements), label="drawn elements")
    if picks:
        flat = x.reshape(-1).view(_storage(type_name_)) if type_name_ not in ("string",) else x.reshape(-1)
        for i, value in picks:
            flat[i] = value
    return x


@lru_cache(maxsize=4096)
def overlay(n: int, elements):
    """Up to MAX_OVERLAY (position, value) pairs: built once per size, as hypothesis's strategies are
    costly to make and cheap to draw from."""
    return st.lists(st.tuples(st.integers(0, n - 1), elements), max_size=min(n, MAX_OVERLAY))


# ---------------------------------------------------------------------------------------------
# attributes, read from the schema


QUOTED = re.compile(r"""[`"']+([A-Za-z_][A-Za-z0-9_]*)[`"']+""")
FLOATS = (1.0, 0.5, 0.0, -1.0, 2.0, 0.001, 10.0, -0.5, 3.0)


def default_of(attribute) -> Any:
    if not attribute.default_value.name:
        return None
    value = onnx.helper.get_attribute_value(attribute.default_value)
    return value.decode() if isinstance(value, bytes) else value


def attribute_values(attribute):
    """The values of one attribute the schema lets us draw without an operator's own rule, or None:
    a float (a few plain ones, then any float32 in [-100, 100]); a 0/1 flag (an INT whose default is 0
    or 1); a string from the words the description quotes (Gelu's `"tanh"`, BitShift's "LEFT")."""
    kind = attribute.type
    types = onnx.defs.OpSchema.AttrType
    default = default_of(attribute)
    if kind == types.FLOAT:
        return st.one_of(st.sampled_from(FLOATS), st.floats(-100, 100, width=32))
    if kind == types.INT and default in (0, 1):
        return st.sampled_from([default, 1 - default])
    if kind == types.STRING:
        words = list(dict.fromkeys(QUOTED.findall(attribute.description)))
        if default in words:
            words.remove(default)
            words.insert(0, default)
        return st.sampled_from(words) if words else None
    return None


LEGACY = ("consumed_inputs",)  # 'legacy optimization attribute': nothing to draw


@st.composite
def attributes(draw, v: OpVersion, skip=(), given: dict | None = None):
    """The node's attributes: `given` ones as they are, each other one the schema lets us draw
    (attribute_values) left out (its default) or drawn; a required one always drawn."""
    out = dict(given or {})
    for name, attribute in v.schema.attributes.items():
        if name in out or name in skip or name in LEGACY:
            continue
        drawn = attribute_values(attribute)
        if drawn is None:
            continue
        if attribute.required or draw(st.booleans(), label=f"set {name}"):
            out[name] = draw(drawn, label=name)
    return out


def undrawable(v: OpVersion, handled=()) -> str | None:
    """Why `attributes` cannot draw a node of v: a required attribute it has no values for (None: it can)."""
    for name, attribute in v.schema.attributes.items():
        if attribute.required and name not in handled and attribute_values(attribute) is None:
            return f"no values for its required attribute {name!r}"
    return None


# ---------------------------------------------------------------------------------------------
# a family, and what it hands the explorer


class Discard(Exception):
    """A draw that makes no case (an example the family's rule does not apply to); `reason` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Family:
    """The strategies a family of operators shares. `covers` says whether it draws an operator version
    (None) or why not; `probes` draws a node of it in a type binding; `case` finishes a drawn node
    into a Case: expected outputs from the operator's semantics (raising Rejected or Undefined where
    the spec gives none), and the tolerance and quality marks the corpus would give it."""

    name = ""
    operators: tuple[str, ...] = ()

    def __init__(self):
        self._strategies: dict = {}

    def covers(self, op, v: OpVersion) -> str | None:
        return None if op.name in self.operators and not op.domain else f"not a {self.name} operator"

    def probes(self, op, v: OpVersion, t: Types):
        """The strategy of nodes of v in binding t, made once (see `cached`)."""
        key = (op.name, v.since_version, tuple(t.items()))
        if key not in self._strategies:
            self._strategies[key] = self.strategy(op, v, t)
        return self._strategies[key]

    def strategy(self, op, v: OpVersion, t: Types):
        raise NotImplementedError

    def case(self, op, v: OpVersion, t: Types, probe: Probe):
        tolerance = example_tolerance(op, v, t, count=sum(x is not None for x in probe.inputs.values()))
        return op.expect(v, probe.inputs, probe.attrs, outputs=probe.outputs, tolerance=tolerance)


_TOLERANCES: dict = {}


def example_tolerance(op, v: OpVersion, t: Types, count: int | None = None) -> dict | None:
    """The tolerance the operator's own examples carry in this binding: the first example that applies;
    for a variadic operator, the first with `count` inputs, else the one with the most (Sum's budget
    grows with them). Examples are built once per (version, binding), from the corpus's seeded data."""
    key = (op.name, v.since_version, tuple(t.items()))
    if key not in _TOLERANCES:
        variadic = any(f.option.name == "Variadic" for f in v.schema.inputs)
        found = []
        for example in op.examples:
            try:
                with np.errstate(all="ignore"):
                    case = op.case(example, v, t, seeded_rng(op.name, v.since_version, example, t.dtype, *t.suffix))
            except Exception:  # noqa: BLE001 - an example built for the corpus's bindings only
                continue
            if isinstance(case, NotApplicable) or case.error:
                continue
            found.append((sum(x is not None for x in case.inputs.values()), case.tolerance))
            if len(found) >= (4 if variadic else 1):
                break
        _TOLERANCES[key] = found
    found = _TOLERANCES[key]
    if not found:
        return None
    same = [tol for n, tol in found if n == count]
    return same[0] if same else max(found, key=lambda f: f[0])[1]


def grown(tolerance: dict | None, type_name_: str, n: int, magnitude: float) -> dict | None:
    """The larger of a tolerance and accumulation.accumulation(n, magnitude) for a result summed over n
    terms (the spec names no order or precision to sum in); `magnitude` only where finite."""
    from onnx_conformance.generators.accuracy import EPSILON, accumulation

    if type_name_ not in EPSILON:
        return tolerance
    more = accumulation(type_name_, max(n, 1), magnitude if math.isfinite(magnitude) else 0.0)
    out = dict(tolerance or {})
    out["ulp"] = max(out.get("ulp", 0), more.get("ulp", 0))
    if "atol" in out or "atol" in more:
        out["atol"] = max(out.get("atol", 0.0), more.get("atol", 0.0))
    return out


def largest_finite(x) -> float:
    """The largest finite element of x as a float (0.0 where none is)."""
    x = np.asarray(x, dtype=np.float64)
    finite = x[np.isfinite(x)]
    return float(finite.max()) if finite.size else 0.0
