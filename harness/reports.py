"""Conformance matrices (operator x since_version [x type parameter] by type) as JSON, Markdown and one offline HTML file."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any


from onnx_conformance.harness import dtypes

# Worst first: a cell is coloured by the most severe status among its cases.
SEVERITY = ("crash", "timeout", "flaky", "error", "fail", "warn", "unsupported", "skip", "pass")
FAILING = ("crash", "timeout", "flaky", "error", "fail")
MARK = {  # Markdown has no colour; one symbol per status stands in for it
    "crash": "💥", "timeout": "⏱️", "flaky": "🔀", "error": "❗", "fail": "❌", "warn": "⚠️",
    "unsupported": "➖", "skip": "⏭️", "pass": "✅",
}
COLOUR = {  # background, text
    "crash": ("#6a1b9a", "#ffffff"), "timeout": ("#e65100", "#ffffff"),
    "flaky": ("#f9a825", "#000000"), "error": ("#c62828", "#ffffff"),
    "fail": ("#ef9a9a", "#000000"), "warn": ("#ffe0b2", "#000000"), "unsupported": ("#fff3b0", "#000000"), "skip": ("#e0e0e0", "#000000"),
    "pass": ("#c8e6c9", "#000000"),
}
NO_DTYPE = "-"
MARKDOWN_BUDGET = 60_000  # GitHub rejects comments over 65,536 characters
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
    (report_dir / "matrix.md").write_text(render_markdown(matrix), encoding="utf-8")
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
    rows: dict[tuple, dict] = {}
    columns: set[str] = set()
    for r in results:
        status = r.get("status") or "error"
        for param, dtype in _cells_of(r):
            columns.add(dtype)
            key = (r.get("domain") or "", r.get("op") or "(none)", r.get("since_version"), param)
            row = rows.setdefault(key, {"domain": key[0], "op": key[1], "since_version": key[2], "param": param,
                                        "cells": {}})
            cell = row["cells"].setdefault(dtype, {"counts": {}})
            cell["counts"][status] = cell["counts"].get(status, 0) + 1
    for row in rows.values():
        for cell in row["cells"].values():
            cell["total"] = sum(cell["counts"].values())
            cell["passed"] = cell["counts"].get("pass", 0)
            cell["worst"] = _worst(cell["counts"])
        row["worst"] = _worst({c["worst"]: 1 for c in row["cells"].values()})
    ordered = [rows[k] for k in sorted(rows, key=_row_key)]
    return {
        "format": 1,
        "run": run_info,
        "total": len(results),
        "summary": _tally(results),
        "columns": sorted(columns, key=_column_key),
        "rows": ordered,
        "failures": [
            {k: r.get(k) for k in ("case", "status", "stage", "detail", "op", "since_version", "dtype")}
            for r in _failures(results)
        ],
    }


def _cells_of(r: dict) -> list[tuple[str | None, str]]:
    """The (type parameter, type) cells a case counts in: the primary parameter (the one bound to
    the case's dtype) as a row of its own with no label, each other parameter as a labelled row."""
    dtype = r.get("dtype") or NO_DTYPE
    types = r.get("types") or {}
    primary = next((p for p, t in types.items() if t == dtype), None)
    return [(None, dtype)] + [(p, t) for p, t in types.items() if p != primary]


def _tally(results: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in results:
        status = r.get("status") or "error"
        counts[status] = counts.get(status, 0) + 1
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


def render_markdown(matrix: dict) -> str:
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
    legend = "Cells: passed/total, marked by the worst status: " + " ".join(f"{m} {s}" for s, m in MARK.items())

    tail = _markdown_failures(matrix)
    rows = matrix["rows"]
    for attempt in ("all", "problems"):
        shown = rows if attempt == "all" else [r for r in rows if r["worst"] != "pass"]
        table = _markdown_table(matrix["columns"], shown)
        omitted = len(rows) - len(shown)
        note_rows = []
        if omitted:
            note_rows = [f"_{omitted} fully passing operator versions not shown; matrix.html has them all._", ""]
        text = "\n".join([*head, legend, "", *table, "", *note_rows, *tail]) + "\n"
        if len(text) <= MARKDOWN_BUDGET:
            return text
    # Still too long: keep as many problem rows as fit.
    budget = MARKDOWN_BUDGET - len("\n".join([*head, legend, *tail])) - 200
    table = _markdown_table(matrix["columns"], [])
    kept = 0
    for row in shown:
        line = _markdown_row(matrix["columns"], row)
        if budget - len(line) < 0:
            break
        budget -= len(line) + 1
        table.append(line)
        kept += 1
    note_rows = [f"_Only {kept} of {len(rows)} operator versions fit here; matrix.html has them all._", ""]
    return "\n".join([*head, legend, "", *table, "", *note_rows, *tail]) + "\n"


def _markdown_table(columns: list[str], rows: list[dict]) -> list[str]:
    lines = ["| operator | since | " + " | ".join(columns) + " |", "|---|---:|" + "---|" * len(columns)]
    return lines + [_markdown_row(columns, r) for r in rows]


def _markdown_row(columns: list[str], row: dict) -> str:
    cells = []
    for c in columns:
        cell = row["cells"].get(c)
        cells.append(f"{MARK.get(cell['worst'], '?')} {cell['passed']}/{cell['total']}" if cell else "")
    return f"| {_md(_op_label(row))} | {_since_label(row)} | " + " | ".join(cells) + " |"


def _markdown_failures(matrix: dict) -> list[str]:
    failures = matrix["failures"]
    if not failures:
        return ["No failing cases."]
    groups = _grouped(failures)
    lines = [f"<details><summary>Failing cases ({len(failures)}; same reasons folded)</summary>", ""]
    for f, n in groups[:MARKDOWN_FAILURES]:
        stage = f" ({f['stage']})" if f.get("stage") else ""
        also = f" and {n - 1} more" if n > 1 else ""
        lines.append(
            f"- {MARK.get(f['status'], '?')} **{f['status']}**{stage} `{f['case']}`{also}: "
            f"{_md(_one_line(f.get('detail'), 240))}"
        )
    if len(groups) > MARKDOWN_FAILURES:
        rest = sum(n for _, n in groups[MARKDOWN_FAILURES:])
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
    out.append('<p class="legend">Each cell: cases passed / cases run, coloured by the worst status among them '
               "(hover for the breakdown). Severity: " + " &gt; ".join(
                   f'<span class="badge s-{s}">{s}</span>' for s in SEVERITY) + ".</p>")

    columns = matrix["columns"]
    out.append('<div class="scroll"><table class="matrix"><thead><tr>'
               '<th class="op">operator</th><th class="since">since</th>')
    out += [f'<th class="dt"><span>{esc(c)}</span></th>' for c in columns]
    out.append("</tr></thead><tbody>")
    for row in matrix["rows"]:
        cells = [f'<tr><th class="op" scope="row">{esc(_op_label(row))}</th>'
                 f'<td class="since">{esc(_since_label(row))}</td>']
        for c in columns:
            cell = row["cells"].get(c)
            if not cell:
                cells.append('<td class="empty"></td>')
                continue
            by_severity = sorted(cell["counts"].items(), key=lambda kv: _rank(kv[0]))
            breakdown = ", ".join(f"{n} {s}" for s, n in by_severity)
            tip = f"{_op_label(row)}-{_since_label(row)} {c}: {breakdown}"
            cells.append(
                f'<td class="s-{esc(cell["worst"])}" title="{esc(tip)}">{cell["passed"]}/{cell["total"]}</td>'
            )
        out.append("".join(cells) + "</tr>")
    out.append("</tbody></table></div>")

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
        ".matrix td.since{color:#555;background:#fafafa}.matrix td.empty{background:#fafafa}"
        ".failures td,.failures th{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}"
        ".failures td.case{font-family:ui-monospace,monospace;white-space:nowrap}"
        + colours
    )
