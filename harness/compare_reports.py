"""compare-reports: the cases on which backends' statuses or numbers differ, grouped by operator, version, dtype."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from onnx_conformance.harness.matrix import one_line
from onnx_conformance.harness.results import read_json, read_results
# The backend did not try: not counted as disagreeing.
from onnx_conformance.harness.statuses import DECLINED

# Two failing answers "differ in numbers" when their largest errors are further apart than this.
NUMBERS_RTOL = 1e-6


def load(report_dir: Path) -> tuple[str, dict[str, dict]]:
    """(label 'backend version', case -> result) of one report directory."""
    results, _ = read_results(report_dir / "results.jsonl")
    if not results:
        raise FileNotFoundError(f"{report_dir}: no results.jsonl with results")
    run = read_json(report_dir / "run.json") or {}
    backend = run.get("backend") or {}
    # the options too: one backend's two runs (onnxruntime with its optimizer off) are two columns
    options = [f"{k}={v}" for k, v in sorted((backend.get("options") or {}).items())]
    label = " ".join(str(x) for x in (backend.get("name") or report_dir.name, backend.get("version"), *options) if x)
    return label, {r["case"]: r for r in results}


def of_forms(reports: list[tuple[str, dict[str, dict]]], forms: list[str]) -> list[tuple[str, dict[str, dict]]]:
    """Each report's results of the cases of these forms alone (`pattern`, `model`; `node`: a single node's)."""
    return [(label, {c: r for c, r in results.items() if (r.get("form") or "node") in forms})
            for label, results in reports]


def disagreements(reports: list[tuple[str, dict[str, dict]]]) -> list[dict]:
    """One row per case seen by two or more backends whose statuses, or failing numbers, differ."""
    cases = sorted(set().union(*(set(r) for _, r in reports)))
    rows = []
    for case in cases:
        seen = [(label, r[case]) for label, r in reports if case in r]
        if len(seen) < 2:
            continue
        statuses = {res["status"] for _, res in seen}
        why = None
        if len(statuses) > 1:
            why = "status"
        elif statuses == {"fail"} and _numbers_differ([res.get("max_abs_err") for _, res in seen]):
            why = "numbers"
        if why:
            first = seen[0][1]
            rows.append({
                "case": case, "op": first.get("op"), "since_version": first.get("since_version"),
                "dtype": first.get("dtype"), "example": first.get("example"), "kind": first.get("kind"),
                "differs_in": why,
                "results": {label: {"status": res["status"], "detail": one_line(res.get("detail"), 160),
                                    "max_abs_err": res.get("max_abs_err")} for label, res in seen},
            })
    return rows


def _numbers_differ(values: list) -> bool:
    nums = [float(v) for v in values if isinstance(v, (int, float))]
    if len(nums) < 2:
        return False
    lo, hi = min(nums), max(nums)
    return hi - lo > NUMBERS_RTOL * max(abs(hi), abs(lo), 1e-30)


def answered_differently(row: dict) -> bool:
    """True unless the only difference is that some backends declined (unsupported/skip) the case."""
    return len({r["status"] for r in row["results"].values() if r["status"] not in DECLINED}) > 1 \
        or row["differs_in"] == "numbers"


def markdown(labels: list[str], rows: list[dict], command: str = "compare-reports", compared: int | None = None,
             each_declined: bool = False) -> str:
    """Every differing case with each report's status and detail; those some declined, as counts per operator,
    version and dtype (each_declined: each case too). `command`: the line that wrote it, said in the text so
    the file says how to regenerate it; `compared`: how many cases were in every report."""
    answered = [r for r in rows if answered_differently(r)]
    declined = [r for r in rows if not answered_differently(r)]
    out = [f"# Where backends disagree: {', '.join(labels)}", "",
           f"Written by `{command}`. A case is listed when two or more backends ran it and their statuses",
           "differ, or all failed with different numbers; grouped by operator (a graph's pattern or model), version "
           "and dtype.", "",
           *([f"Cases in every report: {compared}."] if compared is not None else []),
           f"Cases that differ: {len(rows)}. Answered differently: {len(answered)}. "
           f"Declined by some backends and answered by others: {len(declined)}.", "",
           "## Answered differently", ""]
    out += _case_tables(labels, answered)
    if each_declined:
        return "\n".join(out + ["## Declined by some backends, answered by others", "", *_case_tables(labels, declined)])
    out += ["## Declined by some backends", "",
            "| operator | since | dtype | cases | " + " | ".join(f"{label} declined" for label in labels) + " |",
            "|---|---:|---|---:|" + "---:|" * len(labels)]
    for (op, since, dtype), members in _grouped(declined):
        counts = [sum(1 for r in members if r["results"].get(label, {}).get("status") in DECLINED) for label in labels]
        out.append(f"| {op} | {since} | {dtype} | {len(members)} | " + " | ".join(map(str, counts)) + " |")
    return "\n".join(out) + "\n"


def _case_tables(labels: list[str], rows: list[dict]) -> list[str]:
    """A table per operator, version and dtype: each case, each report's status and (unless pass) its detail."""
    out = []
    for (op, since, dtype), members in _grouped(rows):
        out += [f"### {op}-{since} {dtype} ({len(members)})" if since else f"### {op} {dtype} ({len(members)})", "",
                "| case | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
        for r in members:
            cells = []
            for label in labels:
                res = r["results"].get(label)
                cells.append("" if res is None else
                             f"{res['status']}" + (f": {_cell(res['detail'])}" if res["status"] != "pass" else ""))
            out.append(f"| `{r['case']}` | " + " | ".join(cells) + " |")
        out.append("")
    return out


def summary_markdown(labels: list[str], rows: list[dict]) -> str:
    """The same cases folded to one line per (operator, version, dtype): how many differ, each backend's
    statuses over them, and one case to start from. What the committed scoreboard keeps; every case
    with its details is in `compare-reports` without --summary and in reports/index.html."""
    answered = [r for r in rows if answered_differently(r)]
    declined = len(rows) - len(answered)
    out = [f"# Where backends disagree: {', '.join(labels)}", "",
           "Written by `compare-reports --summary`. A case counts when two or more backends ran it and their",
           "statuses differ, or all failed with different numbers. One line per operator, version and dtype:",
           "each backend's statuses over those cases, and one case to start from (`run-conformance --backend",
           "NAME -k CASE`). Every case with each backend's detail: the Disagreements view of",
           "[index.html](index.html), or `compare-reports reports/<backend> ...` without `--summary`.", "",
           f"Cases that differ: {len(rows)}. Answered differently: {len(answered)}. "
           f"Declined by some backends and answered by others: {declined} (not listed).", "",
           "| operator | since | dtype | cases | " + " | ".join(labels) + " | for example |",
           "|---|---:|---|---:|" + "---|" * len(labels) + "---|"]
    for (op, since, dtype), members in _grouped(answered):
        cells = []
        for label in labels:
            tally: dict[str, int] = {}
            for r in members:
                status = r["results"].get(label, {}).get("status")
                if status:
                    tally[status] = tally.get(status, 0) + 1
            cells.append(", ".join(f"{s} {n}" for s, n in sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))))
        out.append(f"| {op} | {since} | {dtype} | {len(members)} | " + " | ".join(cells) + f" | `{members[0]['case']}` |")
    return "\n".join(out) + "\n"


