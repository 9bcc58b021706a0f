"""Sequences and optionals: SequenceConstruct, SequenceAt, SequenceEmpty, SequenceErase, SequenceInsert, SequenceLength, SplitToSequence, ConcatFromSequence, SequenceMap, Optional, OptionalGetElement and OptionalHasElement, with positions at both ends and negative, empty sequences and optionals.

A sequence holds 0 to 6 tensors of one element type, each of its own rank (0 to 4) and shape, the
whole at most SEQUENCE_ELEMENTS elements; positions run over the range the spec accepts ('[-n, n-1]',
SequenceInsert's '[-n, n]'). The element type of a sequence is the binding's, whose sequence and tensor
types agree (bindings.ties: T is drawn as S's element, O's content as V); a binding given whose types
disagree (S = seq(tensor(float)) with T = int8, one of the corpus's) makes no model and is discarded.
SequenceMap's body is a template of one drawn operator per output (Identity, Shape or Size: every
tensor type has them) over the current samples and the additional inputs.
"""

from __future__ import annotations

import re

import numpy as np
from hypothesis import strategies as st
from onnx import helper

from onnx_conformance.generators.case import Opt, Seq
from onnx_conformance.generators.slice_family import variadic
from onnx_conformance.harness.dtypes import elem_type_of
from onnx_conformance.harness.strategies.bindings import content
from onnx_conformance.harness.strategies.common import Discard, Family, Probe, dims, elements_of, shapes, tensors

SEQUENCE_ELEMENTS = 1024  # elements of all a sequence's tensors together, at most
MAX_ITEMS = 6


def element_of(type_name: str) -> str | None:
    """'seq(tensor(int8))' -> 'int8'; 'optional(tensor(int8))' -> 'int8'; 'optional(seq(...))' and tensors: None."""
    m = re.fullmatch(r"(?:seq|optional)\(tensor\((.*)\)\)", type_name)
    return m.group(1) if m else None


@st.composite
def sequence_of(draw, elem: str, min_items: int = 0, limit: int = SEQUENCE_ELEMENTS, same_shape=None):
    """A Seq of min_items..MAX_ITEMS tensors of `elem`, each of its own shape (or `same_shape`)."""
    n = draw(st.integers(min_items, MAX_ITEMS), label="items")
    items, room = [], limit
    for k in range(n):
        shape = same_shape if same_shape is not None else draw(shapes(0, 4, max(1, room)), label="item shape")
        room = max(1, room - elements_of(shape))
        items.append(draw(tensors(elem, tuple(shape), operand=k), label=f"item {k}"))
    return Seq(items, elem)


@st.composite
def value_of(draw, type_name: str, empty_ok: bool = True, limit: int = SEQUENCE_ELEMENTS):
    """A value of any type the spec spells: a tensor (rank 0 to 4, zero-sized too), a sequence, or an
    optional (empty where `empty_ok`)."""
    if type_name.startswith("optional("):
        inner = content(type_name)
        if empty_ok and draw(st.booleans(), label="empty optional"):
            return Opt(None, inner)
        return Opt(draw(value_of(inner, empty_ok, limit), label="content"), inner)
    if type_name.startswith("seq("):
        return draw(sequence_of(element_of(type_name), 0, limit), label="sequence")
    return draw(tensors(type_name, draw(shapes(0, 4, limit), label="shape")), label="tensor")


def _position(draw, n: int, type_name: str, end: bool = False) -> np.ndarray:
    """A scalar position in [-n, n-1] (or [-n, n] where `end`), its ends first."""
    high = n if end else n - 1
    k = draw(st.one_of(st.sampled_from(sorted({0, -n, high, -1 if n else 0})), st.integers(-n, high)), label="position")
    return np.array(k, dtype=np.dtype(type_name))


