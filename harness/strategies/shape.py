"""Shape and layout: Pad, Tile, Expand, Reshape, Squeeze, Unsqueeze, Flatten, DepthToSpace, SpaceToDepth, Shape, Size, Range, Trilu, CumSum, CumProd, ReverseSequence and Identity, each in the spelling its version takes.

The numbers that shape a node (pads, repeats, a target shape, axes) are attributes or int64 inputs
as the version has them (shape_family.ints_argument); negative axes from version 11 ('Accepted range
is [-r, r-1]'). Each operator draws what its spec defines: Pad's pads of different widths before and
after, negative ones cropping (version 2 on), in every mode the version lists, where the mode has a
value to repeat; Reshape's 0 (copy, or with allowzero a zero dimension) and -1 (inferred); Shape's
start and end past either end ('clamped to the range [0, r-1]'); OneHot-style out-of-range values are
not drawn where the spec calls them an error. CumSum's tolerance grows with the axis as an
accumulation's does (accuracy.accumulation, the reductions' rule): the spec names no order to add in;
CumProd's likewise with its largest running product of magnitudes (a product's rounding errors add
up relative to it), its factors near 1 so that thousands of them stay in range. Tile-1 takes one count
and one axis as whole numbers of the input's own float type (its schema types `tiles` and `axis` T).
Identity copies a tensor, a sequence of tensors (14 on) or an optional of either, empty ones too (16 on).
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators.case import Opt, Seq
from onnx_conformance.generators.shape_family import ints_argument
from onnx_conformance.harness.strategies import common
from onnx_conformance.harness.dtypes import numpy_of
from onnx_conformance.harness.strategies.common import (
    Discard,
    Family,
    Probe,
    broadcast_shapes,
    dims,
    elements_of,
    grown,
    largest_finite,
    shapes,
    tensors,
)
from onnx_conformance.harness.strategies.indices import index_tensors, ints, negative_spelling

MAX_PAD = 9  # a pad of up to 9 elements a side: past a vector width either way
ROOM = 1024  # elements an input may hold where the output is several times larger (Pad, Tile, Unsqueeze)


class Shape(Family):
    name = "shape and layout"
    operators = ("Pad", "Tile", "Expand", "Reshape", "Squeeze", "Unsqueeze", "Flatten", "DepthToSpace",
                 "SpaceToDepth", "Shape", "Size", "Range", "Trilu", "CumSum", "CumProd", "ReverseSequence", "Identity")

    def strategy(self, op, v, t):
        return DRAWS[op.name](op, v, t)

    def case(self, op, v, t, probe):
        try:
            case = super().case(op, v, t, probe)
        except OverflowError:  # the running product's exact value past float's range, on its way to the tolerance
            raise Discard("CumProd: the exact running product leaves float64's range") from None
        if op.name == "CumSum" and case.tolerance is not None:
            case.tolerance = _running_sum_tolerance(t.dtype, probe, case.tolerance)
        if op.name == "CumProd":
            x = np.abs(np.asarray(probe.inputs["x"], dtype=np.float64))
            _running_product_in_range(t.dtype, x, probe.extra["axis"])
            with np.errstate(all="ignore"):
                running = np.cumprod(x, axis=probe.extra["axis"]) if x.size else np.zeros(())
            case.tolerance = grown(case.tolerance, t.dtype, x.shape[probe.extra["axis"]], largest_finite(running))
        return case


def _data(draw, t, shape, label="data", role="distinct"):
    return draw(tensors(t.dtype, tuple(shape), role=role), label=label)


# ---------------------------------------------------------------------------------------------
# Pad


def _modes(v) -> list[str]:
    words = v.schema.attributes["mode"].description
    return [m for m in ("constant", "reflect", "edge", "wrap") if m in words]


def _pads(draw, mode: str, n: int, crop: bool) -> tuple[int, int]:
    """(begin, end) for an axis of n elements in `mode`: what the spec gives a value. reflect mirrors 'on
    the first and last values': at most n - 1 a side; reflect, edge and wrap need an element to repeat;
    a crop (a negative pad) only in constant and edge mode, or on both sides."""
    if mode != "constant" and n == 0:
        return 0, 0
    top = min(MAX_PAD, n - 1) if mode == "reflect" else MAX_PAD
    side = st.one_of(st.sampled_from(sorted({0, min(1, top), top})), st.integers(0, top))
    if crop and n:
        side = st.one_of(side, st.integers(-n, -1))
    begin, end = draw(side, label="pad begin"), draw(side, label="pad end")
    if mode in ("reflect", "wrap") and min(begin, end) < 0 < max(begin, end):
        begin, end = min(begin, 0), min(end, 0)
    if n + begin + end < 0:
        begin, end = max(begin, -n), max(end, -n - max(begin, -n))
    return begin, end


@st.composite
def _pad(draw, op, v, t):
    x = _data(draw, t, draw(shapes(1, 5, ROOM)))
    r = x.ndim
    mode = draw(st.sampled_from(_modes(v)), label="mode")
    crop = not v.has_attribute("paddings")  # Pad-1's paddings: 'the padding element count'
    axes = list(range(r))
    spelled = None
    if v.has_input("axes") and draw(st.booleans(), label="give axes"):
        axes = draw(st.lists(st.integers(0, r - 1), min_size=1, max_size=r, unique=True), label="axes")
        spelled = [negative_spelling(draw, a, r) for a in axes]
    widths = [_pads(draw, mode, x.shape[a], crop) for a in axes]
    pads = [b for b, _ in widths] + [e for _, e in widths]
    attrs = {} if mode == "constant" and not draw(st.booleans(), label="give mode") else {"mode": mode}
    if not v.has_input("pads"):
        attrs["paddings" if v.has_attribute("paddings") else "pads"] = pads
        if mode == "constant" and draw(st.booleans(), label="give value"):
            attrs["value"] = draw(common.attribute_values(v.schema.attributes["value"]), label="value")
        return Probe({"data": x}, attrs)
    inputs = {"data": x, "pads": ints(pads)}
    if mode == "constant" and draw(st.booleans(), label="give constant_value"):
        inputs["constant_value"] = draw(tensors(t.dtype, ()), label="constant_value")
    elif v.has_input("axes"):
        inputs["constant_value"] = None
    if v.has_input("axes"):
        inputs["axes"] = None if spelled is None else ints(spelled, t["Tind"])
        if spelled is None:
            del inputs["axes"]
            if inputs["constant_value"] is None:
                del inputs["constant_value"]
    return Probe(inputs, attrs)


# ---------------------------------------------------------------------------------------------
# copies and broadcasts


@st.composite
def _tile(draw, op, v, t):
    x = _data(draw, t, draw(shapes(0 if v.has_input("repeats") else 1, 5, ROOM)), label="input")
    room = common.MAX_ELEMENTS // max(1, x.size)
    if not v.has_input("repeats"):  # Tile-1: 'Number of repeated copies' along one 'Axis', both of type T
        axis = draw(st.integers(0, x.ndim - 1), label="axis")
        tiles = draw(st.integers(0, max(0, min(room, 8))), label="tiles")
        return Probe({"input": x, "tiles": np.array(tiles, dtype=x.dtype), "axis": np.array(axis, dtype=x.dtype)})
    repeats = []
    for d in x.shape:
        k = draw(st.integers(0, max(0, min(room, 8))), label="repeat")
        repeats.append(k)
        room //= max(k, 1)
    return Probe({"input": x, "repeats": ints(repeats)})


@st.composite
def _expand(draw, op, v, t):
    own, target = draw(broadcast_shapes(2), label="shapes")
    return Probe({"input": _data(draw, t, own, label="input"), "shape": ints(target)})


# ---------------------------------------------------------------------------------------------
# the same elements in another shape


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0] if n <= common.MAX_ELEMENTS else [1, n]


@st.composite
def _reshape(draw, op, v, t):
    x = _data(draw, t, draw(shapes(0)))
    n = x.size
    # Reshape-1's shape is an attribute: rank 0 would be an empty INTS, which has no type to write
    rank = draw(st.integers(0 if v.has_input("shape") else 1, 6), label="new rank")
    if n == 0:  # a zero dimension where the input has one (so a 0 reads alike copied or literal), the others not
        z = draw(st.sampled_from([i for i, d in enumerate(x.shape) if d == 0]), label="zero at")
        out = [draw(st.integers(1, 4), label="dim") for _ in range(max(rank, z + 1))]
        out[z] = 0
    else:
        out, left = [], n
        for _ in range(max(rank - 1, 0)):
            d = draw(st.sampled_from(_divisors(left)), label="dim")
            out.append(d)
            left //= d
        if rank:
            out.append(left)
        elif n != 1:
            out = [n]
    allowzero = v.has_attribute("allowzero") and draw(st.booleans(), label="allowzero")
    spelled = list(out)
    if not allowzero:  # 0 copies the input's dimension where they are equal
        for i, d in enumerate(out):
            if i < x.ndim and d == x.shape[i] and draw(st.booleans(), label=f"0 for dim {i}"):
                spelled[i] = 0
    nonzero = [i for i, d in enumerate(out) if d]
    if n and out and draw(st.booleans(), label="give -1") and not (allowzero and 0 in spelled):
        spelled[draw(st.sampled_from(nonzero), label="-1 at")] = -1
    inputs, attrs = {"data": x}, {}
    ints_argument(v, "shape", spelled, inputs, attrs)
    if v.has_attribute("allowzero") and (allowzero or draw(st.booleans(), label="give allowzero")):
        attrs["allowzero"] = int(allowzero)
    return Probe(inputs, attrs)


@st.composite
def _squeeze(draw, op, v, t):
    base = list(draw(shapes(0, 6, common.MAX_ELEMENTS)))
    ones = draw(st.integers(0, 3), label="added ones")
    for _ in range(ones):
        base.insert(draw(st.integers(0, len(base)), label="one at"), 1)
    x = _data(draw, t, base)
    r = x.ndim
    unit = [i for i, d in enumerate(x.shape) if d == 1]
    axes = None
    # Squeeze-1 without axes: onnx's shape inference keeps a dimension the semantics removes; axes given there
    if unit and (v.since_version == 1 or draw(st.booleans(), label="give axes")):
        picked = draw(st.lists(st.sampled_from(unit), min_size=1, unique=True), label="axes")
        axes = [negative_spelling(draw, a, r, v.since_version >= 11) for a in picked]
    inputs, attrs = {"data": x}, {}
    ints_argument(v, "axes", axes, inputs, attrs)
    if inputs.get("axes", 0) is None:
        del inputs["axes"]
    return Probe(inputs, attrs)


@st.composite
def _unsqueeze(draw, op, v, t):
    x = _data(draw, t, draw(shapes(0, 5, ROOM)))
    k = draw(st.integers(1, 3), label="new axes")
    out_rank = x.ndim + k
    picked = draw(st.lists(st.integers(0, out_rank - 1), min_size=k, max_size=k, unique=True), label="axes")
    axes = [negative_spelling(draw, a, out_rank, v.since_version >= 11) for a in picked]
    inputs, attrs = {"data": x}, {}
    ints_argument(v, "axes", axes, inputs, attrs)
    return Probe(inputs, attrs)


@st.composite
def _flatten(draw, op, v, t):
    x = _data(draw, t, draw(shapes(1)), label="input")  # rank 0 has no axis 1, the default
    r = x.ndim
    attrs = {}
    if draw(st.booleans(), label="give axis"):
        axis = draw(st.integers(0, r), label="axis")  # 'in the range [-r, r]' (from 11), [0, R] before
        attrs["axis"] = axis - r if v.since_version >= 11 and axis and draw(st.booleans(), label="negative") else axis
    return Probe({"input": x}, attrs)


@st.composite
def _depth_space(draw, op, v, t):
    """N x C x H x W with C (DepthToSpace) or H and W (SpaceToDepth) multiples of the blocksize."""
    b = draw(st.sampled_from([1, 2, 3, 4, 5, 8]), label="blocksize")
    n, c, h, w = (draw(st.integers(1, 3), label="N"), draw(st.integers(1, 4), label="C"),
                  draw(dims(16), label="H"), draw(dims(16), label="W"))
    shape = (n, c * b * b, h, w) if op.name == "DepthToSpace" else (n, c, h * b, w * b)
    if elements_of(shape) > common.MAX_ELEMENTS:
        shape = shape[:2] + (b if op.name == "SpaceToDepth" else 1,) * 2
    attrs = {"blocksize": b}
    if v.has_attribute("mode") and draw(st.booleans(), label="give mode"):
        attrs["mode"] = draw(st.sampled_from(["DCR", "CRD"]), label="mode")
    return Probe({"input": _data(draw, t, shape, label="input")}, attrs)


# ---------------------------------------------------------------------------------------------
# facts of a shape, and made from numbers


@st.composite
def _shape(draw, op, v, t):
    x = _data(draw, t, draw(shapes(0)))
    r = x.ndim
    attrs = {}
    for name in ("start", "end"):  # 'clamped to the range [0, r]' past either end
        if v.has_attribute(name) and draw(st.booleans(), label=f"give {name}"):
            attrs[name] = draw(st.integers(-r - 2, r + 2), label=name)
    return Probe({"data": x}, attrs)


@st.composite
def _size(draw, op, v, t):
    return Probe({"data": _data(draw, t, draw(shapes(0)))})


@st.composite
def _range(draw, op, v, t):
    """start, limit and delta of T (scalars) for up to MAX_ELEMENTS elements, start among the type's
    edges too; integers whose every element stays in the type."""
    dt = t.np()
    count = draw(dims(), label="elements")
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        delta = draw(st.sampled_from([1, -1, 2, -3, 7, 100]), label="delta")
        start = draw(st.one_of(st.integers(-8, 8), st.sampled_from([int(info.min), int(info.max)])), label="start")
        limit = start + delta * count - draw(st.integers(0, abs(delta) - 1), label="short of a step")
        low, high = int(info.min), int(info.max)
        start, limit = min(max(start, low), high), min(max(limit, low), high)
        return Probe({k: np.array(x, dtype=dt) for k, x in (("start", start), ("limit", limit), ("delta", delta))})
    delta = draw(st.one_of(st.sampled_from([1.0, -1.0, 0.5, 0.1, -2.5, 3.0]),
                           st.floats(-100, 100, width=32).filter(lambda d: abs(d) > 1e-3)), label="delta")
    start = float(draw(tensors(t.dtype, ()), label="start"))
    if not math.isfinite(start):
        start = 0.0
    limit = start + delta * count - draw(st.sampled_from([0.0, 0.25, 0.5]), label="short of a step") * delta
    with np.errstate(over="ignore"):  # past float16's range: infinite, which the semantics leaves undefined
        operands = {k: np.array(x, dtype=dt) for k, x in (("start", start), ("limit", limit), ("delta", delta))}
    return Probe(operands, draw(common.attributes(v)))


@st.composite
def _trilu(draw, op, v, t):
    x = _data(draw, t, draw(shapes(2, 5)), label="input")
    rows, cols = x.shape[-2:]
    inputs = {"input": x}
    if draw(st.booleans(), label="give k"):
        # INT64_MAX, and -2^62 for the low end: numpy.triu (the semantics) overflows near INT64_MIN
        extremes = [-(2**62), 2**62, int(np.iinfo(np.int64).max)]
        inputs["k"] = np.array(draw(st.one_of(st.integers(-rows - 1, cols + 1), st.sampled_from(extremes)),
                                    label="k"), dtype=np.int64)
    attrs = {"upper": draw(st.sampled_from([1, 0]), label="upper")} if draw(st.booleans(), label="give upper") else {}
    return Probe(inputs, attrs)


@st.composite
def _cum_sum(draw, op, v, t):
    x = _data(draw, t, draw(shapes(1)), label="x", role="sparse")
    r = x.ndim
    axis = negative_spelling(draw, draw(st.integers(0, r - 1), label="axis"), r)
    attrs = {name: 1 for name in ("exclusive", "reverse") if draw(st.booleans(), label=name)}
    return Probe({"x": x, "axis": np.array(axis, dtype=t.np("T2"))}, attrs, extra={"axis": axis % r})


@st.composite
def _cum_prod(draw, op, v, t):
    # near 1 (so long axes stay in range); floats also as they come (infinities and overflow are defined)
    role = draw(st.sampled_from(["unit", "distinct"]), label="factors") if t.dtype in common.IEEE else "unit"
    x = _data(draw, t, draw(shapes(1)), label="x", role=role)
    r = x.ndim
    axis = negative_spelling(draw, draw(st.integers(0, r - 1), label="axis"), r)
    attrs = {name: 1 for name in ("exclusive", "reverse") if draw(st.booleans(), label=name)}
    return Probe({"x": x, "axis": np.array(axis, dtype=t.np("T2"))}, attrs, extra={"axis": axis % r})


@st.composite
def _identity(draw, op, v, t):
    kind = t.dtype
    if kind.startswith("optional("):
        inner = kind[len("optional("):-1]
        if draw(st.booleans(), label="empty optional"):
            return Probe({"input": Opt(None, inner[len("tensor("):-1] if inner.startswith("tensor(") else inner)})
        value = draw(_tensor_or_sequence(inner), label="content")
        return Probe({"input": Opt(value, inner[len("tensor("):-1] if inner.startswith("tensor(") else inner)})
    return Probe({"input": draw(_tensor_or_sequence(kind if "(" in kind else f"tensor({kind})"), label="input")})


@st.composite
def _tensor_or_sequence(draw, kind: str):
    """A value of 'tensor(x)' or 'seq(tensor(x))': a tensor of any rank, or 0 to 5 of them."""
    if kind.startswith("seq("):
        elem = kind[len("seq(tensor("):-2]
        count = draw(st.integers(0, 5), label="sequence length")
        rank = draw(st.integers(0, 4), label="rank")  # one rank for all: onnx infers a sequence's element shape
        return Seq([draw(tensors(elem, draw(shapes(rank, rank, 256)), operand=i), label="item") for i in range(count)], elem)
    return draw(tensors(kind[len("tensor("):-1], draw(shapes(0, MAX_RANK_IDENTITY))), label="tensor")


MAX_RANK_IDENTITY = 6


def _running_product_in_range(type_name: str, x, axis: int) -> None:
    """Discard a CumProd whose running product of magnitudes (its finite nonzero factors) passes the type's
    largest value or falls below half its smallest subnormal: 'the spec names no precision for the running
    product', and one kept in the type is infinite or 0 there while the exact one later comes back into range."""
    if type_name not in common.IEEE or not x.size:
        return
    info = ml_dtypes.finfo(numpy_of(type_name))
    with np.errstate(all="ignore"):
        logs = np.where(np.isfinite(x) & (x > 0), np.log2(np.where(x > 0, x, 1.0)), 0.0)
        # either direction (reverse = 1 multiplies from the end)
        running = np.concatenate([np.cumsum(logs, axis=axis), np.cumsum(np.flip(logs, axis), axis=axis)])
    if running.max() > np.log2(float(info.max)) or running.min() < np.log2(float(info.smallest_subnormal)) - 1:
        raise Discard("CumProd: a running product leaves the type's range and may come back (the spec names no "
                      "precision for it)")


