"""Indexing: Gather, GatherElements, GatherND, ScatterElements, ScatterND, OneHot, Compress, ArgMax, ArgMin and TopK, with indices at the ends, negative and repeated where the spec gives them a meaning.

Indices are drawn inside the range the version states ('[-s, s-1]' from version 11, '[0, s-1]'
before, gather_family.allows_negative): an index outside it is an error, which a search for wrong
answers does not draw. OneHot is the exception: 'any entries in the 'indices' input tensor with values
outside the range [-depth, depth-1] will result in one-hot representation with all 'off_value'
values', so its indices go past both ends. Scatter's updates meet one element once where the spec
fixes no order ('reduction = none' with duplicates is undefined): the index sets are drawn distinct,
and may repeat only under a reduction. ArgMax, ArgMin and TopK draw data with ties (0, 1, 2 repeating)
as often as distinct data: the spec says which of equal elements wins. Scatter (ScatterElements'
first name) is drawn where its version is not deprecated (9). NonZero's input is mostly zeros, or
mostly not, with -0.0, NaN and '' among the drawn elements. TensorScatter's write indices stay in the
cache in linear mode ('requires write_indices+sequence_length<=max_sequence_length') and go past its
end in circular mode. Unique draws tensors with few distinct values (ties) or many (more than 16, a
hash table's first size), flattened or along an axis, sorted or in order of first occurrence, with
all four outputs.
"""

from __future__ import annotations

import math
import re

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators.gather_family import allows_negative
from onnx_conformance.generators.semantics import described
from onnx_conformance.harness.strategies import common
from onnx_conformance.harness.strategies.common import (
    Family,
    Probe,
    dims,
    elements_of,
    shapes,
    tensors,
)
from onnx_conformance.harness.strategies.indices import index_tensors, negative_spelling

MAX_INDEX_RANK = 4


class Indexing(Family):
    name = "indexing"
    operators = ("Gather", "GatherElements", "GatherND", "ScatterElements", "ScatterND", "OneHot", "Compress",
                 "ArgMax", "ArgMin", "TopK", "NonZero", "Scatter", "TensorScatter", "Unique")

    def covers(self, op, v):
        if op.name == "Scatter" and v.schema.deprecated:  # onnx.checker refuses every model that uses it
            return f"Scatter-{v.since_version} is deprecated: onnx.checker refuses every model using it"
        return super().covers(op, v)

    def strategy(self, op, v, t):
        draw = {"Gather": _gather, "GatherElements": _gather_elements, "GatherND": _gather_nd,
                "ScatterElements": _scatter_elements, "ScatterND": _scatter_nd, "OneHot": _one_hot,
                "Compress": _compress, "ArgMax": _arg, "ArgMin": _arg, "TopK": _top_k, "NonZero": _non_zero,
                "Scatter": _scatter_elements, "TensorScatter": _tensor_scatter, "Unique": _unique}[op.name]
        return draw(op, v, t)


def _negative_ok(v, name: str = "indices") -> bool:
    """Scatter's: '[-s, s-1]' among the version's words for its indices (negative ones count from the back)."""
    return "[-s, s-1]" in described(v, name)


def _range(s: int, negative: bool) -> tuple[int, int]:
    return (-s if negative else 0), s - 1


def _data(draw, t, shape, label="data", role="distinct"):
    return draw(tensors(t.dtype, tuple(shape), role=role), label=label)


@st.composite
def _gather(draw, op, v, t):
    x = _data(draw, t, draw(shapes(1)))
    r = x.ndim
    axis = draw(st.integers(0, r - 1), label="axis")
    s = x.shape[axis]
    room = max(1, common.MAX_ELEMENTS // max(1, elements_of(x.shape) // max(s, 1)))
    q = draw(shapes(0, MAX_INDEX_RANK, room), label="indices shape")
    if s == 0 and elements_of(q):  # no index is in range: the indices must be empty
        q = q + (0,)
    low, high = _range(s, allows_negative(v))
    idx = draw(index_tensors(q, low, high, t["Tind"]), label="indices")
    attrs = {"axis": negative_spelling(draw, axis, r, v.since_version >= 11)} if axis or draw(st.booleans()) else {}
    return Probe({"data": x, "indices": idx}, attrs)


@st.composite
def _gather_elements(draw, op, v, t):
    x = _data(draw, t, draw(shapes(1)))
    r = x.ndim
    axis = draw(st.integers(0, r - 1), label="axis")
    s = x.shape[axis]
    # off the axis, indices no larger than data (the spec's equations index data there); along it, any length
    shape = [draw(st.integers(0, d), label=f"indices dim {a}") if a != axis else 0 for a, d in enumerate(x.shape)]
    shape[axis] = 0 if s == 0 else draw(dims(max(1, common.MAX_ELEMENTS // max(1, elements_of(
        [d for a, d in enumerate(shape) if a != axis and d])))), label="indices axis dim")
    low, high = _range(s, allows_negative(v))
    idx = draw(index_tensors(tuple(shape), low, high, t["Tind"]), label="indices")
    attrs = {"axis": negative_spelling(draw, axis, r)} if axis or draw(st.booleans()) else {}
    return Probe({"data": x, "indices": idx}, attrs)


