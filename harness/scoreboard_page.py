"""reports/index.html: every backend's results side by side in one offline page (family > operator > version > type)."""

from __future__ import annotations

import argparse
import html
import json
import os
import sys
from pathlib import Path

from onnx_conformance.harness import compare_reports
from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.families import family_key, family_of
from onnx_conformance.harness.reports import NO_DTYPE, _column_key, _one_line
from onnx_conformance.harness.results import RESULTS, RUN, read_json, read_results
# One character per status in a backend's status string (CODES); a case the backend did not run is NOT_RUN.
from onnx_conformance.harness.statuses import CODES, COLOUR, DECLINED, FAILING, PASS, SEVERITY

INDEX = "index.html"
NOT_RUN = "."
EXTRA_CODES = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # statuses outside the vocabulary, should a report hold any
DETAIL_LIMIT = 400  # characters of a result's one-line detail kept in the page
FORMAT = 1


class PageError(ValueError):
    """A report the page cannot be built from; the message names the file and the problem."""


# -- reading the reports ------------------------------------------------------------------------


def load_reports(reports_dir: Path, names: list[str]) -> list[dict]:
    """One entry per name with results: {"name", "run", "results": {case: record}}, in `names`' order."""
    reports_dir = Path(reports_dir)
    if not reports_dir.is_dir():
        raise PageError(f"{reports_dir}: no such directory")
    loaded = []
    for name in dict.fromkeys(names):
        report = reports_dir / name
        records, _ = read_results(report / RESULTS)
        if not records:
            continue
        where = report / RESULTS if (report / RESULTS).is_file() else report / (RESULTS + ".gz")
        by_case: dict[str, dict] = {}
        for k, r in enumerate(records, 1):
            if not isinstance(r.get("case"), str) or not r["case"]:
                raise PageError(f"{where}: record {k} has no case name")
            if not isinstance(r.get("status"), str) or not r["status"]:
                raise PageError(f"{where}: record {k} ({r['case']}) has no status")
            by_case[r["case"]] = r  # a resumed run's later record wins, as in results.ResultsLog.all
        run = read_json(report / RUN)
        if run is None and (report / RUN).exists():
            raise PageError(f"{report / RUN}: not a JSON object")
        if run is not None and not isinstance(run, dict):
            raise PageError(f"{report / RUN}: not a JSON object")
        loaded.append({"name": name, "run": run or {}, "results": by_case})
    return loaded


# -- the data the page carries ------------------------------------------------------------------


