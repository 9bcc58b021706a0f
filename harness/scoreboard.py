"""update-scoreboard: run every backend over the corpus, then write the committed scoreboard.

Per backend, reports/<backend>/: results.jsonl.gz (every case's record, sorted, gzip without a
timestamp), run.json, expectations.txt (its baseline) and matrix.md are committed; results.jsonl,
junit.xml, matrix.json and matrix.html are written there too but not committed (--no-run rewrites
the matrices from results.jsonl.gz). Across backends: reports/README.md (the table),
reports/DISAGREEMENTS.md (one line per operator, version and dtype) and reports/index.html.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from onnx_conformance.harness import compare_reports
from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.families import family_key, family_of
from onnx_conformance.harness.reports import write_matrices
from onnx_conformance.harness.results import RESULTS, RUN, pack_results, read_json, read_results
from onnx_conformance.harness.scoreboard_page import write_index
from onnx_conformance.harness.splice import SpliceError, missing, splice, subset
from onnx_conformance.harness.statuses import SEVERITY

REPORTS = Path("reports")
CASES = Path("cases")
SAMPLE = Path("build") / "sample-cells"
# The backends the committed scoreboard covers, from each adapter module's SCOREBOARD; each needs its
# extra installed (README).
_ON_THE_SCOREBOARD = registry.scoreboard_backends()
BACKENDS = tuple(_ON_THE_SCOREBOARD)
# Backends the scoreboard runs on one case per cell (sample_cells) instead of every case, and why.
SAMPLED = {name: facts["sampled"] for name, facts in _ON_THE_SCOREBOARD.items() if facts.get("sampled")}


def cell_keys(entry: dict) -> set[tuple]:
    """The (form, domain, operator, version, type parameter, type) cells one index entry counts in: an
    operator's function-expanded twins (form "expanded") are cells of their own beside its node cases."""
    base = (entry.get("form") or "", entry.get("domain") or "", entry.get("op"), entry.get("since_version"))
    keys = {(*base, param, t) for param, t in (entry.get("types") or {}).items()}
    return keys or {(*base, None, entry.get("dtype"))}


