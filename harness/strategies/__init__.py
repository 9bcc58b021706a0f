"""Hypothesis strategies for explore-cases, one module per operator family: what a drawn node of each operator version looks like.

A family (common.Family) says which operator versions it draws, draws a node in a type binding
(its inputs, attributes and output names) and finishes it into a Case whose expected outputs are
the operator's semantics. Adding a family is one module here and one line below.
"""

from __future__ import annotations

from onnx_conformance.harness.strategies.common import Family
from onnx_conformance.harness.strategies.elementwise import Elementwise
from onnx_conformance.harness.strategies.movement import Movement
from onnx_conformance.harness.strategies.reduce import Reduce

FAMILIES: tuple[Family, ...] = (Elementwise(), Reduce(), Movement())


def family_of(op, v) -> tuple[Family | None, str | None]:
    """The family that draws this operator version, or None and why none does."""
    reasons = []
    for family in FAMILIES:
        why = family.covers(op, v)
        if why is None:
            return family, None
        if op.name in family.operators:
            reasons.append(why)
    return None, (reasons[0] if reasons else "no strategy for it yet")


def covered() -> dict[str, tuple[str, ...]]:
    """Each family's name and the operators it has strategies for."""
    return {family.name: tuple(sorted(family.operators)) for family in FAMILIES}