def page_data(reports: list[dict]) -> dict:
    """The compact, deterministic form the page embeds.

    cases: every case any backend ran, once, ordered family > operator > version > type > name.
    `rows` cuts that order into runs of one (operator, version, type): [op index, version, type index,
    count], so a case's operator, version, type and family are its run's; `pre`/`mid`/`post` code each
    name against the previous one (leading characters shared, what differs, trailing characters shared).
    Per backend, `status` has one character per case (CODES; NOT_RUN where it did not run it) and
    `notes` holds, for each non-pass result, [case index minus the previous note's, stage, detail], the
    last two indices into one de-duplicated `strings` table shared by all backends.
    """
    facts: dict[str, dict] = {}
    for rep in reports:
        for case, r in rep["results"].items():
            facts.setdefault(case, r)
    extras = sorted({r["status"] for rep in reports for r in rep["results"].values()} - set(SEVERITY))
    if len(extras) > len(EXTRA_CODES):
        raise PageError(f"{len(extras)} statuses outside the vocabulary ({', '.join(extras[:5])}, ...)")
    statuses = [*extras, *SEVERITY]  # worst first, as reports._rank orders them
    codes = {**CODES, **dict(zip(extras, EXTRA_CODES))}

    families: dict[str, int] = {}
    ops: dict[tuple[str, str], int] = {}
    dtypes: dict[str, int] = {}

    def key(case: str) -> tuple:
        r = facts[case]
        op, domain = r.get("op") or "(none)", r.get("domain") or ""
        since = r.get("since_version")
        since = since if isinstance(since, int) else None
        return (family_key(family_of(op, domain)), op.lower(), op, domain, since is None, since or 0,
                _column_key(r.get("dtype") or NO_DTYPE), case)

    order = sorted(facts, key=key)
    for name in sorted({family_of(facts[c].get("op") or "(none)", facts[c].get("domain") or "") for c in order},
                       key=family_key):
        families[name] = len(families)
    for case in order:  # operators and types numbered in first-seen (that is, page) order
        r = facts[case]
        op, domain = r.get("op") or "(none)", r.get("domain") or ""
        ops.setdefault((op, domain), len(ops))
        dtypes.setdefault(r.get("dtype") or NO_DTYPE, len(dtypes))

    rows: list[list] = []
    pre: list[int] = []
    mid: list[str] = []
    post: list[int] = []
    previous = ""
    for case in order:
        r = facts[case]
        since = r.get("since_version") if isinstance(r.get("since_version"), int) else None
        run = [ops[(r.get("op") or "(none)", r.get("domain") or "")], since, dtypes[r.get("dtype") or NO_DTYPE]]
        if rows and rows[-1][:3] == run:
            rows[-1][3] += 1
        else:
            rows.append([*run, 1])
        head = len(os.path.commonprefix([previous, case]))
        tail = len(os.path.commonprefix([previous[head:][::-1], case[head:][::-1]]))
        pre.append(head)
        mid.append(case[head:len(case) - tail])
        post.append(tail)
        previous = case

    strings: dict[str, int] = {}

    def string(text) -> int:
        return strings.setdefault(text, len(strings))

    backends = []
    for rep in reports:
        results, run = rep["results"], rep["run"]
        status, notes, last = [], [], 0
        counts = dict.fromkeys(statuses, 0)
        for k, case in enumerate(order):
            r = results.get(case)
            if r is None:
                status.append(NOT_RUN)
                continue
            counts[r["status"]] += 1
            status.append(codes[r["status"]])
            if r["status"] != PASS:
                notes += [k - last, string(r.get("stage") or ""), string(_one_line(r.get("detail"), DETAIL_LIMIT))]
                last = k
        backend = run.get("backend") if isinstance(run.get("backend"), dict) else {}
        corpus = run.get("corpus") if isinstance(run.get("corpus"), dict) else {}
        complete = run.get("complete")
        backends.append({
            "name": rep["name"],
            # what `run-conformance --backend` takes: the name the run was asked for (an entry point's
            # 'pkg.mod:Cls' is kept here; its report directory's name is a path-safe form of it)
            "command": str(backend.get("requested") or rep["name"]),
            "version": str(backend.get("version") or ""),
            "index_sha256": str(corpus.get("index_sha256") or ""),
            "corpus_cases": corpus.get("cases") if isinstance(corpus.get("cases"), int) else None,
            "complete": complete if isinstance(complete, bool) else None,
            "started": str(run.get("started") or ""),
            "finished": str(run.get("finished") or ""),
            "counts": counts,
            "status": "".join(status),
            "notes": notes,
        })

    position = {case: k for k, case in enumerate(order)}
    disagree, why, last = [], [], 0
    if len(reports) >= 2:
        rows_differ = compare_reports.disagreements([(rep["name"], rep["results"]) for rep in reports])
        for row in sorted((r for r in rows_differ if compare_reports.answered_differently(r)),
                          key=lambda r: position[r["case"]]):
            k = position[row["case"]]
            disagree.append(k - last)
            why.append("n" if row["differs_in"] == "numbers" else "s")
            last = k

    return {
        "format": FORMAT,
        "statuses": statuses,
        "codes": "".join(codes[s] for s in statuses),
        "classes": [_cls(s) for s in statuses],  # the CSS class (s-<class>) each status is drawn with
        "not_run": NOT_RUN,
        "failing": [s for s in statuses if s in FAILING or s in extras],
        "declined": list(DECLINED),
        "families": list(families),
        "ops": [[op, domain, families[family_of(op, domain)]] for (op, domain) in ops],
        "dtypes": list(dtypes),
        "rows": rows,
        "pre": pre,
        "mid": mid,
        "post": post,
        "strings": list(strings),
        "backends": backends,
        "disagree": disagree,
        "disagree_why": "".join(why),
    }