def sample_cells(cases: Path, out: Path) -> int:
    """Copy into `out` a corpus with the fewest cases, in name order, that still touch every cell of
    `cases` (every type of every type parameter of every operator version); returns how many."""
    index = json.loads((cases / "index.json").read_text(encoding="utf-8"))
    covered: set[tuple] = set()
    chosen = {}
    for name in sorted(index["cases"]):
        keys = cell_keys(index["cases"][name])
        if not keys <= covered:
            covered |= keys
            chosen[name] = index["cases"][name]
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name, entry in chosen.items():
        where = "graph" if entry.get("form") else "node"  # a pattern's or model's case lies under graph/
        shutil.copytree(cases / where / name, out / where / name)
    sample = {k: v for k, v in index.items() if k != "cases"}
    sample["cases"] = chosen
    (out / "index.json").write_text(json.dumps(sample, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return len(chosen)


def run_backend(name: str, workers: str, extra: list[str], into: Path | None = None) -> tuple[int, float]:
    """One run-conformance over the corpus (or its cell sample), its baseline rewritten; (exit code, seconds).
    `into`: the report directory, where not the committed one (a selection to splice): the run then
    rewrites a copy of the baseline there, which splice() merges back."""
    report = REPORTS / name
    expectations = report / "expectations.txt"
    if into is not None:
        into.mkdir(parents=True, exist_ok=True)
        expectations = Path(shutil.copy(expectations, into / "expectations.txt"))
    cmd = [sys.executable, "-m", "onnx_conformance.harness.cli", "--backend", name, "--report-dir",
           str(into or report), "--expectations", str(expectations), "--update-expectations", "-q", "-rN"]
    if name in SAMPLED:
        n = sample_cells(CASES, SAMPLE)
        print(f"update-scoreboard: {name} runs one case per cell ({n} cases in {SAMPLE}): {SAMPLED[name]}")
        cmd += ["--cases", str(SAMPLE)]
    if workers != "0":
        cmd += ["-n", workers]
    print(f"update-scoreboard: {' '.join(cmd[2:])}", flush=True)
    started = time.perf_counter()
    rc = subprocess.run(cmd + extra).returncode
    return rc, time.perf_counter() - started


def commit_form(name: str) -> None:
    """What the repository keeps of one backend's report: the results compressed, the matrices re-rendered."""
    report = REPORTS / name
    if (report / RESULTS).is_file():
        pack_results(report / RESULTS)
    results, _ = read_results(report / RESULTS)
    run = read_json(report / RUN)
    if results and run is not None:
        write_matrices(results, run, report)


def write_scoreboard(names: list[str]) -> None:
    present = [n for n in names if read_json(REPORTS / n / RUN) is not None and
               ((REPORTS / n / RESULTS).is_file() or (REPORTS / n / (RESULTS + ".gz")).is_file())]
    runs = {n: read_json(REPORTS / n / RUN) or {} for n in present}
    results = {n: read_results(REPORTS / n / RESULTS)[0] for n in present}
    (REPORTS / "README.md").write_text(scoreboard_markdown(present, runs, results), encoding="utf-8")
    if len(present) >= 2:
        reports = [compare_reports.load(REPORTS / n) for n in present]
        rows = compare_reports.disagreements(reports)
        text = compare_reports.summary_markdown([label for label, _ in reports], rows)
        (REPORTS / "DISAGREEMENTS.md").write_text(text, encoding="utf-8")
    if present:
        write_index(REPORTS, present)


def scoreboard_markdown(names: list[str], runs: dict, results: dict) -> str:
    out = ["# Scoreboard", "",
           "Every backend over the project's corpus (`cases/`). Regenerate all of it with `update-scoreboard`",
           "(README: Scoreboard). Open [index.html](index.html) (one offline file) to browse every backend side by",
           "side down to each case. Per backend, `reports/<backend>/`: `results.jsonl.gz` (every case's record),",
           "`expectations.txt` (its baseline), `run.json` and `matrix.md`; `update-scoreboard --no-run` writes",
           "`matrix.html` and `matrix.json` there from those. Where backends differ: [DISAGREEMENTS.md](DISAGREEMENTS.md);",
           "the findings worth a bug report: [FINDINGS.md](FINDINGS.md).", ""]
    out += ["| backend | version | corpus | cases | complete | " + " | ".join(SEVERITY) + " |",
            "|---|---|---|---:|---|" + "---:|" * len(SEVERITY)]
    for n in names:
        run = runs[n]
        counts = {s: 0 for s in SEVERITY}
        for r in results[n]:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
        corpus = run.get("corpus") or {}
        scope = f"`{(corpus.get('index_sha256') or '')[:12]}`"
        if n in SAMPLED:
            scope += " (one case per cell)"
        out.append(f"| {n} | {(run.get('backend') or {}).get('version', '')} | {scope} | {len(results[n])} | "
                   f"{'yes' if run.get('complete') else 'NO'} | " + " | ".join(str(counts[s]) for s in SEVERITY) + " |")
    sampled = [n for n in names if n in SAMPLED]
    for n in sampled:
        out += ["", f"{n} runs the fewest cases that still touch every cell (every type of every type parameter "
                    f"of every operator version), not every case: {SAMPLED[n]}."]
    tallies = {n: {} for n in names}
    for n in names:
        for r in results[n]:
            key = (family_of(r.get("op"), r.get("domain"), r.get("form")), r.get("op") or "", r.get("since_version") or 0)
            t = tallies[n].setdefault(key, [0, 0])
            t[0] += r["status"] == "pass"
            t[1] += 1
    keys = sorted({k for n in names for k in tallies[n]}, key=lambda k: (family_key(k[0]), k[1], k[2]))
    families = sorted({k[0] for k in keys}, key=family_key)

    def rate(pairs: list) -> str:
        passed, run = sum(p for p, _ in pairs), sum(r for _, r in pairs)
        return f"{passed}/{run} ({100 * passed / run:.0f}%)" if run else ""

    out += ["", "## Passed / run, per family", "", "| family | " + " | ".join(names) + " |",
            "|---|" + "---:|" * len(names)]
    for fam in families:
        out.append(f"| {fam} | " + " | ".join(
            rate([v for k, v in tallies[n].items() if k[0] == fam]) for n in names) + " |")
    out += ["", "## Passed / run, per operator version"]
    for fam in families:
        out += ["", f"### {fam}", "", "| operator | since | " + " | ".join(names) + " |",
                "|---|---:|" + "---|" * len(names)]
        for key in (k for k in keys if k[0] == fam):
            cells = [f"{tallies[n][key][0]}/{tallies[n][key][1]}" if key in tallies[n] else "" for n in names]
            out.append(f"| {key[1]} | {key[2]} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="update-scoreboard", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", action="append", help=f"only this backend (repeatable; default: {', '.join(BACKENDS)})")
    p.add_argument("-n", default="2", help="workers per run (0: none)")
    p.add_argument("--no-run", action="store_true",
                   help="run nothing: re-pack and re-render the committed reports, README.md, DISAGREEMENTS.md, index.html")
    p.add_argument("--splice", action="store_true",
                   help="run only the selection given after -- (--op, -k) and splice its records into the committed "
                        "report (harness/splice.py): for cases that changed, without re-running the corpus")
    p.add_argument("--splice-new", action="store_true",
                   help="run only the cases of the corpus each committed report has no record of (cases new since its "
                        "run) and splice them in, as --splice does")
    p.add_argument("extra", nargs="*", help="after --: passed to every run-conformance (e.g. -k EXPR)")
    a = p.parse_args(argv)
    if a.splice and (a.no_run or not a.extra):
        p.error("--splice needs a selection after -- (--op OP, -k EXPR) and runs it")
    if a.splice_new and (a.no_run or a.splice):
        p.error("--splice-new runs the new cases: not with --no-run or --splice")
    names = a.backend or list(BACKENDS)
    failed, timings = [], []
    for name in names:
        if not a.no_run:
            with tempfile.TemporaryDirectory(prefix=f"splice-{name}-") as tmp:
                extra = a.extra
                if a.splice_new:
                    if name in SAMPLED:  # the sample of today's corpus, not whatever build/ holds from an older one
                        sample_cells(CASES, SAMPLE)
                    corpus = SAMPLE if name in SAMPLED else CASES
                    new = missing(REPORTS / name, corpus)
                    print(f"update-scoreboard: {name}: {len(new)} cases of {corpus} have no record in {REPORTS / name}")
                    if not new:
                        continue
                    extra = [*a.extra, "--cases", str(subset(corpus, new, Path(tmp) / "cases"))]
                rc, seconds = run_backend(name, a.n, extra, Path(tmp) / "report" if a.splice or a.splice_new else None)
                timings.append(f"{name} {seconds:.0f} s (exit code {rc})")
                if rc == 2:  # the backend could not be loaded (extra not installed): say so, keep the others
                    failed.append(f"{name} did not run (is its extra installed? pip install -e '.[{name}]')")
                    continue
                if a.splice or a.splice_new:
                    try:
                        splice(REPORTS / name, Path(tmp) / "report", SAMPLE if name in SAMPLED else CASES)
                    except SpliceError as e:
                        failed.append(f"{name} not spliced: {e}")
                        continue
        commit_form(name)
    # The table always covers every committed report, not only the backends just rerun.
    write_scoreboard(list(BACKENDS) + [n for n in names if n not in BACKENDS])
    for why in failed:
        print(f"update-scoreboard: {why}")
    if timings:
        print("update-scoreboard: " + ", ".join(timings))
    print(f"update-scoreboard: wrote {REPORTS / 'README.md'}, {REPORTS / 'DISAGREEMENTS.md'}, {REPORTS / 'index.html'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
