"""reports/index.html: every backend's results side by side in one offline page (family > operator > version > type)."""

from __future__ import annotations

import argparse
import html
import json
import math
import os
import sys
from pathlib import Path

from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.matrix import column_key
from onnx_conformance.harness.results import RESULTS
from onnx_conformance.harness.scoreboard_data import (COUNTS_AS_PASS, MARKED, PageError, load_reports, page_data,
                                                      share, status_class)
from onnx_conformance.harness.scoreboard_script import SCRIPT
from onnx_conformance.harness.statuses import COLOUR, DECLINED

INDEX = "index.html"
# The heat scale of a cell's pass share, 0% to 100% in 101 steps: interpolated in OKLab (perceptually even
# steps) between anchors given as OKLCh (lightness, chroma, hue in degrees). Lightness rises with the share,
# so the order survives greyscale and every colour-vision deficiency; the hue (indigo, teal, yellow, as
# viridis) only helps. No step is red: a low share is dark, not alarming in another colour than a high one.
HEAT_ANCHORS = ((0.0, (0.32, 0.11, 290.0)), (0.5, (0.62, 0.10, 185.0)), (1.0, (0.94, 0.16, 105.0)))


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


def heat_scale() -> list[tuple[str, str]]:
    """(background, text) for shares 0% to 100%: the text black or white, whichever contrasts more."""
    lab = [(t, (L, C * math.cos(math.radians(h)), C * math.sin(math.radians(h)))) for t, (L, C, h) in HEAT_ANCHORS]
    scale = []
    for step in range(101):
        t = step / 100
        (t0, a), (t1, b) = next((lo, hi) for lo, hi in zip(lab, lab[1:]) if t <= hi[0])
        u = (t - t0) / (t1 - t0)
        rgb = _oklab_to_linear_srgb(*(x + (y - x) * u for x, y in zip(a, b)))
        bytes_ = [round(_gamma(min(1.0, max(0.0, c))) * 255) for c in rgb]
        # WCAG: contrast (L1 + 0.05) / (L2 + 0.05) against white (1) and black (0)
        y = relative_luminance(bytes_)
        scale.append(("#" + "".join(f"{c:02x}" for c in bytes_), "#ffffff" if 1.05 / (y + 0.05) > (y + 0.05) / 0.05
                      else "#000000"))
    return scale


def relative_luminance(rgb: list[int]) -> float:
    """WCAG 2's relative luminance of an sRGB colour given as three bytes."""
    lin = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _oklab_to_linear_srgb(L: float, a: float, b: float) -> tuple[float, float, float]:
    # Björn Ottosson's OKLab definition (2020), inverted: LMS' -> LMS (cubed) -> linear sRGB
    l_, m_, s_ = (L + 0.3963377774 * a + 0.2158037573 * b, L - 0.1055613458 * a - 0.0638541728 * b,
                  L - 0.0894841775 * a - 1.2914855480 * b)
    l, m, s = l_ ** 3, m_ ** 3, s_ ** 3
    return (4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
            -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
            -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s)