def decode_cases(data: dict) -> list[dict]:
    """The case table back from page_data's encoding (what the page's script does), for checking it."""
    names, previous = [], ""
    for head, middle, tail in zip(data["pre"], data["mid"], data["post"]):
        previous = previous[:head] + middle + previous[len(previous) - tail:]
        names.append(previous)
    cases = []
    for op, since, dtype, count in data["rows"]:
        name, domain, family = data["ops"][op]
        for _ in range(count):
            cases.append({"case": names[len(cases)], "op": name, "domain": domain, "since_version": since,
                          "dtype": data["dtypes"][dtype], "family": data["families"][family]})
    return cases


# -- the page -----------------------------------------------------------------------------------


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
        "<th>complete</th><th>cases</th>" + "".join(f'<th class="s-{_cls(s)}">{esc(s)}</th>' for s in statuses) + "</tr></thead><tbody>",
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
            + "".join(f'<td class="{"s-" + _cls(s) if b["counts"][s] else "zero"}">{b["counts"][s]}</td>'
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
        for k, d in sorted(enumerate(data["dtypes"]), key=lambda kd: _column_key(kd[1]))) + "</select></label>")
    out.append('<label>family <select id="f-family"><option value="-1">every family</option>' + "".join(
        f'<option value="{k}">{esc(f)}</option>' for k, f in enumerate(data["families"])) + "</select></label>")
    out.append('<label>operator <input id="f-op" type="search" placeholder="name contains" size="14"></label>')
    out.append("</nav>")
    out.append('<p class="legend">Counts cover the cases the filters select. Colours, worst first: ' + " ".join(
        f'<span class="badge s-{_cls(s)}">{esc(s)}</span>' for s in statuses)
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
    out.append(f"<script>{_SCRIPT}</script>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _cls(status: str) -> str:
    return status if status in SEVERITY else "other"


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


# The page's script: decodes the data block, keeps the filter state, and draws only what is open.
_SCRIPT = r"""
(() => {
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const S = D.statuses, NS = S.length, NOT_RUN = NS, PASS = S.indexOf("pass");
const B = D.backends, NB = B.length, LIMIT = 200;
const ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"};
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ENTITY[c]);
const cls = (k) => k === NOT_RUN ? "none" : "s-" + D.classes[k];

// the case table: names (each coded against the previous one), and each case's status per backend
const N = D.pre.length, names = new Array(N);
{
  let prev = "";
  for (let i = 0; i < N; i++) {
    prev = prev.slice(0, D.pre[i]) + D.mid[i] + prev.slice(prev.length - D.post[i]);
    names[i] = prev;
  }
}
const code = {}; for (let k = 0; k < NS; k++) code[D.codes[k]] = k;
const st = B.map((b) => {
  const a = new Uint8Array(N);
  for (let i = 0; i < N; i++) { const c = code[b.status[i]]; a[i] = c === undefined ? NOT_RUN : c; }
  return a;
});
const noteAt = B.map(() => null);
function note(b, i) {  // [stage, detail] of a non-pass result
  if (!noteAt[b]) {
    const m = new Int32Array(N).fill(-1), a = B[b].notes; let c = 0;
    for (let k = 0; k < a.length; k += 3) { c += a[k]; m[c] = k; }
    noteAt[b] = m;
  }
  const k = noteAt[b][i], a = B[b].notes;
  return k < 0 ? ["", ""] : [D.strings[a[k + 1]], D.strings[a[k + 2]]];
}

// the tree: family > operator > version > type; every node is a contiguous range of cases
const tree = [], nodes = new Map(), leaves = [], caseOp = new Uint32Array(N);
{
  let pos = 0;
  const add = (list, nd) => { list.push(nd); nodes.set(nd.key, nd); return nd; };
  for (const [op, ver, dt, n] of D.rows) {
    const fam = D.ops[op][2];
    let F = tree[tree.length - 1], O = F && F.kids[F.kids.length - 1], V = O && O.kids[O.kids.length - 1];
    if (!F || F.fam !== fam) F = add(tree, {level: 0, fam, key: "f" + fam, start: pos, kids: []});
    if (!O || O.up !== F || O.op !== op) {
      O = add(F.kids, {level: 1, op, key: F.key + "/o" + op, start: pos, kids: [], up: F});
    }
    if (!V || V.up !== O || V.ver !== ver) {
      V = add(O.kids, {level: 2, ver, key: O.key + "/v" + ver, start: pos, kids: [], up: O});
    }
    leaves.push(add(V.kids, {level: 3, dt, key: V.key + "/t" + dt, start: pos, end: pos + n, kids: null, up: V}));
    caseOp.fill(op, pos, pos + n);
    pos += n;
    F.end = O.end = V.end = pos;
  }
}
function leafOf(i) {  // the type row a case belongs to: the last leaf starting at or before it
  let lo = 0, hi = leaves.length - 1;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (leaves[mid].start <= i) lo = mid; else hi = mid - 1; }
  return leaves[lo];
}
const opName = (op) => (D.ops[op][1] ? D.ops[op][1] + "." : "") + D.ops[op][0];
const verName = (V) => opName(V.up.op) + (V.ver === null ? "" : "-" + V.ver);
function label(nd) {
  if (nd.level === 0) return D.families[nd.fam];
  if (nd.level === 1) return opName(nd.op);
  if (nd.level === 2) return verName(nd);
  return D.dtypes[nd.dt];
}
const toggle = (open) => `<button type="button" class="tog" aria-expanded="${open}">${open ? "▾" : "▸"}</button>`;
const path = (nd) => nd.level === 3 ? verName(nd.up) + " " + D.dtypes[nd.dt] : label(nd);

// state, and the cases the filters select
const state = {view: "table", expanded: new Set(), open: null, openDis: new Set(), show: B.map(() => true),
               status: "", dtype: -1, family: -1, op: ""};
const sel = new Uint8Array(N), memo = new Map();
const visible = () => B.map((_, b) => b).filter((b) => state.show[b]);
function applyFilters() {
  const vis = visible();
  let want = null;
  if (state.status) {
    want = new Uint8Array(NS + 1);
    if (state.status === "failing") D.failing.forEach((s) => { want[S.indexOf(s)] = 1; });
    else if (state.status === "not-pass") { for (let k = 0; k < NS; k++) if (k !== PASS) want[k] = 1; }
    else want[S.indexOf(state.status.slice(3))] = 1;
  }
  const text = state.op.trim().toLowerCase();
  for (const F of tree) for (const O of F.kids) {
    const ok = (state.family < 0 || F.fam === state.family) && (!text || opName(O.op).toLowerCase().includes(text));
    for (const V of O.kids) for (const L of V.kids) {
      const take = ok && (state.dtype < 0 || L.dt === state.dtype);
      for (let i = L.start; i < L.end; i++) {
        let s = take ? 1 : 0;
        if (s && want) { s = 0; for (const b of vis) if (want[st[b][i]]) { s = 1; break; } }
        sel[i] = s;
      }
    }
  }
  memo.clear();
}
function tally(nd) {  // selected cases in a node, and per backend a count per status
  let t = memo.get(nd.key);
  if (t) return t;
  const c = B.map(() => new Int32Array(NS + 1));
  let n = 0;
  for (let i = nd.start; i < nd.end; i++) if (sel[i]) { n++; for (let b = 0; b < NB; b++) c[b][st[b][i]]++; }
  memo.set(nd.key, t = {n, c});
  return t;
}

// the table
const board = document.getElementById("board"), thead = board.tHead, tbody = board.tBodies[0];
function head(vis) {
  thead.innerHTML = "<tr><th>family › operator › version › type</th>" + vis.map((b) => {
    const x = B[b], done = x.complete === null ? "" : x.complete ? "complete" : "INCOMPLETE";
    const tip = x.name + " " + x.version + "\ncorpus index " + x.index_sha256;
    return `<th data-b="${b}" title="${esc(tip)}"><b>${esc(x.name)}</b><small>${esc(x.version)}</small>` +
      `<small>index ${esc(x.index_sha256.slice(0, 12))}${done ? " · " + done : ""}</small></th>`;
  }).join("") + "</tr>";
}
function cell(c, b, nd) {
  let total = 0;
  for (let k = 0; k < NS; k++) total += c[k];
  if (!total) return `<td class="none" data-b="${b}" title="${esc(B[b].name)} ran none of these cases">–</td>`;
  let worst = 0;
  while (!c[worst]) worst++;
  const passed = PASS >= 0 ? c[PASS] : 0, parts = [];
  for (let k = 0; k < NS; k++) if (c[k]) parts.push(c[k] + " " + S[k]);
  const open = state.open && state.open.key === nd.key && state.open.b === b ? " open" : "";
  const focus = nd.level >= 2 ? ` tabindex="0"` : "";
  const tip = B[b].name + " · " + path(nd) + ": " + parts.join(", ");
  return `<td class="${cls(worst)}${open}" data-b="${b}"${focus} title="${esc(tip)}">` +
    `${passed}/${total} <small>${Math.floor(100 * passed / total)}%</small></td>`;
}
function casesRow(nd, b, span) {
  const list = [];
  for (let i = nd.start; i < nd.end; i++) if (sel[i] && st[b][i] !== NOT_RUN) list.push(i);
  list.sort((x, y) => st[b][x] - st[b][y] || x - y);
  const shown = state.open.all ? list : list.slice(0, LIMIT), x = B[b];
  const rows = shown.map((i) => {
    const [stage, detail] = note(b, i);
    return `<tr><td class="${cls(st[b][i])}">${esc(S[st[b][i]])}</td><td class="case">${esc(names[i])}</td>` +
      `<td>${esc(stage)}</td><td class="detail">${esc(detail)}</td>` +
      `<td><code>run-conformance --backend ${esc(x.command)} -k ${esc(names[i])}</code></td></tr>`;
  }).join("");
  const more = shown.length < list.length ? `<button type="button" class="more">show all ${list.length}</button>` : "";
  return `<tr class="cases"><td colspan="${span}"><div class="cases-box">` +
    `<div class="cases-head"><b>${esc(x.name)}</b> · ${esc(path(nd))}: ${list.length} cases, worst first ` +
    `<button type="button" class="close">close</button></div><table class="list"><thead><tr>` +
    `<th>status</th><th>case</th><th>stage</th><th>detail</th><th>reproduce</th></tr></thead>` +
    `<tbody>${rows}</tbody></table>${more}</div></td></tr>`;
}
function drawTable() {
  const vis = visible(), out = [];
  head(vis);
  const walk = (list) => {
    for (const nd of list) {
      const t = tally(nd);
      if (!t.n) continue;
      const open = nd.kids && state.expanded.has(nd.key);
      const tog = nd.kids ? toggle(open) : `<span class="tog"></span>`;
      out.push(`<tr class="l${nd.level}" data-key="${nd.key}" data-n="${t.n}"><th scope="row">${tog}` +
        `<span class="lbl">${esc(label(nd))}</span> ` +
        `<span class="n">${t.n}</span></th>` + vis.map((b) => cell(t.c[b], b, nd)).join("") + "</tr>");
      if (state.open && state.open.key === nd.key && state.show[state.open.b]) {
        out.push(casesRow(nd, state.open.b, vis.length + 1));
      }
      if (open) walk(nd.kids);
    }
  };
  walk(tree);
  const none = `<tr><td class="empty" colspan="${vis.length + 1}">No case matches the filters.</td></tr>`;
  tbody.innerHTML = out.join("") || none;
}
tbody.addEventListener("click", (ev) => {
  if (ev.target.closest(".close")) { state.open = null; return draw(); }
  if (ev.target.closest(".more")) { state.open.all = true; return draw(); }
  const tr = ev.target.closest("tr[data-key]");
  if (!tr) return;
  const nd = nodes.get(tr.dataset.key), td = ev.target.closest("td[data-b]");
  if (td && nd.level >= 2) {
    const b = +td.dataset.b, same = state.open && state.open.key === nd.key && state.open.b === b;
    state.open = same || td.classList.contains("none") ? null : {key: nd.key, b, all: false};
    return draw();
  }
  if (nd.kids) {
    if (state.expanded.has(nd.key)) state.expanded.delete(nd.key); else state.expanded.add(nd.key);
    draw();
  }
});

tbody.addEventListener("keydown", (ev) => {  // Enter or Space on a focused cell opens it, as a click does
  const td = ev.target.closest && ev.target.closest("td[data-b][tabindex]");
  if (!td || (ev.key !== "Enter" && ev.key !== " ")) return;
  ev.preventDefault();
  const key = td.parentNode.dataset.key, b = td.dataset.b;
  td.click();  // redraws the rows: focus the same cell again
  const again = tbody.querySelector(`tr[data-key="${key}"] > td[data-b="${b}"]`);
  if (again) again.focus();
});

// the disagreements
const dis = [], disWhy = D.disagree_why;
{ let c = 0; for (const d of D.disagree) { c += d; dis.push(c); } }
function drawDisagree() {
  const vis = visible(), groups = [];
  dis.forEach((i, k) => {
    if (!sel[i]) return;
    const g = groups[groups.length - 1];
    if (g && g.op === caseOp[i]) g.cases.push(k); else groups.push({op: caseOp[i], cases: [k]});
  });
  const out = [];
  for (const g of groups) {
    const open = state.openDis.has(g.op);
    out.push(`<div class="dgroup" data-op="${g.op}"><h3>${toggle(open)}<b>${esc(opName(g.op))}</b> ` +
      `<span class="fam">${esc(D.families[D.ops[g.op][2]])}</span> · ${g.cases.length} cases</h3>`);
    if (open) {
      out.push(`<table class="list"><thead><tr><th>case</th><th>version</th><th>type</th>` +
        vis.map((b) => `<th>${esc(B[b].name)}</th>`).join("") + `</tr></thead><tbody>`);
      for (const k of g.cases) {
        const i = dis[k], L = leafOf(i), why = disWhy[k] === "n" ? " <small>(all fail, different numbers)</small>" : "";
        out.push(`<tr><td class="case">${esc(names[i])}${why}</td>` +
          `<td>${esc(verName(L.up))}</td><td>${esc(D.dtypes[L.dt])}</td>` + vis.map((b) => {
            const s = st[b][i];
            if (s === NOT_RUN) return `<td class="none">–</td>`;
            const detail = s === PASS ? "" : note(b, i)[1];
            const short = detail.length > 90 ? detail.slice(0, 89) + "…" : detail;
            const small = short ? `<small>${esc(short)}</small>` : "";
            return `<td class="${cls(s)}" title="${esc(detail)}">${esc(S[s])}${small}</td>`;
          }).join("") + "</tr>");
      }
      out.push("</tbody></table>");
    }
    out.push("</div>");
  }
  const shown = groups.reduce((n, g) => n + g.cases.length, 0);
  const count = shown === dis.length ? dis.length : shown + " of " + dis.length;
  document.getElementById("tab-disagree").textContent = `Disagreements (${count})`;
  document.getElementById("disagree").innerHTML =
    out.join("") || `<p class="empty">No disagreement among the selected cases.</p>`;
}
document.getElementById("disagree").addEventListener("click", (ev) => {
  const h = ev.target.closest(".dgroup h3");
  if (!h) return;
  const op = +h.parentNode.dataset.op;
  if (state.openDis.has(op)) state.openDis.delete(op); else state.openDis.add(op);
  drawDisagree();
});

// controls
function draw() {
  document.getElementById("view-table").hidden = state.view !== "table";
  document.getElementById("view-disagree").hidden = state.view !== "disagree";
  document.getElementById("tab-table").classList.toggle("on", state.view === "table");
  document.getElementById("tab-disagree").classList.toggle("on", state.view === "disagree");
  drawDisagree();  // also keeps the tab's count in step with the filters
  if (state.view === "table") drawTable();
}
const refilter = () => { applyFilters(); draw(); };
const on = (id, event, act) => document.getElementById(id).addEventListener(event, act);
on("tab-table", "click", () => { state.view = "table"; draw(); });
on("tab-disagree", "click", () => { state.view = "disagree"; draw(); });
on("f-backends", "change", (ev) => { state.show[+ev.target.value] = ev.target.checked; refilter(); });
on("f-status", "change", (ev) => { state.status = ev.target.value; refilter(); });
on("f-dtype", "change", (ev) => { state.dtype = +ev.target.value; refilter(); });
on("f-family", "change", (ev) => { state.family = +ev.target.value; refilter(); });
on("f-op", "input", (ev) => { state.op = ev.target.value; refilter(); });
// a reload keeps the browser's remembered form values: start from them
for (const box of document.querySelectorAll("#f-backends input")) state.show[+box.value] = box.checked;
state.status = document.getElementById("f-status").value;
state.dtype = +document.getElementById("f-dtype").value;
state.family = +document.getElementById("f-family").value;
state.op = document.getElementById("f-op").value;
refilter();
document.body.dataset.readyMs = performance.now().toFixed(1);
document.body.dataset.ready = "1";
})();
"""


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
