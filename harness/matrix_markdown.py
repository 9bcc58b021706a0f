"""matrix.md: the matrix as Markdown that fits a pull-request comment at any corpus size (folded, then cut,
saying how much and where the rest is)."""

from __future__ import annotations

from onnx_conformance.harness.families import family_key
from onnx_conformance.harness.matrix import (grouped_failures, incomplete_note, one_line, plural, rank, ran_at_text,
                                             run_facts, version_label)
from onnx_conformance.harness.statuses import FAILING, MARK, SEVERITY

# GitHub rejects comments over 65,536 characters; counting UTF-8 bytes keeps under that limit however
# the emoji are counted (code points, UTF-16 units or bytes), with a margin.
MARKDOWN_BUDGET = 60_000
MARKDOWN_FAILURES = 50


def render_markdown(matrix: dict, full_report: str = "matrix.html") -> str:
    """Fits a pull-request comment at any corpus size: one line per family, then only the cells that are
    not all passing, folded and finally cut (saying how much, and where the rest is) until it fits."""
    facts = dict(run_facts(matrix["run"]))
    title = " ".join(v for v in (facts.get("backend"), facts.get("backend version")) if v) or "unknown backend"
    head = [f"## ONNX conformance: {_md(title)}", ""]
    note = incomplete_note(matrix)
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
    head += ["Each cell: type, the worst status's mark, passed/total (and the opsets its cases ran at, where any "
             "ran below its own: the opset ceiling above). Marks: " + " ".join(f"{m} {s}" for s, m in MARK.items()), ""]
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
            parts = [f"{_md(c)} {MARK.get(cell['worst'], '?')} {cell['passed']}/{cell['total']}{_ran_at(cell)}"
                     for c, cell in named]
            if level != "cells":
                others: dict[str, int] = {}
                for cell in row["cells"].values():
                    if cell["worst"] != "pass" and not _is_failing(cell["worst"]):
                        others[cell["worst"]] = others.get(cell["worst"], 0) + 1
                parts += [f"{MARK[s]} {s}: {plural(n, 'type')}"
                          for s, n in sorted(others.items(), key=lambda kv: rank(kv[0]))]
            lines.append(f"- {_md(version_label(row))}: " + " · ".join(parts))
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


def _markdown_failures(matrix: dict, limit: int = MARKDOWN_FAILURES) -> list[str]:
    failures = matrix["failures"]
    if not failures:
        return ["No failing cases."]
    groups = grouped_failures(failures)
    lines = [f"<details><summary>Failing cases ({len(failures)}; same reasons folded)</summary>", ""]
    for f, n in groups[:limit]:
        stage = f" ({f['stage']})" if f.get("stage") else ""
        also = f" and {n - 1} more" if n > 1 else ""
        at = f" at opset {f['ran_opset']}" if f.get("ran_opset") else ""
        lines.append(
            f"- {MARK.get(f['status'], '?')} **{f['status']}**{stage} `{f['case']}`{at}{also}: "
            f"{_md(one_line(f.get('detail'), 240))}"
        )
    if len(groups) > limit:
        rest = sum(n for _, n in groups[limit:])
        lines.append(f"- … and {rest} more in matrix.html")
    return [*lines, "", "</details>"]


def _ran_at(cell: dict) -> str:
    text = ran_at_text(cell)
    return f" ({text})" if text else ""


def _md(text: str) -> str:
    """Plain text that Markdown (and the HTML GitHub allows in it) shows as written."""
    for ch in "\\`*_[]|":
        text = str(text).replace(ch, "\\" + ch)
    return text.replace("<", "&lt;").replace(">", "&gt;")
