"""reports/index.html: every backend's results side by side in one offline page (family > operator > version > type)."""

from __future__ import annotations

import argparse
import html
import json
import os
import sys
from pathlib import Path

from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.matrix import column_key
from onnx_conformance.harness.results import RESULTS
from onnx_conformance.harness.scoreboard_data import PageError, load_reports, page_data, status_class
from onnx_conformance.harness.scoreboard_script import SCRIPT
from onnx_conformance.harness.statuses import COLOUR

INDEX = "index.html"


def render_index(reports_dir: Path, names: list[str]) -> str:
    """index.html's text for the backends in `names` that have results under `reports_dir`."""
    reports = load_reports(reports_dir, names)
    if not reports:
        raise PageError(f"{reports_dir}: none of {', '.join(names) or '(no names)'} has a {RESULTS}")
    return render_page(page_data(reports))


def write_index(reports_dir: Path, names: list[str]) -> Path:
    """Write `reports_dir`/index.html (replaced atomically) and return its path."""
    out = Path(reports_dir) / INDEX
    _write(out, render_index(reports_dir, names))
    return out


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def render_page(data: dict) -> str:
    esc = html.escape
    backends = data["backends"]
    statuses = data["statuses"]
    total = sum(row[3] for row in data["rows"])
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # Nothing is fetched: the page is one file that works from file:// with the network off.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">",
        "<title>ONNX conformance scoreboard</title>",
        f"<style>{_css(statuses)}</style>",
        "</head><body>",
        "<header>",
        "<h1>ONNX conformance scoreboard</h1>",
        f'<p class="what">Every backend\'s results over the project\'s corpus ({total} cases), side by side. '
        "Rows: operator family, then operator, its version (the spec's since_version) and type; each cell: "
        "cases passed / cases that backend ran, coloured by the worst status among them. Click a family or "
        "operator to open it, and a backend's cell at version or type level for its cases and the command "
        "that reproduces each. Written by <code>update-scoreboard</code> from "
        "<code>reports/&lt;backend&gt;/results.jsonl</code> and <code>run.json</code>.</p>",
        '<table id="totals"><thead><tr><th>backend</th><th>version</th><th>corpus index</th><th>finished</th>'
        "<th>complete</th><th>cases</th>"
        + "".join(f'<th class="s-{status_class(s)}">{esc(s)}</th>' for s in statuses) + "</tr></thead><tbody>",
    ]
    for b in backends:
        ran = sum(b["counts"].values())
        complete = {True: "yes", False: "NO", None: "?"}[b["complete"]]
        of = f" of {b['corpus_cases']}" if b["corpus_cases"] is not None else ""
        out.append(
            f'<tr><th>{esc(b["name"])}</th><td>{esc(b["version"])}</td>'
            f'<td><code title="{esc(b["index_sha256"])}">{esc(b["index_sha256"][:12])}</code></td>'
            f'<td title="started {esc(b["started"])}">{esc(b["finished"])}</td>'
            f'<td class="{"no" if b["complete"] is False else ""}">{complete}</td><td>{ran}{of}</td>'
            + "".join(f'<td class="{"s-" + status_class(s) if b["counts"][s] else "zero"}">{b["counts"][s]}</td>'
                      for s in statuses) + "</tr>")
    out.append("</tbody></table>")
    if any(b["complete"] is False for b in backends):
        out.append('<p class="banner">Some runs are incomplete (complete: NO): cases they did not reach '
                   "count as not run.</p>")
    out.append("</header>")

    out.append('<nav id="controls">')
    out.append('<div class="tabs"><button type="button" id="tab-table" class="on">Table</button>'
               f'<button type="button" id="tab-disagree">Disagreements ({len(data["disagree"])})</button></div>')
    out.append('<fieldset id="f-backends"><legend>backends</legend>' + "".join(
        f'<label><input type="checkbox" value="{k}" checked> {esc(b["name"])}</label>'
        for k, b in enumerate(backends)) + "</fieldset>")
    status_options = [("", "every case"),
                      ("failing", "some backend failing (" + ", ".join(data["failing"]) + ")"),
                      ("not-pass", "some backend not passing")]
    status_options += [(f"is:{s}", f"some backend: {s}") for s in statuses]
    out.append('<label>status <select id="f-status">' + "".join(
        f'<option value="{esc(v)}">{esc(t)}</option>' for v, t in status_options) + "</select></label>")
    out.append('<label>type <select id="f-dtype"><option value="-1">every type</option>' + "".join(
        f'<option value="{k}">{esc(d)}</option>'
        for k, d in sorted(enumerate(data["dtypes"]), key=lambda kd: column_key(kd[1]))) + "</select></label>")
    out.append('<label>family <select id="f-family"><option value="-1">every family</option>' + "".join(
        f'<option value="{k}">{esc(f)}</option>' for k, f in enumerate(data["families"])) + "</select></label>")
    out.append('<label>operator <input id="f-op" type="search" placeholder="name contains" size="14"></label>')
    out.append("</nav>")
    out.append('<p class="legend">Counts cover the cases the filters select. Colours, worst first: ' + " ".join(
        f'<span class="badge s-{status_class(s)}">{esc(s)}</span>' for s in statuses)
        + '; <span class="badge none">–</span> the backend ran none of them.</p>')
    out.append('<noscript><p class="banner">This page draws its tables with JavaScript; the totals above '
               "are all it shows without it.</p></noscript>")
    out.append('<main><section id="view-table"><table id="board"><thead></thead><tbody></tbody></table></section>')
    out.append('<section id="view-disagree" hidden><p class="what">Cases two or more backends answered '
               "differently: one passes while another fails, errors or crashes, or all fail with different "
               "numbers (<code>compare-reports</code>). A backend that declined a case (unsupported, skip) "
               'is not counted as disagreeing. Grouped by operator; click one to list its cases.</p>'
               '<div id="disagree"></div></section></main>')
    blob = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    # "<" only occurs inside JSON strings, where \u003c reads the same; so no "</script>" can end the block.
    out.append('<script type="application/json" id="data">' + blob.replace("<", "\\u003c") + "</script>")
    out.append(f"<script>{SCRIPT}</script>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _css(statuses: list[str]) -> str:
    colours = " ".join(f".s-{s}{{background:{bg};color:{fg}}}" for s, (bg, fg) in COLOUR.items())
    return (
        "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.2em;color:#222}"
        "h1{font-size:1.4em;margin:0 0 .3em}.what{color:#444;max-width:70em;margin:.2em 0 .6em}"
        ".banner{background:#c62828;color:#fff;padding:.5em 1em;font-weight:bold;border-radius:4px}"
        "table{border-collapse:collapse}"
        "#totals td,#totals th{border:1px solid #ddd;padding:.15em .5em;text-align:right;"
        "font-variant-numeric:tabular-nums}"
        "#totals th:first-child,#totals th:nth-child(2),#totals td:nth-child(2){text-align:left}"
        "#totals th,#totals td{white-space:nowrap}#totals td:nth-child(2){max-width:22em;white-space:normal}"
        "#totals td.zero{color:#bbb}#totals td.no{color:#c62828;font-weight:bold}"
        "nav{display:flex;flex-wrap:wrap;gap:.5em 1.2em;align-items:center;margin:.8em 0 .3em;padding:.4em 0;"
        "border-bottom:1px solid #ddd}"
        "fieldset{border:1px solid #ccc;padding:.1em .5em;margin:0}fieldset legend{color:#555;font-size:.9em}"
        "fieldset label{margin-right:.6em;white-space:nowrap}"
        ".tabs button{font:inherit;padding:.25em .8em;border:1px solid #888;background:#f5f5f5;cursor:pointer}"
        ".tabs button.on{background:#333;color:#fff}"
        ".legend{color:#555;font-size:.9em}"
        ".badge{display:inline-block;padding:0 .45em;border-radius:3px;margin:0 .1em}"
        # child selectors: the case lists nested in the board keep their own look
        "#board>*>tr>th,#board>tbody>tr>td{border:1px solid #fff;padding:.12em .45em;white-space:nowrap;"
        "font-variant-numeric:tabular-nums}"
        "#board>thead>tr>th{position:sticky;top:0;background:#f0f0f0;z-index:2;vertical-align:bottom;"
        "text-align:center;font-weight:normal;white-space:normal;max-width:12em}"
        "#board>thead b{display:block}#board>thead small{display:block;color:#555;overflow-wrap:anywhere}"
        "#board>tbody>tr>th{text-align:left;font-weight:normal;background:#fafafa;min-width:18em}"
        "#board>tbody>tr>td{text-align:right;cursor:default}#board>tbody>tr>td>small{color:inherit;opacity:.75}"
        "#board tr.l0 th{font-weight:bold;background:#eee}#board tr.l1 th{padding-left:1.6em}"
        "#board tr.l2 th{padding-left:3em}#board tr.l3 th{padding-left:4.4em}"
        "#board tr.l2 td[data-b],#board tr.l3 td[data-b]{cursor:pointer}"
        "#board tr.l2 td[data-b]:hover,#board tr.l3 td[data-b]:hover{outline:2px solid #333}"
        "#board td.open{outline:3px solid #1565c0}"
        ".tog{font:inherit;border:0;background:none;cursor:pointer;width:1.4em;padding:0;display:inline-block}"
        "th .n{color:#777;font-size:.85em}.none{background:#fafafa;color:#aaa;text-align:center!important}"
        "#board>tbody>tr.cases>td{background:#fff;border:2px solid #1565c0;padding:.4em .6em;white-space:normal;"
        "text-align:left}"
        # the list scrolls inside a box as wide as the window, so a long detail cannot widen every column
        ".cases-box{position:sticky;left:1em;width:calc(100vw - 5em);max-height:28em;overflow:auto}"
        ".cases-head{margin-bottom:.3em}.cases-head button{margin-left:1em}"
        "table.list td,table.list th{border:1px solid #ddd;padding:.1em .4em;text-align:left;vertical-align:top;"
        "white-space:normal}table.list td.case,table.list code{font-family:ui-monospace,monospace;font-size:.9em}"
        "table.list td.detail{min-width:22em;max-width:50em;overflow-wrap:anywhere}table.list code{white-space:normal}"
        ".dgroup h3{font-size:1em;margin:.2em 0;font-weight:normal}.dgroup h3 b{font-weight:bold}"
        ".dgroup .fam{color:#777}.dgroup table{margin:.2em 0 .8em 1.6em}"
        "table.list td small{display:block;opacity:.8;max-width:28em;overflow-wrap:anywhere}"
        ".empty{color:#777;padding:1em}"
        + colours + " .s-other{background:#000;color:#fff}"
    )


def main(argv: list[str] | None = None) -> int:
    backends = list(registry.scoreboard_backends())

    p = argparse.ArgumentParser(prog="python -m onnx_conformance.harness.scoreboard_page", description=__doc__)
    p.add_argument("--reports", type=Path, default=Path("reports"), help="the reports directory (default: reports)")
    p.add_argument("--out", type=Path, help="where to write the page (default: REPORTS/index.html)")
    p.add_argument("--backend", action="append",
                   help="only this backend's report directory (repeatable; default: every one with results)")
    a = p.parse_args(argv)
    if a.backend:
        names = a.backend
    else:
        found = sorted(d.name for d in a.reports.iterdir() if d.is_dir()) if a.reports.is_dir() else []
        names = [n for n in backends if n in found] + [n for n in found if n not in backends]
    try:
        text = render_index(a.reports, names)
    except PageError as e:
        print(f"scoreboard_page: {e}", file=sys.stderr)
        return 2
    out = a.out or a.reports / INDEX
    _write(out, text)
    print(f"scoreboard_page: wrote {out} ({len(text.encode('utf-8'))} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
