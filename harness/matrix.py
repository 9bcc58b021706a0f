"""The conformance matrix as data (operator x since_version [x type parameter] rows, a cell per type,
per-family totals, the failing cases, in a fixed order) and the labels its renderings share."""

from __future__ import annotations

from typing import Any

from onnx_conformance.harness import dtypes
from onnx_conformance.harness.families import family_key, family_of
# Worst first: a cell is coloured by the most severe status among its cases.
from onnx_conformance.harness.statuses import FAILING, SEVERITY

NO_DTYPE = "-"


def build_matrix(results: list[dict], run_info: dict) -> dict:
    groups = _grouped_cases(results)
    rows: dict[tuple, dict] = {}
    columns: set[str] = set()
    for (domain, op, form, since, dtype, types, status, at, lowered), n in groups.items():
        for param, cell_type in _cells(dtype, types):
            columns.add(cell_type)
            key = (domain, op, form, since, param)
            row = rows.get(key)
            if row is None:
                row = rows[key] = {"domain": domain, "op": op, "since_version": since, "param": param,
                                   "family": family_of(op, domain, form), "cells": {}}
            cell = row["cells"].setdefault(cell_type, {"counts": {}})
            cell["counts"][status] = cell["counts"].get(status, 0) + n
            if at is not None:
                cell.setdefault("ran_at", set()).add(at)
            if lowered:
                cell["lowered"] = cell.get("lowered", 0) + n
    for row in rows.values():
        # Cells and counts in a fixed order (the spec's types, then severity), whatever order results came in.
        row["cells"] = {c: row["cells"][c] for c in sorted(row["cells"], key=column_key)}
        for cell in row["cells"].values():
            cell["counts"] = {s: cell["counts"][s] for s in sorted(cell["counts"], key=rank)}
            cell["total"] = sum(cell["counts"].values())
            cell["passed"] = cell["counts"].get("pass", 0)
            cell["worst"] = _worst(cell["counts"])
            # which opsets the cell's cases ran at, where any ran below its own (harness/opset_ceiling.py)
            opsets = cell.pop("ran_at", ())
            if cell.get("lowered"):
                cell["ran_at"] = sorted(opsets)
        row["worst"] = _worst({c["worst"]: 1 for c in row["cells"].values()})
    ordered = [rows[k] for k in sorted(rows, key=_row_key)]
    return {
        "format": 1,
        "run": run_info,
        "total": len(results),
        "summary": ranked(_count_by(groups, lambda domain, op, form: None).get(None, {})),
        "columns": sorted(columns, key=column_key),
        "rows": ordered,
        "families": _families(groups, ordered),
        "failures": [
            {k: r.get(k) for k in ("case", "status", "stage", "detail", "op", "since_version", "dtype", "ran_opset")
             if k != "ran_opset" or r.get(k)}
            for r in failing_results(results)
        ],
    }


def _grouped_cases(results: list[dict]) -> dict[tuple, int]:
    """{(domain, op, form, since_version, dtype, the type binding's items, status, the opset it ran at, whether
    below its own): how many cases}: a whole corpus's 86,000 results fall into a few thousand such groups,
    which the matrix is then built from (each case's cells worked out once per group, not once per case)."""
    groups: dict[tuple, int] = {}
    for r in results:
        types = r.get("types")
        lowered = r.get("ran_opset")
        key = (r.get("domain") or "", r.get("op") or "(none)", r.get("form"), r.get("since_version"),
               r.get("dtype") or NO_DTYPE, tuple(types.items()) if types else (), r.get("status") or "error",
               lowered or r.get("opset"), bool(lowered))
        groups[key] = groups.get(key, 0) + 1
    return groups


def _count_by(groups: dict[tuple, int], part) -> dict[Any, dict[str, int]]:
    """{part(domain, op, form): {status: cases}} from _grouped_cases' groups."""
    out: dict[Any, dict[str, int]] = {}
    for (domain, op, form, _, _, _, status, _, _), n in groups.items():
        counts = out.setdefault(part(domain, op, form), {})
        counts[status] = counts.get(status, 0) + n
    return out


def _families(groups: dict[tuple, int], rows: list[dict]) -> list[dict]:
    """Per family, in the report's reading order: its cases by status and its cells all passing / total."""
    by_family = _count_by(groups, lambda domain, op, form: family_of(op, domain, form))
    out = []
    for name in sorted(by_family, key=family_key):
        mine = [row for row in rows if row["family"] == name]
        cells = [c for row in mine for c in row["cells"].values()]
        tally = ranked(by_family[name])
        out.append({
            "family": name,
            "operators": len({(row["domain"], row["op"]) for row in mine}),
            "versions": len({(row["domain"], row["op"], row["since_version"]) for row in mine}),
            "cases": sum(tally.values()),
            "passed": tally.get("pass", 0),
            "summary": tally,
            "cells": len(cells),
            "cells_passing": sum(1 for c in cells if c["worst"] == "pass"),
            "worst": _worst(tally),
            "columns": sorted({c for row in mine for c in row["cells"]}, key=column_key),
        })
    return out


def _cells(dtype: str, types: tuple) -> list[tuple[str | None, str]]:
    """The (type parameter, type) cells a case counts in, from its dtype and its type binding's
    items: the primary parameter (the one bound to the case's dtype) as a row of its own with no
    label, each other parameter as a labelled row."""
    primary = next((p for p, t in types if t == dtype), None)
    return [(None, dtype)] + [(p, t) for p, t in types if p != primary]


def ranked(counts: dict[str, int]) -> dict[str, int]:
    """Status counts in severity order."""
    return {s: counts[s] for s in sorted(counts, key=rank)}