class Sequences(Family):
    name = "sequences and optionals"
    operators = ("SequenceConstruct", "SequenceAt", "SequenceEmpty", "SequenceErase", "SequenceInsert",
                 "SequenceLength", "SplitToSequence", "ConcatFromSequence", "SequenceMap", "Optional",
                 "OptionalGetElement", "OptionalHasElement")

    def strategy(self, op, v, t):
        why = _unpaired(op, t)
        if why:  # bindings.bindings ties them; a binding from elsewhere (the corpus's list) may not: a quick discard
            return st.just(Probe({}, extra={"unpaired": why}))
        return {"SequenceConstruct": _construct, "SequenceAt": _at, "SequenceEmpty": _empty, "SequenceErase": _erase,
                "SequenceInsert": _insert, "SequenceLength": _length, "SplitToSequence": _split,
                "ConcatFromSequence": _concat, "SequenceMap": _map, "Optional": _optional,
                "OptionalGetElement": _get_element, "OptionalHasElement": _has_element}[op.name](op, v, t)

    def case(self, op, v, t, probe):
        if "unpaired" in probe.extra:
            raise Discard(probe.extra["unpaired"])
        # exact: these operators move values, and every example of theirs is compared exactly (no example is
        # built for a tolerance, which cost more than the draw in each of their many bindings)
        return op.expect(v, probe.inputs, probe.attrs, outputs=probe.outputs)


def _unpaired(op, t) -> str | None:
    """Why the binding makes no model: the sequence's (or optional's) element type is not the tensor's."""
    if op.name == "Optional":
        return None if t["O"] == f"optional({_spelled(t['V'])})" else "O is the optional of V: it holds the input's type"
    if op.name == "OptionalGetElement":
        return None if content(t["O"]) == t["V"] else "V is the type O holds: the output is the optional's content"
    if "S" in t and "T" in t and element_of(t["S"]) != t["T"]:
        return "S is the sequence of T's tensors: they share one element type"
    return None


def _spelled(type_name: str) -> str:
    return type_name if "(" in type_name else f"tensor({type_name})"


@st.composite
def _construct(draw, op, v, t):
    s = draw(sequence_of(t["T"], 1), label="inputs")
    return Probe(variadic("inputs", s.items))


@st.composite
def _at(draw, op, v, t):
    s = draw(sequence_of(t["T"], 1), label="input_sequence")
    return Probe({"input_sequence": s, "position": _position(draw, len(s.items), t["I"])})


@st.composite
def _empty(draw, op, v, t):
    elem = element_of(t["S"])
    if elem == "float" and draw(st.booleans(), label="dtype left out"):
        return Probe({})
    return Probe({}, {"dtype": elem_type_of(elem)})


@st.composite
def _erase(draw, op, v, t):
    s = draw(sequence_of(element_of(t["S"]), 1), label="input_sequence")
    position = _position(draw, len(s.items), t["I"]) if draw(st.booleans(), label="give position") else None
    return Probe({"input_sequence": s, "position": position})


@st.composite
def _insert(draw, op, v, t):
    s = draw(sequence_of(t["T"]), label="input_sequence")
    x = draw(tensors(t["T"], draw(shapes(0, 4, 256), label="tensor shape"), operand=7), label="tensor")
    position = _position(draw, len(s.items), t["I"], end=True) if draw(st.booleans(), label="give position") else None
    return Probe({"input_sequence": s, "tensor": x, "position": position})


@st.composite
def _length(draw, op, v, t):
    return Probe({"input_sequence": draw(sequence_of(element_of(t["S"])), label="input_sequence")})