def _grouped(rows: list[dict]) -> list[tuple[tuple, list[dict]]]:
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["op"] or "", r["since_version"] or 0, r["dtype"] or ""), []).append(r)
    return sorted(groups.items())


def _cell(text: str) -> str:
    return text.replace("|", "/")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="compare-reports", description=__doc__)
    p.add_argument("report_dirs", nargs="+", type=Path, help="run-conformance report directories")
    p.add_argument("--out", type=Path, help="write Markdown here (default: stdout)")
    p.add_argument("--json", action="store_true", help="JSON instead of Markdown")
    p.add_argument("--summary", action="store_true",
                   help="one line per operator, version and dtype instead of every case (what reports/ keeps)")
    p.add_argument("--form", action="append", choices=("node", "pattern", "model"),
                   help="only cases of this form (repeatable): node (one operator), pattern, model")
    p.add_argument("--each-declined", action="store_true",
                   help="list each case some declined and others answered, with its details, not counts per operator")
    a = p.parse_args(argv)
    if len(a.report_dirs) < 2:
        print("compare-reports: give two or more report directories", file=sys.stderr)
        return 2
    try:
        reports = [load(d) for d in a.report_dirs]
    except FileNotFoundError as e:
        print(f"compare-reports: {e}", file=sys.stderr)
        return 2
    if a.form:
        reports = of_forms(reports, a.form)
    rows = disagreements(reports)
    labels = [label for label, _ in reports]
    if a.json:
        text = json.dumps(rows, indent=1, sort_keys=True) + "\n"
    elif a.summary:
        text = summary_markdown(labels, rows)
    else:
        # what writes this text (where it goes aside), so the file says how to regenerate it
        command = " ".join(["compare-reports", *map(str, a.report_dirs), *(f"--form {f}" for f in a.form or ()),
                            *(["--each-declined"] if a.each_declined else [])])
        text = markdown(labels, rows, command, len(set.intersection(*(set(r) for _, r in reports))), a.each_declined)
    if a.out:
        a.out.write_text(text, encoding="utf-8")
        print(f"compare-reports: {len(rows)} cases differ; wrote {a.out}")
    else:
        sys.stdout.write(text)
    return 0



if __name__ == "__main__":
    sys.exit(main())
