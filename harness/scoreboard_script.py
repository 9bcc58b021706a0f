"""The scoreboard page's JavaScript, inlined into reports/index.html by scoreboard_page.py."""

# The page's script: decodes the data block, keeps the filter state, and draws only what is open.
SCRIPT = r"""
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
function head(vis) {  // two lines a column: the name, and the version cut to the column (whole on hover)
  thead.innerHTML = "<tr><th>family › operator › version › type</th>" + vis.map((b) => {
    const x = B[b], done = x.complete === null ? "" : x.complete ? "complete" : "INCOMPLETE";
    const tip = x.name + " " + x.version + "\ncorpus index " + x.index_sha256 + (done ? "\nrun " + done : "");
    const warn = x.complete === false ? `<small class="no">INCOMPLETE</small>` : "";
    return `<th data-b="${b}" title="${esc(tip)}"><b>${esc(x.name)}</b><small>${esc(x.version)}</small>${warn}</th>`;
  }).join("") + "</tr>";
}
// which statuses count as passing, are declined (coverage, not failure), or mark a cell
const flags = (list) => { const a = new Uint8Array(NS + 1); for (const s of list) a[S.indexOf(s)] = 1; return a; };
const GOOD = flags(D.counts_as_pass), DECLINED = flags(D.declined), MARKED = flags(D.marked);
const PASSING = D.counts_as_pass.join(" or ");
function cell(c, b, nd) {
  let recorded = 0, ran = 0, good = 0;
  for (let k = 0; k < NS; k++) {
    recorded += c[k];
    if (!DECLINED[k]) ran += c[k];
    if (GOOD[k]) good += c[k];
  }
  const where = B[b].name + " · " + path(nd);
  if (!recorded) return `<td class="none" data-b="${b}" title="${esc(where)}: not in its report">–</td>`;
  let worst = -1;  // the worst among the cases run; where none ran, among those declined
  for (let k = 0; k < NS && worst < 0; k++) if (c[k] && !DECLINED[k]) worst = k;
  for (let k = 0; k < NS && worst < 0; k++) if (c[k]) worst = k;
  const parts = [];
  for (let k = 0; k < NS; k++) if (c[k]) parts.push(c[k] + " " + S[k]);
  const open = state.open && state.open.key === nd.key && state.open.b === b ? " open" : "";
  const focus = nd.level >= 2 ? ` tabindex="0"` : "";
  const pct = ran ? Math.floor(100 * good / ran) : 0;
  const tip = where + "\n" + (ran ? `${good} of ${ran} run ${PASSING} (${pct}%), worst: ${S[worst]}` :
    `ran none of ${recorded}: all declined, worst: ${S[worst]}`) +
    `\nran ${ran} of ${recorded} (coverage ${Math.floor(100 * ran / recorded)}%)\n` + parts.join(", ");
  if (!ran) return `<td class="declined${open}" data-b="${b}"${focus} title="${esc(tip)}">–</td>`;
  const mark = MARKED[worst] ? `<i class="mk ${cls(worst)}"></i>` : "";
  const off = recorded - ran, cov = off ? `<i class="cov" style="width:${Math.ceil(100 * off / recorded)}%"></i>` : "";
  return `<td class="h${pct}${open}" data-b="${b}"${focus} title="${esc(tip)}">${mark}${pct}%${cov}</td>`;
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
