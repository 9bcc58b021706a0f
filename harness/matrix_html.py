"""matrix.html: the whole matrix as one offline HTML file, a collapsible section per operator family."""

from __future__ import annotations

import html

from onnx_conformance.harness.matrix import (incomplete_note, one_line, plural, rank, ran_at_text, run_facts,
                                             version_label)
from onnx_conformance.harness.statuses import COLOUR, SEVERITY


def render_html(matrix: dict) -> str:
    esc = html.escape
    facts = run_facts(matrix["run"])
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
    note = incomplete_note(matrix)
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
               "(hover one not all passing for the breakdown; one underlined dotted had cases run below their "
               "own opset, at the opset ceiling: hover it for the opsets its cases ran at). Severity: " + " &gt; ".join(
                   f'<span class="badge s-{s}">{s}</span>' for s in SEVERITY) + ".</p>")

    for family in matrix["families"]:
        out += _html_family(family, [r for r in matrix["rows"] if r["family"] == family["family"]])

    failures = matrix["failures"]
    out.append(f"<h2>Failing cases ({len(failures)})</h2>")
    if failures:
        out.append('<table class="failures"><thead><tr>'
                   "<th>status</th><th>stage</th><th>case</th><th>reason</th></tr></thead><tbody>")
        for f in failures:
            at = f" (at opset {f['ran_opset']})" if f.get("ran_opset") else ""
            out.append(
                f'<tr><td class="s-{esc(f["status"])}">{esc(f["status"])}</td><td>{esc(f.get("stage") or "")}</td>'
                f'<td class="case">{esc(str(f["case"]) + at)}</td><td>{esc(one_line(f.get("detail")))}</td></tr>'
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
        f'<span class="fam">{plural(family["operators"], "operator")}, {plural(family["versions"], "version")} · '
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
            at = ran_at_text(cell) if cell else None
            if not cell:
                cells.append("<td></td>")  # the stylesheet greys an empty cell
            elif at and list(cell["counts"]) == ["pass"]:
                tip = f"{version_label(row)} {c}: ran at {at}"
                cells.append(f'<td class="s-pass at" title="{esc(tip)}">{cell["passed"]}/{cell["total"]}</td>')
            elif list(cell["counts"]) == ["pass"]:
                # Nothing to break down; leaving the title out keeps the whole corpus's page small.
                cells.append(f'<td class="s-pass">{cell["passed"]}/{cell["total"]}</td>')
            else:
                by_severity = sorted(cell["counts"].items(), key=lambda kv: rank(kv[0]))
                tip = f"{version_label(row)} {c}: " + ", ".join(f"{n} {s}" for s, n in by_severity)
                tip += f"; ran at {at}" if at else ""
                cls = " at" if at else ""
                cells.append(
                    f'<td class="s-{esc(cell["worst"])}{cls}" title="{esc(tip)}">{cell["passed"]}/{cell["total"]}</td>'
                )
        out.append("".join(cells) + "</tr>")
    out.append("</tbody></table></div></details>")
    return out


def _op_label(row: dict) -> str:
    op = f"{row['domain']}.{row['op']}" if row["domain"] else row["op"]
    return f"{op} ({row['param']})" if row.get("param") else op


def _since_label(row: dict) -> str:
    return "" if row["since_version"] is None else str(row["since_version"])


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
        ".matrix td.at{text-decoration:underline dotted}"
        ".matrix td.since{color:#555;background:#fafafa}.matrix td:empty{background:#fafafa}"
        "details.family{margin:.4em 0;border:1px solid #ddd;border-radius:4px;padding:.2em .5em}"
        "details.family>summary{cursor:pointer;padding:.2em 0}details.family .fam{color:#555;margin:0 .6em}"
        "details.family[open]>summary{margin-bottom:.3em}"
        ".failures td,.failures th{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}"
        ".failures td.case{font-family:ui-monospace,monospace;white-space:nowrap}"
        + colours
    )
