"""The code's shape: no import circles among harness/'s modules, nor among generators/' (lazy imports count
too), and no runner module over 500 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "harness"


def _module_name(path: Path, folder: Path) -> str:
    parts = path.relative_to(folder).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(folder: Path = HARNESS) -> dict[str, set[str]]:
    """module (dotted, relative to the package) -> the package's modules it imports anywhere in it."""
    PACKAGE = f"onnx_conformance.{folder.name}"
    modules = {_module_name(p, folder): p for p in folder.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PACKAGE):
                base = node.module[len(PACKAGE):].lstrip(".")
                for alias in node.names:  # `from package import module` names a module
                    joined = f"{base}.{alias.name}".lstrip(".")
                    found.add(joined if joined in modules else base)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith(PACKAGE + "."):
                        found.add(alias.name[len(PACKAGE) + 1:])
        graph[name] = {m for m in found if m in modules and m != name and m != ""}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


@pytest.mark.parametrize("folder, sample", [
    ("harness", ("verdict", "compare")),
    ("generators", ("exact", "kinds")),
])
def test_no_import_circles(folder, sample):
    graph = import_graph(ROOT / folder)
    assert sample[1] in graph[sample[0]]  # the graph sees imports
    assert cycles(graph) == []


def test_no_harness_module_is_over_500_lines():
    # A module that outgrows this is doing more than one thing: split it by role, as reports.py
    # (matrix*.py), scoreboard_page.py (scoreboard_data.py, scoreboard_script.py) and safety.py were.
    long = {str(p.relative_to(HARNESS)): n for p in HARNESS.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500}
    assert not long, long