@st.composite
def _gather_nd(draw, op, v, t):
    x = _data(draw, t, draw(shapes(1)))
    r = x.ndim
    b = draw(st.integers(0, r - 1), label="batch_dims") if v.has_attribute("batch_dims") else 0
    k = draw(st.integers(1, r - b), label="index tuple length")
    # indices: data's batch dimensions, then any of rank 0 to 2, then the tuples' length k
    rest = draw(shapes(0, 2, max(1, common.MAX_ELEMENTS // max(1, x.size))), label="indices dims")
    if 0 in x.shape[b:b + k] and elements_of(x.shape[:b] + rest):  # no tuple is in range: none
        rest = rest + (0,)
    q = x.shape[:b] + rest
    idx = np.zeros(q + (k,), np.int64)
    for d in range(k):
        if idx.size:
            idx[..., d] = draw(index_tensors(q, *_range(x.shape[b + d], allows_negative(v))), label=f"indices column {d}")
    attrs = {"batch_dims": b} if b or (v.has_attribute("batch_dims") and draw(st.booleans())) else {}
    return Probe({"data": x, "indices": idx}, attrs)


def _reductions(v, t) -> list[str]:
    """The reductions the version lists ('none' first), on types that have arithmetic and an order."""
    if not v.has_attribute("reduction"):
        return ["none"]
    listed = list(dict.fromkeys(re.findall(r"\b(none|add|mul|max|min)\b", described(v, "reduction"))))
    return ["none"] + [r for r in listed if r != "none"]


def _distinct(draw, count: int, space: int, label: str) -> list[int]:
    """`count` distinct numbers in [0, space): a drawn start and a step prime to space, or any drawn
    sequence where repeats are allowed."""
    start = draw(st.integers(0, max(0, space - 1)), label=f"{label} start")
    step = draw(st.sampled_from([s for s in (1, 2, 3, 5, 7, 11, 13, 31, 97) if math.gcd(s, space) == 1]),
                label=f"{label} step")
    return [(start + i * step) % space for i in range(count)]


@st.composite
def _scatter_elements(draw, op, v, t):
    x = _data(draw, t, draw(shapes(1)))
    r = x.ndim
    axis = draw(st.integers(0, r - 1), label="axis")
    s = x.shape[axis]
    reduction = draw(st.sampled_from(_reductions(v, t)), label="reduction")
    repeats = reduction != "none" and draw(st.booleans(), label="repeated indices")
    shape = [draw(st.integers(0, d), label=f"indices dim {a}") for a, d in enumerate(x.shape)]
    if s and repeats:
        shape[axis] = draw(st.integers(0, 2 * s), label="indices along axis")
    low, high = _range(s, _negative_ok(v))
    if repeats:
        idx = draw(index_tensors(tuple(shape), low, high), label="indices")
    else:  # each line along the axis a set of distinct positions, some spelled from the back
        idx = np.zeros(shape, np.int64)
        order = _distinct(draw, shape[axis], max(s, 1), "indices")
        moved = np.moveaxis(idx, axis, -1)
        for n, line in enumerate(np.ndindex(moved.shape[:-1])):
            moved[line] = np.roll(order, n) if order else order
        if low < 0 and idx.size:
            flip = draw(st.lists(st.integers(0, idx.size - 1), max_size=common.MAX_OVERLAY), label="negative")
            flat = idx.reshape(-1)
            flat[flip] -= s
    updates = draw(tensors(t.dtype, tuple(shape), operand=1), label="updates")
    attrs = {"axis": negative_spelling(draw, axis, r)} if axis or draw(st.booleans()) else {}
    if reduction != "none" or (v.has_attribute("reduction") and draw(st.booleans(), label="give reduction")):
        attrs["reduction"] = reduction
    return Probe({"data": x, "indices": idx.astype(t.np("Tind")), "updates": updates}, attrs)


@st.composite
def _scatter_nd(draw, op, v, t):
    x = _data(draw, t, draw(shapes(1)))
    r = x.ndim
    k = draw(st.integers(1, r), label="index tuple length")
    heads = x.shape[:k]
    space = elements_of(heads)
    reduction = draw(st.sampled_from(_reductions(v, t)), label="reduction")
    repeats = reduction != "none" and draw(st.booleans(), label="repeated indices")
    tail = elements_of(x.shape[k:]) or 1
    count = draw(st.integers(0, space if not repeats else 2 * space).filter(
        lambda c: c * tail <= common.MAX_ELEMENTS or c == 0), label="updates")
    if space == 0:
        count, linear = 0, []
    elif repeats:
        linear = draw(st.lists(st.integers(0, space - 1), min_size=count, max_size=count), label="tuples")
    else:
        linear = _distinct(draw, count, space, "tuples")
    idx = np.array(np.unravel_index(linear, heads), dtype=np.int64).T.reshape(count, k) if count else \
        np.zeros((0, k), np.int64)
    if _negative_ok(v) and idx.size:
        flip = draw(st.lists(st.integers(0, idx.size - 1), max_size=common.MAX_OVERLAY), label="negative")
        flat = idx.reshape(-1)
        for i in dict.fromkeys(flip):
            flat[i] -= heads[i % k]
    if count and draw(st.booleans(), label="indices of rank 3"):
        idx = idx.reshape(1, count, k)
    updates = draw(tensors(t.dtype, idx.shape[:-1] + x.shape[k:], operand=1), label="updates")
    attrs = {}
    if reduction != "none" or (v.has_attribute("reduction") and draw(st.booleans(), label="give reduction")):
        attrs["reduction"] = reduction
    return Probe({"data": x, "indices": idx, "updates": updates}, attrs)


@st.composite
def _one_hot(draw, op, v, t):
    depth = draw(dims(64).filter(bool), label="depth")
    # rank 1 or more: onnx's shape inference refuses rank-0 indices ('Indices tensor must have rank >= 1')
    shape = draw(shapes(1, 4, max(1, common.MAX_ELEMENTS // depth)), label="indices shape")
    r = len(shape)
    # in range: [-depth, depth-1] from version 11, [0, depth-1] before ('The values must be non-negative
    # integers'); past it by 2 either way where the type and version let an index be there
    low = -depth if v.since_version >= 11 and not t["T1"].startswith("uint") else 0
    idx = draw(index_tensors(shape, low - 2 if low else 0, depth + 1), label="indices")
    idx = idx.astype(np.float64).astype(t.np("T1"))
    depth_t = np.array(depth, dtype=np.float64).astype(t.np("T2"))
    if draw(st.booleans(), label="depth of shape (1,)"):
        depth_t = depth_t.reshape(1)
    values_ = draw(tensors(t["T3"], (2,)), label="values")
    attrs = {}
    if draw(st.booleans(), label="give axis"):
        axis = draw(st.integers(0, r), label="axis")
        attrs["axis"] = axis - r - 1 if v.since_version >= 11 and draw(st.booleans(), label="negative axis") else axis
    return Probe({"indices": idx, "depth": depth_t, "values": values_}, attrs)


@st.composite
def _compress(draw, op, v, t):
    x = _data(draw, t, draw(shapes(1)), label="input")
    r = x.ndim
    attrs = {}
    if draw(st.booleans(), label="give axis"):
        axis = draw(st.integers(0, r - 1), label="axis")
        length = x.shape[axis]
        attrs["axis"] = negative_spelling(draw, axis, r, v.since_version >= 11)
    else:
        length = x.size
    # shorter than the axis ('data slices ... exceeding the condition length are discarded') or as long
    n = draw(st.one_of(st.just(length), st.integers(0, length)), label="condition length")
    cond = np.array([(i * 5) % 3 == 0 for i in range(n)], dtype=bool)
    if n:
        for i, value in draw(st.lists(st.tuples(st.integers(0, n - 1), st.booleans()), max_size=common.MAX_OVERLAY),
                             label="drawn conditions"):
            cond[i] = value
    return Probe({"input": x, "condition": cond}, attrs)


@st.composite
def _arg(draw, op, v, t):
    role = draw(st.sampled_from(["distinct", "tied"]), label="data")
    x = _data(draw, t, draw(shapes(1)), role=role)
    r = x.ndim
    attrs = {}
    if draw(st.booleans(), label="give axis"):
        attrs["axis"] = negative_spelling(draw, draw(st.integers(0, r - 1), label="axis"), r, v.since_version >= 11)
    if draw(st.booleans(), label="give keepdims"):
        attrs["keepdims"] = draw(st.sampled_from([0, 1]), label="keepdims")
    if v.has_attribute("select_last_index") and draw(st.booleans(), label="give select_last_index"):
        attrs["select_last_index"] = draw(st.sampled_from([1, 0]), label="select_last_index")
    return Probe({"data": x}, attrs)


@st.composite
def _top_k(draw, op, v, t):
    role = draw(st.sampled_from(["distinct", "tied"]), label="data")
    shape = list(draw(shapes(1)))
    axis = draw(st.integers(0, len(shape) - 1), label="axis")
    shape[axis] = shape[axis] or 1  # k is at least 1 ('K: ... a single positive value') and at most the axis' length
    x = _data(draw, t, shape, label="X", role=role)
    r, s = x.ndim, x.shape[axis]
    k = draw(st.one_of(st.sampled_from([1, s]), st.integers(1, s)), label="k")
    attrs = {}
    if axis != r - 1 or draw(st.booleans(), label="give axis"):
        attrs["axis"] = negative_spelling(draw, axis, r, v.since_version >= 11)
    if v.has_attribute("largest") and draw(st.booleans(), label="give largest"):
        attrs["largest"] = draw(st.sampled_from([0, 1]), label="largest")
    if v.has_attribute("sorted") and k <= 1 and draw(st.booleans(), label="give sorted"):
        attrs["sorted"] = draw(st.sampled_from([0, 1]), label="sorted")  # 'If "sorted" is 0' with k > 1: undefined
    inputs = {"X": x}
    if v.has_input("K"):
        inputs["K"] = np.array([k], dtype=np.int64)
    else:
        attrs["k"] = k
    return Probe(inputs, attrs, outputs=["Values", "Indices"])


@st.composite
def _non_zero(draw, op, v, t):
    shape = draw(shapes(0), label="X shape")
    role = draw(st.sampled_from(["tied", "distinct"]), label="data")  # tied: 0, 1, 2 (a third of them zero)
    if t.dtype == "string":
        role = "distinct"
    return Probe({"X": _data(draw, t, shape, label="X", role=role)})


@st.composite
def _tensor_scatter(draw, op, v, t):
    """past_cache (batch, ..., max_sequence_length, ...), update of sequence_length <= max along axis (not 0)."""
    r = draw(st.integers(2, 5), label="rank")
    axis = draw(st.integers(1, r - 1), label="axis")
    shape = list(draw(shapes(r, r, 512), label="past_cache shape"))
    max_len = shape[axis]
    seq = draw(st.integers(0, max_len), label="sequence_length")
    update_shape = shape[:axis] + [seq] + shape[axis + 1:]
    past = _data(draw, t, shape, label="past_cache")
    update = draw(tensors(t.dtype, tuple(update_shape), operand=1), label="update")
    attrs = {}
    mode = draw(st.sampled_from(["linear", "circular"]), label="mode")
    if mode != "linear" or draw(st.booleans(), label="give mode"):
        attrs["mode"] = mode
    if axis != r - 2 or draw(st.booleans(), label="give axis"):
        attrs["axis"] = axis - r if draw(st.booleans(), label="negative axis") else axis
    inputs = {"past_cache": past, "update": update}
    if draw(st.booleans(), label="give write_indices"):
        top = max_len - seq if mode == "linear" else 2 * max_len + 1
        inputs["write_indices"] = np.array([draw(st.integers(0, max(top, 0)), label="write index")
                                            for _ in range(shape[0])], dtype=np.int64)
    return Probe(inputs, attrs)


@st.composite
def _unique(draw, op, v, t):
    shape = draw(shapes(1, 4, 1024), label="X shape")
    many = draw(st.booleans(), label="many distinct")
    x = _data(draw, t, shape, label="X", role="distinct" if many or t.dtype == "string" else "tied")
    attrs = {}
    if draw(st.booleans(), label="give axis"):
        attrs["axis"] = negative_spelling(draw, draw(st.integers(0, x.ndim - 1), label="axis"), x.ndim)
    if draw(st.booleans(), label="give sorted"):
        attrs["sorted"] = draw(st.sampled_from([0, 1]), label="sorted")
    return Probe({"X": x}, attrs, outputs=["Y", "indices", "inverse_indices", "counts"])
