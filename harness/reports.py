"""What a run's end writes from its results: the conformance matrices (matrix.json, matrix.md,
matrix.html) in a report directory, and the terminal summary."""

from __future__ import annotations

import json
from pathlib import Path

from onnx_conformance.harness.matrix import build_matrix, failing_results, grouped_failures, one_line, ranked
from onnx_conformance.harness.matrix_html import render_html
from onnx_conformance.harness.matrix_markdown import render_markdown

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
    groups = grouped_failures(failing_results(results))
    for r, n in groups[:TERMINAL_FAILURES]:
        also = f" (+{n - 1} more with the same reason)" if n > 1 else ""
        lines.append(f"  {r['status']:<7} {r['case']}{_stage(r)}{also}: {one_line(r.get('detail'), 200)}")
    if len(groups) > TERMINAL_FAILURES:
        rest = sum(n for _, n in groups[TERMINAL_FAILURES:])
        lines.append(f"  ... and {rest} more failing cases (matrix.html lists them all)")
    return lines


def gate_advice(verdict, *, first_run: bool, folded: bool, report_dir, baseline_command: str) -> list[str]:
    """What the gate's summary adds for a person (`verdict`: an expectations.Verdict). A first run (no
    baseline): where the reports are, that its failures' blocks were left out (`folded`), and how to record
    a baseline. Against one: the regressions counted by change of status, and where they are all one
    change (an adapter's classify now declining what it called an error), the command that refreshes it."""
    if first_run:
        lines = [f"reports in {report_dir}: matrix.md (fits a pull-request comment), matrix.html (every "
                 f"failing case), results.jsonl (every case), junit.xml"]
        if folded and verdict.regressions:
            lines.append(f"no baseline (--expectations): the {len(verdict.regressions)} cases that fail, error, "
                         f"crash or time out fail the gate; their FAILED blocks are left out "
                         f"(-v, -r or --tb shows them)")
        lines.append(f"record this run as the baseline, so that later runs fail only on a change: {baseline_command}")
        return lines
    n = len(verdict.regressions)
    if n < 2:
        return []
    lines = [f"regressions by change of status: {verdict.changes_text()}"]
    change = verdict.one_change()
    if change is not None:
        lines.append(f"all {n} regressions are one change of status, {change[0]} -> {change[1]}, as a change to the "
                     f"adapter (its classify, its capabilities) makes; if it is meant, refresh the baseline: "
                     f"{baseline_command}")
    return lines


def _tally(results: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in results:
        status = r.get("status") or "error"
        counts[status] = counts.get(status, 0) + 1
    return ranked(counts)


def _summary_text(tally: dict[str, int]) -> str:
    return ", ".join(f"{n} {s}" for s, n in tally.items())


def _stage(r: dict) -> str:
    return f" [{r['stage']}]" if r.get("stage") else ""
