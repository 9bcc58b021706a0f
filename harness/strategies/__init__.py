"""Hypothesis strategies for explore-cases, one module per operator family: what a drawn node of each operator version looks like.

A family (common.Family) says which operator versions it draws, draws a node in a type binding
(its inputs, attributes and output names) and finishes it into a Case whose expected outputs are
the operator's semantics. Adding a family is one module here: every Family subclass a module of this
package defines is found; a module without one (common.py, indices.py, ml_values.py) only holds what
families share.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass

from onnx_conformance.harness.strategies.common import Family


def _families() -> tuple[Family, ...]:
    """One instance of each Family subclass a module of this package defines, in module-name order (a
    subclass naming no operators is a base other families share, not a family)."""
    found = []
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        mod = importlib.import_module(f"{__name__}.{module}")
        found += [cls() for _, cls in sorted(inspect.getmembers(mod, inspect.isclass))
                  if issubclass(cls, Family) and cls.operators and cls.__module__ == mod.__name__]
    return tuple(found)


FAMILIES: tuple[Family, ...] = _families()


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


@dataclass
class Coverage:
    """How many operators and versions (deprecated ones aside) a family draws, and why no family draws the rest."""

    operators: int
    covered_operators: int
    versions: int
    covered_versions: int
    deprecated: int  # versions explore-cases leaves out: onnx's checker refuses every model using one
    missing: list[tuple[str, str]]  # (what, why): `Op` where no version has a strategy, for one reason; else `Op-V`


def coverage() -> Coverage:
    """What `explore-cases --list` counts, over every operator the corpus generates, in name order."""
    from onnx_conformance.generators.ops import all_operators
    from onnx_conformance.generators.spec import versions

    operators = all_operators()
    c = Coverage(len(operators), 0, 0, 0, 0, [])
    for name in sorted(operators):
        op = operators[name]
        chosen = [v for v in versions(name, op.domain) if not v.deprecated]
        c.deprecated += len(versions(name, op.domain)) - len(chosen)
        why = {v.since_version: family_of(op, v)[1] for v in chosen}
        left = {n: w for n, w in why.items() if w is not None}
        c.versions += len(chosen)
        c.covered_versions += len(chosen) - len(left)
        c.covered_operators += len(left) < len(chosen)
        if left and len(left) == len(chosen) and len(set(left.values())) == 1:
            c.missing.append((name, next(iter(left.values()))))
        else:
            c.missing += [(f"{name}-{n}", w) for n, w in left.items()]
    return c