def rank(status: str) -> tuple[int, str]:
    # A status outside the vocabulary is shown first: it means the runner and reports disagree.
    return (SEVERITY.index(status) if status in SEVERITY else -1, status)


def _worst(counts: dict[str, int]) -> str:
    return min(counts, key=rank)


def failing_results(results: list[dict]) -> list[dict]:
    failing = [r for r in results if (r.get("status") or "error") in FAILING or r.get("status") not in SEVERITY]
    return sorted(failing, key=lambda r: (rank(r.get("status") or "error"), str(r.get("case"))))


def grouped_failures(failures: list[dict]) -> list[tuple[dict, int]]:
    """Failures with the same status, stage and reason folded into their first case and a count."""
    groups: dict[tuple, list] = {}
    for r in failures:
        key = (r.get("status"), r.get("stage"), one_line(r.get("detail")))
        groups.setdefault(key, [r, 0])[1] += 1
    return [(r, n) for r, n in groups.values()]


def _row_key(key: tuple) -> tuple:
    domain, op, form, since, param = key
    return (domain, op.lower(), op, form or "", since is None, since or 0, param is not None, param or "")


def column_key(name: str) -> tuple:
    """The spec's own order of element types (TensorProto.DataType), unknown names after."""
    if name == NO_DTYPE:
        return (2, 0, name)
    try:
        return (0, dtypes.elem_type_of(name), name)
    except ValueError:
        return (1, 0, name)


# -- text the renderings share ------------------------------------------------------------------


def one_line(text: Any, limit: int | None = None) -> str:
    line = " ".join(str(text or "").split())
    if limit and len(line) > limit:
        line = line[: limit - 1] + "…"
    return line


def run_facts(run: dict) -> list[tuple[str, str]]:
    """The header lines, from what the runner recorded (missing facts are left out, not invented)."""
    backend = run.get("backend") if isinstance(run.get("backend"), dict) else {"name": run.get("backend")}
    corpus = run.get("corpus") if isinstance(run.get("corpus"), dict) else {}
    options = backend.get("options") or {}
    selection = run.get("selection") if isinstance(run.get("selection"), dict) else {}
    selected, recorded = selection.get("cases"), _recorded(run)
    facts = [
        ("backend", backend.get("name") or backend.get("requested")),
        ("backend version", backend.get("version")),
        ("backend options", " ".join(f"{k}={v}" for k, v in sorted(options.items())) if options else None),
        ("harness version", run.get("harness_version")),
        ("selection", selection_text(selection) if selection else None),
        ("cases", f"{recorded} of the {selected} selected" if selected is not None and recorded is not None else None),
        ("corpus", corpus.get("path")),
        ("corpus index sha256", corpus.get("index_sha256")),
        ("cases in corpus", corpus.get("cases")),
        ("opset ceiling", ceiling_text(run.get("opset"))),
        ("started", run.get("started")),
        ("finished", run.get("finished")),
        ("complete", None if run.get("complete") is None else ("yes" if run.get("complete") else "NO")),
    ]
    return [(k, str(v)) for k, v in facts if v not in (None, "")]


def ceiling_text(opset) -> str | None:
    """run.json's `opset` in words: '26, the backend's maximum; 15279 cases above it ran at it'."""
    if not isinstance(opset, dict) or opset.get("ceiling") is None:
        return None
    ceiling = opset["ceiling"]
    why = f"--opset {ceiling}" if opset.get("requested") == ceiling else "the backend's maximum"
    lowered = opset.get("cases_lowered")
    ran = "" if lowered is None else f"; {plural(lowered, 'case')} above it ran at it"
    return f"{ceiling}, {why}{ran}"


def ran_at_text(cell: dict) -> str | None:
    """The opsets a cell's cases ran at, where any ran below its own opset: 'opset 13, 26'."""
    opsets = cell.get("ran_at")
    return "opset " + ", ".join(map(str, opsets)) if opsets else None


def selection_text(selection: dict) -> str:
    """run.json's `selection` as the options that made it: '--op Abs -k float' ('all' for none)."""
    words = [f"--op {op}" for op in selection.get("op") or ()]
    if selection.get("shard"):
        words.append(f"--shard {selection['shard']}")
    words += [f"{flag} {selection[key]}" for key, flag in (("keyword", "-k"), ("markexpr", "-m")) if selection.get(key)]
    words += ["--lf"] if selection.get("last_failed") else []
    words += [f"--deselect {d}" for d in selection.get("deselect") or ()]
    words += list(selection.get("node_ids") or ())
    return " ".join(words) or "all"


def _recorded(run: dict) -> int | None:
    counts = run.get("counts")
    return sum(n for n in counts.values() if isinstance(n, int)) if isinstance(counts, dict) else None


def incomplete_note(matrix: dict) -> str | None:
    """Complete is relative to what was selected: a run stopped early, or one that recorded fewer cases
    than its selection held."""
    run = matrix["run"]
    if run.get("complete", True):
        return None
    selection = run.get("selection") if isinstance(run.get("selection"), dict) else {}
    corpus = run.get("corpus") if isinstance(run.get("corpus"), dict) else {}
    if selection.get("cases") is not None:
        recorded = f"{matrix['total']} of the {selection['cases']} selected"
    else:
        expected = corpus.get("cases")
        recorded = f"{matrix['total']} of {expected}" if expected else f"{matrix['total']}"
    return f"Incomplete run: {recorded} cases recorded. Cases that did not run appear nowhere below."


def version_label(row: dict) -> str:
    op = f"{row['domain']}.{row['op']}" if row["domain"] else row["op"]
    if row["since_version"] is not None:
        op += f"-{row['since_version']}"
    return f"{op} ({row['param']})" if row.get("param") else op


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
