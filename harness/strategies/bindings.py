"""Type bindings for the strategies: one type for each of a version's type parameters, drawn from the
schema's lists (the default type first, float where allowed, so a shrunk find lands there), with the
parameters one another binds (a sequence's element, an optional's content) drawn together."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import strategies as st

from onnx_conformance.generators.case import Types
from onnx_conformance.generators.spec import OpVersion, type_name


def preferred(allowed: tuple[str, ...], first: str | None) -> list[str]:
    """allowed, `first` (else float) moved to the front: a shrunk find lands in the most common type."""
    lead = first if first in allowed else ("float" if "float" in allowed else None)
    return ([lead] if lead else []) + [a for a in allowed if a != lead]


def content(type_name: str) -> str:
    """What an optional type holds, as Opt spells it: 'optional(tensor(int8))' -> 'int8'; 'optional(seq(tensor(int8)))'
    -> 'seq(tensor(int8))'; any other type is its own content."""
    if not type_name.startswith("optional("):
        return type_name
    inner = type_name[len("optional("):-1]
    return inner[len("tensor("):-1] if inner.startswith("tensor(") else inner


def element(type_name: str) -> str:
    """What a sequence's tensors hold: 'seq(tensor(int8))' -> 'int8'; any other type is its own element."""
    m = re.fullmatch(r"seq\(tensor\((.*)\)\)", type_name)
    return m.group(1) if m else type_name


def ties(v: OpVersion) -> dict[str, tuple[str, Any]]:
    """The type parameters another one binds: {Q: (P, unwrap)}, Q's type always unwrap(P's). The schema lists
    each parameter's types apart; where Q's list is exactly what P's types hold (SequenceInsert's T: the
    elements of its S's sequences; Optional's V: what its O holds; OptionalGetElement-18's V: what O holds,
    or O itself where O is no optional), onnx's type inference accepts only the pairs that agree. Drawn
    apart, 66 to 90% of those operators' bindings made no model (issue 30)."""
    params = v.type_params
    out = {}
    for p, allowed in params.items():
        for unwrap in (content, element):
            if all(unwrap(x) == x for x in allowed):  # P holds nothing: equal lists of tensor types tie nothing
                continue
            for q in params:
                if q != p and q not in out and {unwrap(x) for x in allowed} == set(params[q]):
                    out[q] = (p, unwrap)
    return out


@st.composite
def _bindings(draw, op, v: OpVersion, tied: dict):
    """A binding of every type parameter of v, each drawn from all the types its constraint allows that
    agree with the parameters bound before it (`tied`, see ties); the rest are independent in the schema:
    every combination is a valid model."""
    params = v.type_params
    if not params:  # the schema names its types directly: the operator's one binding (NonMaxSuppression's boxes)
        return op.bindings(v)[0]
    primary = op.primary_param(v)
    binding, defaults = {}, {}
    for p in [primary] + [p for p in params if p != primary]:
        defaults[p] = None if p == primary else op.default_type(v, p, defaults)
        binding[p] = draw(st.sampled_from(preferred(_agreeing(p, params[p], binding, tied), defaults[p])), label=p)
        if p == primary:
            defaults[p] = binding[p]
    suffix = tuple(binding[p] for p in params if p != primary and binding[p] != defaults[p])
    return Types({p: binding[p] for p in params}, primary, suffix)


def _agreeing(p: str, allowed: tuple[str, ...], binding: dict, tied: dict) -> tuple[str, ...]:
    """p's allowed types that agree with the parameters bound so far (all of them where none is tied to p)."""
    if p in tied and tied[p][0] in binding:  # p holds what its source's type holds: one type
        source, unwrap = tied[p]
        return (unwrap(binding[source]),)
    held = [(q, unwrap) for q, (source, unwrap) in tied.items() if source == p and q in binding]
    return tuple(x for x in allowed if all(unwrap(x) == binding[q] for q, unwrap in held))


_BINDINGS: dict = {}


def bindings(op, v: OpVersion):
    """The strategy of v's type bindings, made once per version (see `cached`)."""
    key = (op.name, op.domain, v.since_version)
    if key not in _BINDINGS:
        _BINDINGS[key] = _bindings(op, v, ties(v))
    return _BINDINGS[key]


def formal_type(v: OpVersion, t: Types, formal) -> str:
    """The element type of a formal input or output: its type parameter's binding, or its literal type."""
    return t[formal.type_str] if formal.type_str in t else type_name(formal.type_str)
