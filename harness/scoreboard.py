"""update-scoreboard: run every backend over the corpus, then write reports/README.md and reports/DISAGREEMENTS.md."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from onnx_conformance.harness import compare_reports
from onnx_conformance.harness.reports import SEVERITY
from onnx_conformance.harness.results import read_json, read_results

REPORTS = Path("reports")
# The backends the committed scoreboard covers; each needs its extra installed (README).
BACKENDS = ("onnxruntime", "reference", "openvino", "tract", "torch", "iree")


def run_backend(name: str, workers: str, extra: list[str]) -> int:
    report = REPORTS / name
    cmd = [sys.executable, "-m", "onnx_conformance.harness.cli", "--backend", name, "--report-dir", str(report),
           "--expectations", str(report / "expectations.txt"), "--update-expectations", "-q", "-rN"]
    if workers != "0":
        cmd += ["-n", workers]
    print(f"update-scoreboard: {' '.join(cmd[2:])}", flush=True)
    return subprocess.run(cmd + extra).returncode


def write_scoreboard(names: list[str]) -> None:
    present = [n for n in names if (REPORTS / n / "results.jsonl").is_file()]
    runs = {n: read_json(REPORTS / n / "run.json") or {} for n in present}
    results = {n: read_results(REPORTS / n / "results.jsonl")[0] for n in present}
    (REPORTS / "README.md").write_text(scoreboard_markdown(present, runs, results), encoding="utf-8")
    if len(present) >= 2:
        reports = [compare_reports.load(REPORTS / n) for n in present]
        rows = compare_reports.disagreements(reports)
        text = compare_reports.markdown([label for label, _ in reports], rows)
        (REPORTS / "DISAGREEMENTS.md").write_text(text, encoding="utf-8")


def scoreboard_markdown(names: list[str], runs: dict, results: dict) -> str:
    out = ["# Scoreboard", "",
           "Every backend over the project's corpus (`cases/`). Regenerate all of it with `update-scoreboard`",
           "(README: Scoreboard). Per backend: `reports/<backend>/matrix.html` (operator x version x dtype),",
           "`results.jsonl` (one line per case), `expectations.txt` (its baseline). Where they differ:",
           "[DISAGREEMENTS.md](DISAGREEMENTS.md); the findings worth a bug report: [FINDINGS.md](FINDINGS.md).", ""]
    out += ["| backend | version | corpus index | complete | " + " | ".join(SEVERITY) + " |",
            "|---|---|---|---|" + "---:|" * len(SEVERITY)]
    for n in names:
        run = runs[n]
        counts = {s: 0 for s in SEVERITY}
        for r in results[n]:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
        index = ((run.get("corpus") or {}).get("index_sha256") or "")[:12]
        out.append(f"| {n} | {(run.get('backend') or {}).get('version', '')} | `{index}` | "
                   f"{'yes' if run.get('complete') else 'NO'} | " + " | ".join(str(counts[s]) for s in SEVERITY) + " |")
    out += ["", "## Passed / run, per operator version", "",
            "| operator | since | " + " | ".join(names) + " |",
            "|---|---:|" + "---|" * len(names)]
    keys = sorted({(r.get("op") or "", r.get("since_version") or 0) for n in names for r in results[n]})
    tallies = {n: {} for n in names}
    for n in names:
        for r in results[n]:
            t = tallies[n].setdefault((r.get("op") or "", r.get("since_version") or 0), [0, 0])
            t[0] += r["status"] == "pass"
            t[1] += 1
    for key in keys:
        cells = [f"{tallies[n][key][0]}/{tallies[n][key][1]}" if key in tallies[n] else "" for n in names]
        out.append(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="update-scoreboard", description=__doc__)
    p.add_argument("--backend", action="append", help=f"only this backend (repeatable; default: {', '.join(BACKENDS)})")
    p.add_argument("-n", default="2", help="pytest-xdist workers per run (0: none)")
    p.add_argument("--no-run", action="store_true", help="only rewrite README.md and DISAGREEMENTS.md from the reports")
    p.add_argument("extra", nargs="*", help="after --: passed to every run-conformance (e.g. -k EXPR)")
    a = p.parse_args(argv)
    names = a.backend or list(BACKENDS)
    failed = []
    if not a.no_run:
        for name in names:
            rc = run_backend(name, a.n, a.extra)
            if rc == 2:  # the backend could not be loaded (extra not installed): say so, keep the others
                failed.append(name)
    # The table always covers every committed report, not only the backends just rerun.
    write_scoreboard(list(BACKENDS) + [n for n in names if n not in BACKENDS])
    for name in failed:
        print(f"update-scoreboard: {name} did not run (is its extra installed? pip install -e '.[{name}]')")
    print(f"update-scoreboard: wrote {REPORTS / 'README.md'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
