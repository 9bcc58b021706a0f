"""Mutants: onnx's reference operators, each with one realistic bug, one module per operator family.

A family module (this package's modules not starting with "_") names its family as harness/families.py
does (`FAMILY`) and lists its mutants (`MUTANTS`); adding a family is adding one module. The mutant
backend (harness/backends/mutant.py) runs one of them; bench/mutation_score.py scores the corpus
against all of them (issue 31).
"""

from __future__ import annotations

import importlib
import pkgutil

from onnx_conformance.harness.mutants._shared import CLASSES, Call, Mutant  # noqa: F401


def family_modules() -> list:
    """Each family module, in name order."""
    return [importlib.import_module(f"{__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)
            if not info.name.startswith("_")]


def families() -> dict[str, list[Mutant]]:
    """Family name (harness/families.py's) -> its mutants."""
    return {m.FAMILY: list(m.MUTANTS) for m in family_modules()}


def all_mutants() -> list[Mutant]:
    return [mutant for found in families().values() for mutant in found]


def find(name: str) -> Mutant:
    """The mutant called `name`; a ValueError in one line when there is none."""
    found = {m.name: m for m in all_mutants()}
    if name in found:
        return found[name]
    op = name.split(".")[0]
    same_op = sorted(n for n in found if n.split(".")[0] == op)
    hint = f"; {op}'s: {', '.join(same_op)}" if same_op else f"; {len(found)} mutants, none of {op}"
    raise ValueError(f"no mutant {name!r}{hint}")
