"""run-conformance --list-backends: every backend by name (built in, or by entry point), whether it is installed, and what installs it, without importing any.

A built-in adapter whose name is one of the project's extras (pyproject.toml's optional-dependencies:
`openvino = ["openvino==2026.4.1"]`) needs that extra; one with no extra runs on the core install.
Installed means every requirement of its extra is, at a version the extra allows. An entry point's
backend comes with its own distribution.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import re
from pathlib import Path
from typing import NamedTuple

from onnx_conformance.harness.backends import registry

PROJECT = "onnx-conformance"
_EXTRA = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


class Backend(NamedTuple):
    name: str
    source: str  # "built-in", or "entry point <module:attr>"
    installed: bool
    why: str  # what is missing, or a remark ("shadowed by the built-in")
    install: str  # what installs it: "core install", `pip install "onnx-conformance[openvino]"`, `pip install <dist>`
    about: str  # the adapter module's one-line purpose


def backends() -> list[Backend]:
    """The built-in adapters in name order, then the entry points (one a built-in's name shadows says so)."""
    extras = project_extras()
    out = []
    builtin = registry.builtin_names()
    for name in builtin:
        requirements = extras.get(name)
        if requirements is None:
            out.append(Backend(name, "built-in", True, "", "core install", _about(name)))
            continue
        missing = [why for why in map(_unmet, requirements) if why]
        out.append(Backend(name, "built-in", not missing, "; ".join(missing),
                           f'pip install "{PROJECT}[{name}]"', _about(name)))
    for entry in sorted(importlib.metadata.entry_points(group=registry.ENTRY_POINT_GROUP), key=lambda e: e.name):
        dist = getattr(entry, "dist", None)
        dist_name = dist.metadata["Name"] if dist is not None else None
        module = entry.value.split(":", 1)[0].strip()
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        why = "" if found else f"module {module!r} is not importable"
        if entry.name in builtin:
            why = "; ".join(filter(None, [why, f"shadowed: --backend {entry.name} is the built-in"]))
        source = f"entry point {entry.value}" + (f" ({dist_name} {dist.version})" if dist_name else "")
        out.append(Backend(entry.name, source, found, why, f"pip install {dist_name}" if dist_name else "", ""))
    return out


def project_extras() -> dict[str, list[str]]:
    """Each extra of this project and its requirements: from the installed distribution's metadata, else
    (run from a checkout that was never installed) from pyproject.toml beside the package."""
    try:
        requires = importlib.metadata.distribution(PROJECT).requires or []
    except importlib.metadata.PackageNotFoundError:
        return _pyproject_extras()
    extras: dict[str, list[str]] = {}
    for line in requires:
        m = _EXTRA.search(line)
        if m:
            extras.setdefault(m.group(1), []).append(line.split(";", 1)[0].strip())
    return extras


def _pyproject_extras() -> dict[str, list[str]]:
    path = Path(__file__).resolve().parent.parent / "pyproject.toml"
    try:
        import tomllib
    except ImportError:  # Python 3.10: no reader in the standard library; nothing known
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: list(v) for k, v in data.get("project", {}).get("optional-dependencies", {}).items()}


def _unmet(requirement: str) -> str | None:
    """Why a requirement ('openvino==2026.4.1', 'onnx-conformance[iree]') is not met, or None."""
    try:
        from packaging.requirements import Requirement
    except ImportError:  # pytest brings packaging; without it, only whether the distribution is there
        Requirement = None
    name = re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0]
    if name.replace("_", "-").lower() == PROJECT:
        return None  # an extra made of others (all-backends): they are listed themselves
    try:
        version = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return f"{name} is not installed"
    if Requirement is not None:
        spec = Requirement(requirement).specifier
        if spec and not spec.contains(version, prereleases=True):
            return f"{name} {version} is installed, the extra wants {name}{spec}"
    return None


def _about(name: str) -> str:
    """The adapter module's docstring, first line, read without importing it."""
    import onnx_conformance.harness.backends as package

    try:
        tree = ast.parse((Path(package.__path__[0]) / f"{name}.py").read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return ""
    doc = ast.get_docstring(tree) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def lines() -> list[str]:
    rows = backends()
    head = ("BACKEND", "FROM", "INSTALLED", "INSTALLED WITH")
    table = [head] + [(b.name, b.source, "yes" if b.installed else "no", b.install) for b in rows]
    widths = [max(len(r[i]) for r in table) for i in range(3)]
    out = []
    for k, row in enumerate(table):
        out.append("  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths)) + "  " + row[3])
        if k == 0:
            continue
        b = rows[k - 1]
        for note in filter(None, [b.why, b.about]):
            out.append(" " * (widths[0] + 2) + note)
    out.append(f"Third-party adapters register in entry-point group {registry.ENTRY_POINT_GROUP!r}; a module holding "
               "an Adapter subclass or the onnx Backend API also runs by its dotted path (--backend pkg.mod:Class).")
    return out


def main() -> int:
    for line in lines():
        print(line)
    return 0
