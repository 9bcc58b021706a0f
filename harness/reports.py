"""Conformance matrices (operator x since_version [x type parameter] by type, grouped by family) as JSON,
Markdown that fits a pull-request comment, and one offline HTML file."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from onnx_conformance.harness import dtypes
from onnx_conformance.harness.families import family_key, family_of
# Worst first: a cell is coloured by the most severe status among its cases.
from onnx_conformance.harness.statuses import COLOUR, FAILING, MARK, SEVERITY

NO_DTYPE = "-"
# GitHub rejects comments over 65,536 characters; counting UTF-8 bytes keeps under that limit however
# the emoji are counted (code points, UTF-16 units or bytes), with a margin.
MARKDOWN_BUDGET = 60_000
MARKDOWN_FAILURES = 50
TERMINAL_FAILURES = 10


def write_matrices(results: list[dict], run_info: dict, report_dir: Path) -> None:
    """matrix.json, matrix.md and matrix.html in `report_dir`; same inputs give the same bytes."""
    report_dir = Path(report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    matrix = build_matrix(results, run_info)
    (report_dir / "matrix.json").write_text(
        json.dumps(matrix, indent=1, sort_keys=True, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
    )
    full = (report_dir / "matrix.html").as_posix()
    (report_dir / "matrix.md").write_text(render_markdown(matrix, full), encoding="utf-8")
    (report_dir / "matrix.html").write_text(render_html(matrix), encoding="utf-8")


def terminal_summary(results: list[dict]) -> list[str]:
    """A count per status, then the first failing cases with their one-line reason."""
    if not results:
        return ["conformance: no results"]
    tally = _tally(results)
    lines = [f"conformance: {_summary_text(tally)} ({len(results)} cases)"]
    groups = _grouped(_failures(results))
    for r, n in groups[:TERMINAL_FAILURES]:
        also = f" (+{n - 1} more with the same reason)" if n > 1 else ""
        lines.append(f"  {r['status']:<7} {r['case']}{_stage(r)}{also}: {_one_line(r.get('detail'), 200)}")
    if len(groups) > TERMINAL_FAILURES:
        rest = sum(n for _, n in groups[TERMINAL_FAILURES:])
        lines.append(f"  ... and {rest} more failing cases (matrix.html lists them all)")
    return lines


# -- the matrix as data -------------------------------------------------------------------------


def build_matrix(results: list[dict], run_info: dict) -> dict:
    groups = _grouped_cases(results)
    rows: dict[tuple, dict] = {}
    columns: set[str] = set()
    for (domain, op, since, dtype, types, status), n in groups.items():
        for param, cell_type in _cells(dtype, types):
            columns.add(cell_type)
            key = (domain, op, since, param)
            row = rows.get(key)
            if row is None:
                row = rows[key] = {"domain": domain, "op": op, "since_version": since, "param": param,
                                   "family": family_of(op, domain), "cells": {}}
            cell = row["cells"].setdefault(cell_type, {"counts": {}})
            cell["counts"][status] = cell["counts"].get(status, 0) + n
    for row in rows.values():
        # Cells and counts in a fixed order (the spec's types, then severity), whatever order results came in.
        row["cells"] = {c: row["cells"][c] for c in sorted(row["cells"], key=_column_key)}
        for cell in row["cells"].values():
            cell["counts"] = {s: cell["counts"][s] for s in sorted(cell["counts"], key=_rank)}
            cell["total"] = sum(cell["counts"].values())
            cell["passed"] = cell["counts"].get("pass", 0)
            cell["worst"] = _worst(cell["counts"])
        row["worst"] = _worst({c["worst"]: 1 for c in row["cells"].values()})
    ordered = [rows[k] for k in sorted(rows, key=_row_key)]
    return {
        "format": 1,
        "run": run_info,
        "total": len(results),
        "summary": _ranked(_count_by(groups, lambda domain, op: None).get(None, {})),
        "columns": sorted(columns, key=_column_key),
        "rows": ordered,
        "families": _families(groups, ordered),
        "failures": [
            {k: r.get(k) for k in ("case", "status", "stage", "detail", "op", "since_version", "dtype")}
            for r in _failures(results)
        ],
    }


def _grouped_cases(results: list[dict]) -> dict[tuple, int]:
    """{(domain, op, since_version, dtype, the type binding's items, status): how many cases}: a
    whole corpus's 86,000 results fall into a few thousand such groups, which the matrix is then
    built from (each case's cells worked out once per group, not once per case)."""
    groups: dict[tuple, int] = {}
    for r in results:
        types = r.get("types")
        key = (r.get("domain") or "", r.get("op") or "(none)", r.get("since_version"),
               r.get("dtype") or NO_DTYPE, tuple(types.items()) if types else (), r.get("status") or "error")
        groups[key] = groups.get(key, 0) + 1
    return groups


def _count_by(groups: dict[tuple, int], part) -> dict[Any, dict[str, int]]:
    """{part(domain, op): {status: cases}} from _grouped_cases' groups."""
    out: dict[Any, dict[str, int]] = {}
    for (domain, op, _, _, _, status), n in groups.items():
        counts = out.setdefault(part(domain, op), {})
        counts[status] = counts.get(status, 0) + n
    return out


def _families(groups: dict[tuple, int], rows: list[dict]) -> list[dict]:
    """Per family, in the report's reading order: its cases by status and its cells all passing / total."""
    by_family = _count_by(groups, lambda domain, op: family_of(op, domain))
    out = []
    for name in sorted(by_family, key=family_key):
        mine = [row for row in rows if row["family"] == name]
        cells = [c for row in mine for c in row["cells"].values()]
        tally = _ranked(by_family[name])
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
            "columns": sorted({c for row in mine for c in row["cells"]}, key=_column_key),
        })
    return out


def _cells(dtype: str, types: tuple) -> list[tuple[str | None, str]]:
    """The (type parameter, type) cells a case counts in, from its dtype and its type binding's
    items: the primary parameter (the one bound to the case's dtype) as a row of its own with no
    label, each other parameter as a labelled row."""
    primary = next((p for p, t in types if t == dtype), None)
    return [(None, dtype)] + [(p, t) for p, t in types if p != primary]


def _tally(results: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in results:
        status = r.get("status") or "error"
        counts[status] = counts.get(status, 0) + 1
    return _ranked(counts)


def _ranked(counts: dict[str, int]) -> dict[str, int]:
    """Status counts in severity order."""
    return {s: counts[s] for s in sorted(counts, key=_rank)}


def _rank(status: str) -> tuple[int, str]:
    # A status outside the vocabulary is shown first: it means the runner and reports disagree.
    return (SEVERITY.index(status) if status in SEVERITY else -1, status)


def _worst(counts: dict[str, int]) -> str:
    return min(counts, key=_rank)


def _failures(results: list[dict]) -> list[dict]:
    failing = [r for r in results if (r.get("status") or "error") in FAILING or r.get("status") not in SEVERITY]
    return sorted(failing, key=lambda r: (_rank(r.get("status") or "error"), str(r.get("case"))))


def _grouped(failures: list[dict]) -> list[tuple[dict, int]]:
    """Failures with the same status, stage and reason folded into their first case and a count."""
    groups: dict[tuple, list] = {}
    for r in failures:
        key = (r.get("status"), r.get("stage"), _one_line(r.get("detail")))
        groups.setdefault(key, [r, 0])[1] += 1
    return [(r, n) for r, n in groups.values()]


def _row_key(key: tuple) -> tuple:
    domain, op, since, param = key
    return (domain, op.lower(), op, since is None, since or 0, param is not None, param or "")


def _column_key(name: str) -> tuple:
    """The spec's own order of element types (TensorProto.DataType), unknown names after."""
    if name == NO_DTYPE:
        return (2, 0, name)
    try:
        return (0, dtypes.elem_type_of(name), name)
    except ValueError:
        return (1, 0, name)


def _summary_text(tally: dict[str, int]) -> str:
    return ", ".join(f"{n} {s}" for s, n in tally.items())


def _stage(r: dict) -> str:
    return f" [{r['stage']}]" if r.get("stage") else ""


def _one_line(text: Any, limit: int | None = None) -> str:
    line = " ".join(str(text or "").split())
    if limit and len(line) > limit:
        line = line[: limit - 1] + "…"
    return line


def _op_label(row: dict) -> str:
    op = f"{row['domain']}.{row['op']}" if row["domain"] else row["op"]
    return f"{op} ({row['param']})" if row.get("param") else op


def _since_label(row: dict) -> str:
    return "" if row["since_version"] is None else str(row["since_version"])


def _run_facts(run: dict) -> list[tuple[str, str]]:
    """The header lines, from what the runner recorded (missing facts are left out, not invented)."""
    backend = run.get("backend") if isinstance(run.get("backend"), dict) else {"name": run.get("backend")}
    corpus = run.get("corpus") if isinstance(run.get("corpus"), dict) else {}
    options = backend.get("options") or {}
    facts = [
        ("backend", backend.get("name") or backend.get("requested")),
        ("backend version", backend.get("version")),
        ("backend options", " ".join(f"{k}={v}" for k, v in sorted(options.items())) if options else None),
        ("harness version", run.get("harness_version")),
        ("corpus", corpus.get("path")),
        ("corpus index sha256", corpus.get("index_sha256")),
        ("cases in corpus", corpus.get("cases")),
        ("started", run.get("started")),
        ("finished", run.get("finished")),
        ("complete", None if run.get("complete") is None else ("yes" if run.get("complete") else "NO")),
    ]
    return [(k, str(v)) for k, v in facts if v not in (None, "")]


def _incomplete_note(matrix: dict) -> str | None:
    run = matrix["run"]
    if run.get("complete", True):
        return None
    corpus = run.get("corpus") if isinstance(run.get("corpus"), dict) else {}
    expected = corpus.get("cases")
    recorded = f"{matrix['total']} of {expected}" if expected else f"{matrix['total']}"
    return f"Incomplete run: {recorded} cases recorded. Cases that did not run appear nowhere below."


# -- Markdown -----------------------------------------------------------------------------------


def render_markdown(matrix: dict, full_report: str = "matrix.html") -> str:
    """Fits a pull-request comment at any corpus size: one line per family, then only the cells that are
    not all passing, folded and finally cut (saying how much, and where the rest is) until it fits."""
    facts = dict(_run_facts(matrix["run"]))
    title = " ".join(v for v in (facts.get("backend"), facts.get("backend version")) if v) or "unknown backend"
    head = [f"## ONNX conformance: {_md(title)}", ""]
    note = _incomplete_note(matrix)
    if note:
        head += [f"> **⚠️ {note}**", ""]
    in_title = ("backend", "backend version", "started", "finished")
    stamp = [f"{k} `{v}`" for k, v in facts.items() if k not in in_title]
    head += [" · ".join(stamp), ""]
    head += ["**" + " · ".join(f"{MARK.get(s, '?')} {n} {s}" for s, n in matrix["summary"].items()) + "**", ""]
    head += [*_markdown_families(matrix), ""]

    rows = matrix["rows"]
    problems = [r for r in rows if r["worst"] != "pass"]
    bad_cells = sum(1 for r in problems for c in r["cells"].values() if c["worst"] != "pass")
    head += [f"### Cells not all passing: {bad_cells} of {sum(len(r['cells']) for r in rows)}", ""]
    if not problems:
        text = "\n".join([*head, "Every cell passes.", "", *_markdown_failures(matrix)]) + "\n"
        return text if _size(text) <= MARKDOWN_BUDGET else _hard_cut(text, full_report)
    head += ["Each cell: type, the worst status's mark, passed/total. Marks: "
             + " ".join(f"{m} {s}" for s, m in MARK.items()), ""]
    where = f"matrix.html has them all: `{full_report}`"
    n_failing = sum(1 for r in problems if _failing_cells(r))
    notes = {
        "cells": [],
        "folded": [f"_To fit a pull-request comment only failing cells are named; each operator version's "
                   f"other cells are counted by status. {where}._", ""],
        "failing": [f"_To fit a pull-request comment only the {n_failing} operator-version rows with failing "
                    f"cells are listed, failing cells named; the other {len(problems) - n_failing} are counted per "
                    f"family. {where}._", ""],
    }
    for limit in (MARKDOWN_FAILURES, 10, 0):
        tail = _markdown_failures(matrix, limit)
        for level in ("cells", "folded", "failing"):
            text = _markdown_text(head, notes[level], _markdown_cells(matrix, level), tail)
            if _size(text) <= MARKDOWN_BUDGET:
                return text
        text = _markdown_cut(matrix, head, tail, where)
        if text is not None:
            return text
    return _hard_cut(_markdown_text(head, [], [], []), full_report)


def _markdown_cut(matrix: dict, head: list[str], tail: list[str], where: str) -> str | None:
    """As many rows with failing cells as fit, each family's first before any family's second, so that
    every family shows its first failures; None when not even the header, notes and tail fit."""
    problems = [r for r in matrix["rows"] if r["worst"] != "pass"]
    bad_cells = sum(1 for r in problems for c in r["cells"].values() if c["worst"] != "pass")
    place: dict[str, int] = {}
    order = []
    for i, r in enumerate(r for r in problems if _failing_cells(r)):
        place[r["family"]] = place.get(r["family"], -1) + 1
        order.append((place[r["family"]], family_key(r["family"]), i, r))
    priority = [r for *_, r in sorted(order, key=lambda o: o[:3])]

    def cut(k: int) -> str:
        shown = priority[:k]
        named = sum(len(_failing_cells(r)) for r in shown)
        note = [f"_Cut to fit a pull-request comment: {len(problems) - k} of {len(problems)} operator-version rows "
                f"not all passing ({bad_cells - named} of {bad_cells} such cells) are not listed, and only failing "
                f"cells are named. {where}._", ""]
        return _markdown_text(head, note, _markdown_cells(matrix, "failing", {id(r) for r in shown}), tail)

    if _size(cut(0)) > MARKDOWN_BUDGET:
        return None
    lo, hi = 0, len(priority)  # cut(lo) fits; find the largest k that does
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _size(cut(mid)) <= MARKDOWN_BUDGET:
            lo = mid
        else:
            hi = mid - 1
    return cut(lo)


def _markdown_text(head: list[str], note: list[str], body: list[str], tail: list[str]) -> str:
    return "\n".join([*head, *note, *body, "", *tail]) + "\n"


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _hard_cut(text: str, full_report: str) -> str:
    """Last resort, for a header no budget can hold (thousands of families): the first lines that fit."""
    end = f"\n\n_Cut at {MARKDOWN_BUDGET} bytes; the full report: `{full_report}`._\n"
    kept = text.encode("utf-8")[: MARKDOWN_BUDGET - _size(end)].decode("utf-8", "ignore")
    return kept.rsplit("\n", 1)[0] + end


def _markdown_families(matrix: dict) -> list[str]:
    lines = ["| family | operators | cases passed | cases by status | cells all passing |",
             "|---|---:|---:|---|---:|"]
    for f in matrix["families"]:
        if list(f["summary"]) == ["pass"]:
            statuses = f"{MARK['pass']} all pass"
        else:
            statuses = " · ".join(f"{MARK.get(s, '?')} {n} {_md(s)}" for s, n in f["summary"].items())
        lines.append(f"| {_md(f['family'])} | {f['operators']} | {f['passed']}/{f['cases']} | {statuses} | "
                     f"{f['cells_passing']}/{f['cells']} |")
    return lines


def _markdown_cells(matrix: dict, level: str, keep: set[int] | None = None) -> list[str]:
    """Per family, one line per operator version with cells not all passing.

    level "cells" names every such cell; "folded" names the failing ones and counts the rest by status;
    "failing" also leaves out the versions with no failing cell (counted per family); `keep` (ids of
    rows) lists only those and counts the others as not shown.
    """
    lines = []
    for f in matrix["families"]:
        problems = [r for r in matrix["rows"] if r["family"] == f["family"] and r["worst"] != "pass"]
        if not problems:
            continue
        lines.append(f"**{_md(f['family'])}**")
        quiet = not_shown = 0
        for row in problems:
            failing = _failing_cells(row)
            if level == "failing" and not failing:
                quiet += 1
                continue
            if keep is not None and id(row) not in keep:
                not_shown += 1
                continue
            named = [c for c in row["cells"].items() if c[1]["worst"] != "pass"] if level == "cells" else failing
            parts = [f"{_md(c)} {MARK.get(cell['worst'], '?')} {cell['passed']}/{cell['total']}"
                     for c, cell in named]
            if level != "cells":
                others: dict[str, int] = {}
                for cell in row["cells"].values():
                    if cell["worst"] != "pass" and not _is_failing(cell["worst"]):
                        others[cell["worst"]] = others.get(cell["worst"], 0) + 1
                parts += [f"{MARK[s]} {s}: {_count(n, 'type')}"
                          for s, n in sorted(others.items(), key=lambda kv: _rank(kv[0]))]
            lines.append(f"- {_md(_version_label(row))}: " + " · ".join(parts))
        if not_shown:
            lines.append(f"- … {not_shown} more with failing cells, not listed here")
        if quiet:
            lines.append(f"- … {quiet} more whose cells are only {MARK['warn']} warn, {MARK['unsupported']} "
                         f"unsupported or {MARK['skip']} skip besides passing")
        lines.append("")
    return lines


def _is_failing(status: str) -> bool:
    return status in FAILING or status not in SEVERITY


def _failing_cells(row: dict) -> list[tuple[str, dict]]:
    return [(c, cell) for c, cell in row["cells"].items() if _is_failing(cell["worst"])]


def _version_label(row: dict) -> str:
    op = f"{row['domain']}.{row['op']}" if row["domain"] else row["op"]
    if row["since_version"] is not None:
        op += f"-{row['since_version']}"
    return f"{op} ({row['param']})" if row.get("param") else op


def _markdown_failures(matrix: dict, limit: int = MARKDOWN_FAILURES) -> list[str]:
    failures = matrix["failures"]
    if not failures:
        return ["No failing cases."]
    groups = _grouped(failures)
    lines = [f"<details><summary>Failing cases ({len(failures)}; same reasons folded)</summary>", ""]
    for f, n in groups[:limit]:
        stage = f" ({f['stage']})" if f.get("stage") else ""
        also = f" and {n - 1} more" if n > 1 else ""
        lines.append(
            f"- {MARK.get(f['status'], '?')} **{f['status']}**{stage} `{f['case']}`{also}: "
            f"{_md(_one_line(f.get('detail'), 240))}"
        )
    if len(groups) > limit:
        rest = sum(n for _, n in groups[limit:])
        lines.append(f"- … and {rest} more in matrix.html")
    return [*lines, "", "</details>"]


def _md(text: str) -> str:
    """Plain text that Markdown (and the HTML GitHub allows in it) shows as written."""
    for ch in "\\`*_[]|":
        text = str(text).replace(ch, "\\" + ch)
    return text.replace("<", "&lt;").replace(">", "&gt;")


# -- HTML ---------------------------------------------------------------------------------------


def render_html(matrix: dict) -> str:
    esc = html.escape
    facts = _run_facts(matrix["run"])
    named = dict(facts)
    title = " ".join(v for v in (named.get("backend"), named.get("backend version")) if v) or "unknown backend"
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>ONNX conformance: {esc(title)}</title>",
        f"<style>{_css()}</style>",
        "</head><body>",
        f"<h1>ONNX conformance: {esc(title)}</h1>",
    ]
    note = _incomplete_note(matrix)
    if note:
        out.append(f'<p class="banner">{esc(note)}</p>')
    out.append('<ul class="facts">')
    for k, v in facts:
        cls = ' class="no"' if k == "complete" and v == "NO" else ""
        out.append(f"<li><span>{esc(k)}</span> <code{cls}>{esc(v)}</code></li>")
    out.append("</ul>")
    out.append('<p class="summary">' + " ".join(
        f'<span class="badge s-{esc(s)}">{esc(s)} {n}</span>' for s, n in matrix["summary"].items()
    ) + f' <span class="total">{matrix["total"]} cases</span></p>')
    out.append('<p class="legend">One section per operator family, open when it has a cell not all passing. '
               "Each cell: cases passed / cases run, coloured by the worst status among them "
               "(hover one not all passing for the breakdown). Severity: " + " &gt; ".join(
                   f'<span class="badge s-{s}">{s}</span>' for s in SEVERITY) + ".</p>")

    for family in matrix["families"]:
        out += _html_family(family, [r for r in matrix["rows"] if r["family"] == family["family"]])

    failures = matrix["failures"]
    out.append(f"<h2>Failing cases ({len(failures)})</h2>")
    if failures:
        out.append('<table class="failures"><thead><tr>'
                   "<th>status</th><th>stage</th><th>case</th><th>reason</th></tr></thead><tbody>")
        for f in failures:
            out.append(
                f'<tr><td class="s-{esc(f["status"])}">{esc(f["status"])}</td><td>{esc(f.get("stage") or "")}</td>'
                f'<td class="case">{esc(str(f["case"]))}</td><td>{esc(_one_line(f.get("detail")))}</td></tr>'
            )
        out.append("</tbody></table>")
    else:
        out.append("<p>None.</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _html_family(family: dict, rows: list[dict]) -> list[str]:
    """One collapsible section: open when the family has a cell not all passing, its own columns only."""
    esc = html.escape
    is_open = " open" if family["cells_passing"] < family["cells"] else ""
    badges = " ".join(f'<span class="badge s-{esc(s)}">{esc(s)} {n}</span>' for s, n in family["summary"].items())
    out = [
        f'<details class="family"{is_open}><summary><b>{esc(family["family"])}</b> '
        f'<span class="fam">{_count(family["operators"], "operator")}, {_count(family["versions"], "version")} · '
        f'cases passed {family["passed"]}/{family["cases"]} · '
        f'cells all passing {family["cells_passing"]}/{family["cells"]}</span> {badges}</summary>',
        '<div class="scroll"><table class="matrix"><thead><tr><th class="op">operator</th><th class="since">since</th>'
        + "".join(f'<th class="dt"><span>{esc(c)}</span></th>' for c in family["columns"])
        + "</tr></thead><tbody>",
    ]
    for row in rows:
        cells = [f'<tr><th class="op" scope="row">{esc(_op_label(row))}</th>'
                 f'<td class="since">{esc(_since_label(row))}</td>']
        for c in family["columns"]:
            cell = row["cells"].get(c)
            if not cell:
                cells.append("<td></td>")  # the stylesheet greys an empty cell
            elif list(cell["counts"]) == ["pass"]:
                # Nothing to break down; leaving the title out keeps the whole corpus's page small.
                cells.append(f'<td class="s-pass">{cell["passed"]}/{cell["total"]}</td>')
            else:
                by_severity = sorted(cell["counts"].items(), key=lambda kv: _rank(kv[0]))
                tip = f"{_version_label(row)} {c}: " + ", ".join(f"{n} {s}" for s, n in by_severity)
                cells.append(
                    f'<td class="s-{esc(cell["worst"])}" title="{esc(tip)}">{cell["passed"]}/{cell["total"]}</td>'
                )
        out.append("".join(cells) + "</tr>")
    out.append("</tbody></table></div></details>")
    return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _css() -> str:
    colours = " ".join(f".s-{s}{{background:{bg};color:{fg}}}" for s, (bg, fg) in COLOUR.items())
    return (
        "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em;color:#222}"
        "h1{font-size:1.4em;margin:0 0 .4em}h2{font-size:1.15em;margin-top:1.5em}"
        ".banner{background:#c62828;color:#fff;padding:.6em 1em;font-weight:bold;border-radius:4px}"
        ".facts{display:flex;flex-wrap:wrap;gap:.2em 1.6em;list-style:none;padding:0;margin:.5em 0}"
        ".facts span{color:#555}.facts code{overflow-wrap:anywhere}"
        ".facts code.no{color:#c62828;font-weight:bold}"
        ".badge{display:inline-block;padding:.1em .5em;border-radius:3px;margin:0 .15em;font-size:.95em}"
        ".summary .badge{font-weight:bold}.total{color:#555}.legend{color:#555;font-size:.9em}"
        ".scroll{overflow:auto;max-height:80vh;border:1px solid #ccc}"
        "table{border-collapse:collapse}"
        ".matrix td,.matrix th{border:1px solid #fff;padding:.15em .4em;text-align:center;white-space:nowrap;"
        "font-variant-numeric:tabular-nums}"
        ".matrix thead th{position:sticky;top:0;background:#f5f5f5;z-index:2;vertical-align:bottom}"
        ".matrix th.dt span{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal}"
        ".matrix th.op{position:sticky;left:0;background:#f5f5f5;text-align:left;z-index:1}"
        ".matrix thead th.op{z-index:3}"
        ".matrix td.since{color:#555;background:#fafafa}.matrix td:empty{background:#fafafa}"
        "details.family{margin:.4em 0;border:1px solid #ddd;border-radius:4px;padding:.2em .5em}"
        "details.family>summary{cursor:pointer;padding:.2em 0}details.family .fam{color:#555;margin:0 .6em}"
        "details.family[open]>summary{margin-bottom:.3em}"
        ".failures td,.failures th{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}"
        ".failures td.case{font-family:ui-monospace,monospace;white-space:nowrap}"
        + colours
    )