def _running_sum_tolerance(type_name: str, probe: Probe, corpus: dict) -> dict:
    """The larger of the corpus's budget and the accumulation over the axis (M: the largest sum of
    magnitudes along it)."""
    x = np.abs(np.asarray(probe.inputs["x"], dtype=np.float64))
    axis = probe.extra["axis"]
    with np.errstate(all="ignore"):
        total = np.sum(x, axis=axis) if x.size else np.zeros(())
    return grown(corpus, type_name, x.shape[axis], largest_finite(total))


@st.composite
def _reverse_sequence(draw, op, v, t):
    x = _data(draw, t, draw(shapes(2, 5)), label="input")
    time_axis = draw(st.sampled_from([0, 1]), label="time_axis")  # 'Must be one of 0 (default), or 1'
    batch_axis = 1 - time_axis
    steps = x.shape[time_axis]
    lens = draw(index_tensors((x.shape[batch_axis],), 0, steps), label="sequence_lens")
    attrs = {}
    if time_axis or draw(st.booleans(), label="give axes"):
        attrs = {"time_axis": time_axis, "batch_axis": batch_axis}
    return Probe({"input": x, "sequence_lens": lens}, attrs)


DRAWS = {"Identity": _identity, "CumProd": _cum_prod, "Pad": _pad, "Tile": _tile, "Expand": _expand, "Reshape": _reshape, "Squeeze": _squeeze,
         "Unsqueeze": _unsqueeze, "Flatten": _flatten, "DepthToSpace": _depth_space, "SpaceToDepth": _depth_space,
         "Shape": _shape, "Size": _size, "Range": _range, "Trilu": _trilu, "CumSum": _cum_sum,
         "ReverseSequence": _reverse_sequence}