@st.composite
def _split(draw, op, v, t):
    shape = draw(shapes(1, 4, SEQUENCE_ELEMENTS), label="input shape")
    x = draw(tensors(t["T"], shape), label="input")
    r = len(shape)
    axis = draw(st.integers(-r, r - 1), label="axis")
    n = shape[axis]
    attrs = {"axis": axis} if axis or draw(st.booleans(), label="give axis") else {}
    form = draw(st.sampled_from(["none", "scalar", "list"]), label="split")
    split = None
    if form == "scalar":  # 'chunks all of size split'; the last may be shorter, or the one chunk longer than the axis
        split = np.array(draw(st.one_of(st.integers(1, max(1, n) + 1), dims(max(1, n))).filter(bool), label="chunk"))
    elif form == "list":  # lengths summing to the axis, zeros allowed ('All values must be >= 0')
        cuts = sorted(draw(st.lists(st.integers(0, n), max_size=6), label="cuts"))
        bounds = [0, *cuts, n]
        split = np.array([b - a for a, b in zip(bounds, bounds[1:])])
    if split is not None:
        split = split.astype(np.dtype(t["I"]))
    if draw(st.booleans(), label="give keepdims"):  # ignored where split is given
        attrs["keepdims"] = draw(st.sampled_from([0, 1]), label="keepdims")
    return Probe({"input": x, "split": split}, attrs)


@st.composite
def _concat(draw, op, v, t):
    new_axis = draw(st.sampled_from([0, 1]), label="new_axis")
    r = draw(st.integers(0 if new_axis else 1, 4), label="rank")
    base = list(draw(shapes(r, r, 256), label="shape"))
    axis = draw(st.integers(-r - new_axis, r - 1 + new_axis), label="axis")
    n = draw(st.integers(1, MAX_ITEMS), label="items")
    items = []
    for k in range(n):
        shape = list(base)
        if not new_axis:  # the tensors differ along the axis only
            shape[axis] = draw(dims(64), label="length along axis")
        items.append(draw(tensors(t["T"], tuple(shape), operand=k), label=f"item {k}"))
    attrs = {"axis": axis}
    if new_axis or draw(st.booleans(), label="give new_axis"):
        attrs["new_axis"] = new_axis
    return Probe({"input_sequence": Seq(items, t["T"])}, attrs)


BODY_OPS = ("Identity", "Shape", "Size")  # every tensor type has them


@st.composite
def _map(draw, op, v, t):
    elem = element_of(t["S"])
    s = draw(sequence_of(elem), label="input_sequence")
    extras = []
    for k in range(draw(st.integers(0, 2), label="additional inputs")):
        if draw(st.booleans(), label="additional sequence"):  # 'the same number of samples'
            extras.append(Seq([draw(tensors(elem, draw(shapes(0, 3, 64)), operand=k + 1)) for _ in s.items], elem))
        else:
            extras.append(draw(tensors(elem, draw(shapes(0, 3, 64)), operand=k + 1), label="additional tensor"))
    names = ["x"] + [f"extra_{k}" for k in range(len(extras))]
    nodes, outputs = [], []
    for k in range(draw(st.integers(1, 3), label="body outputs")):
        body_op = draw(st.sampled_from(BODY_OPS), label="body operator")
        source = draw(st.sampled_from(names), label="body operand")
        nodes.append(helper.make_node(body_op, [source], [f"y_{k}"]))
        outputs.append((f"y_{k}", elem if body_op == "Identity" else "int64"))
    from onnx_conformance.generators import subgraph

    body = subgraph.graph("body", nodes, [(n, elem) for n in names], outputs)
    inputs = {"input_sequence": s, **variadic("additional_inputs", extras)}
    names = ["out_sequence"] + [f"out_sequence_{k}" for k in range(1, len(outputs))]
    return Probe(inputs, {"body": body}, outputs=names)


@st.composite
def _optional(draw, op, v, t):
    if draw(st.booleans(), label="empty"):  # 'an empty optional-type ... of the given type' in `type`
        from onnx_conformance.generators import subgraph

        return Probe({"input": None}, {"type": subgraph.type_proto(_spelled(t["V"]))})
    return Probe({"input": draw(value_of(t["V"]), label="input")})


@st.composite
def _get_element(draw, op, v, t):
    x = draw(value_of(t["O"], empty_ok=False), label="input")  # an empty one: 'the behavior is undefined'
    return Probe({"input": x})


@st.composite
def _has_element(draw, op, v, t):
    if v.since_version >= 18 and draw(st.integers(0, 5), label="input left out") == 0:
        return Probe({"input": None})
    return Probe({"input": draw(value_of(t["O"]), label="input")})
