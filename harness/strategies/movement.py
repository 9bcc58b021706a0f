"""Data movement: Transpose, Concat, Split and Slice over every type their versions allow, with distinct values so a misplaced element shows.

Each operator adds only its constraints, read from its version: axes negative from version 11
('Accepted range is [-r, r-1]'), Split's lengths as an attribute before 13 and an input from 13,
equal parts by the outputs' count before 18 and `num_outputs` from 18 ('Either input 'split' or
the attribute 'num_outputs' should be specified, but not both'), Slice's bounds as attributes in
version 1 and as inputs of type Tind from 10, with steps from 10.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators.slice_family import variadic
from onnx_conformance.harness.strategies import common
from onnx_conformance.harness.strategies.common import (
    MAX_RANK,
    Family,
    Probe,
    dims,
    elements_of,
    shapes,
    tensors,
)

MAX_CONCAT = 8  # inputs
MAX_SPLIT = 12  # outputs


class Movement(Family):
    name = "data movement"
    operators = ("Transpose", "Concat", "Split", "Slice")

    def strategy(self, op, v, t):
        return {"Transpose": _transpose, "Concat": _concat, "Split": _split, "Slice": _slice}[op.name](op, v, t)


def _axis(draw, v, r: int, axis: int) -> int:
    """axis, or its negative spelling where the version accepts one ('Accepted range is [-r, r-1]', 11 on)."""
    return axis - r if v.since_version >= 11 and draw(st.booleans(), label="negative axis") else axis


@st.composite
def _transpose(draw, op, v, t):
    x = draw(tensors(t.dtype, draw(shapes(0))), label="data")
    attrs = {}
    if x.ndim and draw(st.booleans(), label="give perm"):
        attrs["perm"] = list(draw(st.permutations(range(x.ndim)), label="perm"))
    return Probe({"data": x}, attrs)


@st.composite
def _concat(draw, op, v, t):
    count = draw(st.integers(1, MAX_CONCAT), label="inputs")
    limit = max(1, common.MAX_ELEMENTS // count)
    shape = list(draw(shapes(1, MAX_RANK, limit)))
    r = len(shape)
    axis = draw(st.integers(0, r - 1), label="axis")
    room = max(1, limit // max(1, elements_of([d for i, d in enumerate(shape) if i != axis and d])))
    xs = []
    for k in range(count):
        own = list(shape)
        own[axis] = draw(dims(room), label=f"inputs_{k} axis dim")
        xs.append(draw(tensors(t.dtype, tuple(own), operand=k), label=f"inputs_{k}"))
    return Probe(variadic("inputs", xs), {"axis": _axis(draw, v, r, axis)})


@st.composite
def _split(draw, op, v, t):
    from onnx_conformance.generators.ops.split import names

    count = draw(st.integers(1, MAX_SPLIT), label="outputs")
    modes = ["lengths"] + (["num_outputs"] if v.has_attribute("num_outputs") else ["equal"])
    mode = draw(st.sampled_from(modes), label="split by")
    lengths = None
    if mode == "lengths":
        lengths = [draw(dims(64), label=f"length {k}") for k in range(count)]
        dim = sum(lengths)
    elif mode == "equal":
        dim = count * draw(dims(max(1, common.MAX_ELEMENTS // count)), label="part")
    else:
        dim = draw(dims(), label="dim")
    rest = list(draw(shapes(0, MAX_RANK - 1, max(1, common.MAX_ELEMENTS // max(dim, 1)))))
    axis = draw(st.integers(0, len(rest)), label="axis")
    shape = tuple(rest[:axis] + [dim] + rest[axis:])
    x = draw(tensors(t.dtype, shape), label="input")
    inputs, attrs = {"input": x}, {"axis": _axis(draw, v, len(shape), axis)}
    if lengths is not None:
        if v.since_version >= 13:
            inputs["split"] = np.array(lengths, dtype=np.int64)
        else:
            attrs["split"] = lengths
    elif mode == "num_outputs":
        attrs["num_outputs"] = count
    return Probe(inputs, attrs, outputs=names(count))


def _bound(draw, d: int, extremes: tuple[int, int], label: str) -> int:
    """A start or an end: anywhere from past the front to past the back, or the index type's extremes
    (how a model says 'to the end')."""
    return draw(st.one_of(st.integers(-d - 2, d + 2), st.sampled_from(extremes)), label=label)


@st.composite
def _slice(draw, op, v, t):
    from onnx_conformance.generators.movement import indices

    x = draw(tensors(t.dtype, draw(shapes(1))), label="data")
    r = x.ndim
    axes = draw(st.lists(st.integers(0, r - 1), min_size=1, max_size=r, unique=True), label="axes")
    give_axes = axes != list(range(len(axes))) or draw(st.booleans(), label="give axes")
    spelled = [_axis(draw, v, r, a) for a in axes] if give_axes else None
    as_inputs = v.has_input("starts")
    info = np.iinfo(t.np("Tind") if as_inputs else np.int64)
    extremes = (int(info.max), int(info.min))
    starts = [_bound(draw, x.shape[a], extremes, f"start {a}") for a in axes]
    ends = [_bound(draw, x.shape[a], extremes, f"end {a}") for a in axes]
    steps = None
    if v.has_input("steps") and draw(st.booleans(), label="give steps"):
        steps = [draw(st.one_of(st.sampled_from([1, -1, 2, -2, 3]),
                                st.integers(-x.shape[a] - 2, x.shape[a] + 2).filter(bool)), label=f"step {a}")
                 for a in axes]
    if not as_inputs:
        attrs = {"starts": starts, "ends": ends, **({"axes": spelled} if spelled is not None else {})}
        return Probe({"data": x}, attrs)
    tind = t["Tind"]
    inputs = {"data": x, "starts": indices(starts, tind), "ends": indices(ends, tind),
              "axes": None if spelled is None else indices(spelled, tind),
              "steps": None if steps is None else indices(steps, tind)}
    if steps is None:
        del inputs["steps"]
        if spelled is None:
            del inputs["axes"]
    return Probe(inputs, {})