def _gamma(c: float) -> float:
    return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def _percent(part: int, whole: int) -> str:
    """One decimal, rounded down: 99.96% of cases is not all of them."""
    return f"{1000 * part // whole / 10:.1f}%" if whole else "–"


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
        "Rows: operator family, then operator, its version (the spec's since_version) and type. Each cell is "
        f"coloured by its pass share: the cases counted as passing ({' and '.join(COUNTS_AS_PASS)}) among the cases "
        f"the backend ran; what it declined ({', '.join(DECLINED)}) is coverage, drawn apart, never a failure. "
        "Hover over a cell for its counts and worst status; click a family or operator to open it, and a "
        "backend's cell at version or type level for its cases, worst first, and the command that reproduces "
        "each. Written by <code>update-scoreboard</code> from <code>reports/&lt;backend&gt;/results.jsonl</code> "
        "and <code>run.json</code>.</p>",
        '<table id="totals"><thead><tr><th>backend</th><th>run</th><th>cases</th><th>pass share</th>'
        "<th>coverage</th>"
        + "".join(f'<th class="s-{status_class(s)}">{esc(s)}</th>' for s in statuses) + "</tr></thead><tbody>",
    ]
    for b in backends:
        good, ran, recorded = share(b["counts"])
        of = f" of {b['corpus_cases']}" if b["corpus_cases"] is not None else ""
        done = {True: "complete", False: "INCOMPLETE", None: "complete?"}[b["complete"]]
        heat = f' class="h{100 * good // ran}"' if ran else ' class="declined"'
        declined = ", ".join(f"{b['counts'][s]} {s}" for s in DECLINED)
        out.append(
            f'<tr><th><b>{esc(b["name"])}</b>'
            f'<small class="v" title="{esc(b["version"])}">{esc(b["version"])}</small></th>'
            f'<td title="started {esc(b["started"])}\nfinished {esc(b["finished"])}\ncorpus index '
            f'{esc(b["index_sha256"])}">{esc(b["finished"][:16].replace("T", " "))}'
            f'<small>index {esc(b["index_sha256"][:12])} · <span class="{"no" if b["complete"] is False else ""}">'
            f"{done}</span></small></td><td>{recorded}{of}</td>"
            f'<td{heat} title="{good} of {ran} cases run count as passing">{_percent(good, ran)}</td>'
            f'<td title="ran {ran} of {recorded}; declined: {esc(declined)}">{_percent(ran, recorded)}</td>'
            + "".join(f'<td class="{"s-" + status_class(s) if b["counts"][s] else "zero"}">{b["counts"][s]}</td>'
                      for s in statuses) + "</tr>")
    out.append("</tbody></table>")
    if any(b["complete"] is False for b in backends):
        out.append('<p class="banner">Some runs are incomplete (INCOMPLETE): cases they did not reach '
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
    marked = " or ".join(MARKED)
    out.append(
        '<div class="legend"><span>Pass share of the cases run, counts over the cases the filters select: '
        '<span class="scale">' + "".join(f'<i class="h{p}">{p}</i>' for p in range(0, 101, 10)) + "</span> %</span>"
        '<span><i class="key"><i class="cov" style="width:40%"></i></i> the foot of a cell: the share its '
        "backend declined (coverage is the rest)</span>"
        f'<span><i class="key declined"></i> ran none: every case declined ({", ".join(DECLINED)})</span>'
        '<span><i class="key none">–</i> not in the backend\'s report</span>'
        + (f'<span><i class="key"><i class="mk s-{status_class(MARKED[0])}"></i></i> the worst status is {marked} '
           "(the mark in that status's colour)</span>" if MARKED else "") +
        "<span>Statuses, worst first (totals above, case lists): " + " ".join(
            f'<span class="badge s-{status_class(s)}">{esc(s)}</span>' for s in statuses) + "</span></div>")
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
    heat = "".join(f".h{p}{{background:{bg};color:{fg}}}" for p, (bg, fg) in enumerate(heat_scale()))
    hatch = "repeating-linear-gradient(135deg,#fff 0 2px,#8a8a8a 2px 4px)"
    return (
        "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.2em;color:#222}"
        "h1{font-size:1.4em;margin:0 0 .3em}.what{color:#444;max-width:80em;margin:.2em 0 .6em}"
        ".banner{background:#c62828;color:#fff;padding:.5em 1em;font-weight:bold;border-radius:4px}"
        "table{border-collapse:collapse}"
        "#totals{font-size:.92em}"
        "#totals td,#totals th{border:1px solid #ddd;padding:.1em .45em;text-align:right;white-space:nowrap;"
        "font-variant-numeric:tabular-nums}"
        "#totals th:first-child,#totals td:nth-child(2){text-align:left}"
        "#totals thead th{white-space:normal;vertical-align:bottom}"
        "#totals small{display:block;color:#555;font-size:.85em;font-weight:normal}"
        "#totals small.v{max-width:14em;overflow:hidden;text-overflow:ellipsis}"
        "#totals td.zero{color:#bbb}#totals .no{color:#c62828;font-weight:bold}"
        "nav{display:flex;flex-wrap:wrap;gap:.5em 1.2em;align-items:center;margin:.8em 0 .3em;padding:.4em 0;"
        "border-bottom:1px solid #ddd}"
        "fieldset{border:1px solid #ccc;padding:.1em .5em;margin:0}fieldset legend{color:#555;font-size:.9em}"
        "fieldset label{margin-right:.6em;white-space:nowrap}"
        ".tabs button{font:inherit;padding:.25em .8em;border:1px solid #888;background:#f5f5f5;cursor:pointer}"
        ".tabs button.on{background:#333;color:#fff}"
        ".legend{color:#555;font-size:.9em;display:flex;flex-wrap:wrap;gap:.3em 1.4em;margin:.4em 0 .6em;"
        "align-items:center}"
        ".legend i{font-style:normal}.scale i{display:inline-block;width:2.1em;text-align:center}"
        ".key{display:inline-block;position:relative;width:2.4em;height:1.2em;vertical-align:middle;"
        "border:1px solid #ccc;background:#eee;text-align:center;line-height:1.2em}"
        ".badge{display:inline-block;padding:0 .45em;border-radius:3px;margin:0 .1em}"
        # child selectors: the case lists nested in the board keep their own look
        "#board>*>tr>th,#board>tbody>tr>td{border:1px solid #fff;padding:.12em .45em;white-space:nowrap;"
        "font-variant-numeric:tabular-nums}"
        "#board>thead>tr>th{position:sticky;top:0;background:#f0f0f0;z-index:2;vertical-align:bottom;"
        "text-align:center;font-weight:normal;max-width:7.5em}"
        "#board>thead b{display:block}#board>thead small{display:block;color:#555;overflow:hidden;"
        "text-overflow:ellipsis}#board>thead small.no{color:#c62828;font-weight:bold}"
        "#board>tbody>tr>th{text-align:left;font-weight:normal;background:#fafafa}"
        "#board>tbody>tr>td{text-align:center;cursor:default;position:relative;min-width:4.2em}"
        "#board tr.l0 th{font-weight:bold;background:#eee}#board tr.l1 th{padding-left:1.6em}"
        "#board tr.l2 th{padding-left:3em}#board tr.l3 th{padding-left:4.4em}"
        "#board tr.l2 td[data-b],#board tr.l3 td[data-b]{cursor:pointer}"
        "#board tr.l2 td[data-b]:hover,#board tr.l3 td[data-b]:hover{outline:2px solid #333}"
        "#board td.open{outline:3px solid #1565c0}"
        ".tog{font:inherit;border:0;background:none;cursor:pointer;width:1.4em;padding:0;display:inline-block}"
        "th .n{color:#777;font-size:.85em}.none{background:#fafafa;color:#aaa;text-align:center!important}"
        # declined is coverage, not failure: grey hatching, never a colour of the heat scale or of a status
        f".declined{{background:#f2f2f2 repeating-linear-gradient(135deg,#f2f2f2 0 3px,#d6d6d6 3px 5px);color:#666}}"
        f".cov{{position:absolute;right:0;bottom:0;height:5px;background:{hatch}}}"
        ".mk{position:absolute;top:2px;left:2px;width:.6em;height:.6em;border-radius:50%;box-shadow:0 0 0 1px #fff}"
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
        + heat + colours + " .s-other{background:#000;color:#fff}"
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
