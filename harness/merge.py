"""merge-reports: the report directories of N `run-conformance --shard K/N` jobs as one report.

    merge-reports reports/shard-1 reports/shard-2 ... --out reports/onnxruntime [--expectations FILE]

Writes OUT/results.jsonl (sorted by case), run.json, junit.xml and the matrices, as one unsharded
run would. It fails loudly when the shards do not add up to the corpus: a shard missing or given
twice, a case recorded by two shards (named), a shard that recorded other cases than it selected (the
job died, or ran with -k: its run.json holds the count and digest of its cases' names, not the names),
or shards of different backends, corpora or shard counts.

Exit codes: 0 the merged run passes its gate, 1 regressions, 2 the shards do not add up (or a
report cannot be read; the merge is still written, marked incomplete), 3 nothing ran.
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from onnx_conformance import harness
from onnx_conformance.harness import expectations as baseline
from onnx_conformance.harness.matrix import selection_text
from onnx_conformance.harness.reports import write_matrices
from onnx_conformance.harness.results import (RESULTS, RUN, FIELDS, OPTIONAL_FACTS, OPTIONAL_MEASURED, counts, now, plain, read_json, read_results,
                             write_json)
from onnx_conformance.harness.shard import names_sha256

JUNIT = "junit.xml"


class MergeError(Exception):
    """A shard report cannot be read at all."""


def load_shard(path: Path) -> tuple[dict, list[dict]]:
    run = read_json(path / RUN)
    if run is None:
        raise MergeError(f"{path}: no readable {RUN} (not a run-conformance report directory)")
    results, _ = read_results(path / RESULTS)
    return run, results


def _shard_of(run: dict) -> tuple[int, int]:
    s = run.get("shard") or {}
    return (s.get("index", 1), s.get("total", 1))


def check(shards: list[tuple[Path, dict, list[dict]]]) -> tuple[list[str], set[str]]:
    """Every reason the shards do not add up to one complete run, and the corpus's case names."""
    problems: list[str] = []
    first = shards[0][1]

    def same(label: str, get) -> None:
        values = {str(get(run)) for _, run, _ in shards}
        if len(values) > 1:
            problems.append(f"shards differ in {label}: {', '.join(sorted(values))}")

    same("backend", lambda r: (r.get("backend") or {}).get("requested"))
    same("backend version", lambda r: (r.get("backend") or {}).get("version"))
    same("backend options", lambda r: sorted(((r.get("backend") or {}).get("options") or {}).items()))
    same("corpus index", lambda r: (r.get("corpus") or {}).get("index_sha256"))
    same("corpus cases", lambda r: (r.get("shard") or {}).get("corpus_names_sha256"))
    same("shard count N", lambda r: _shard_of(r)[1])
    # the opset the cases above it ran at, and what asked for it: shards run at other ceilings are two runs
    same("opset", lambda r: sorted((k, v) for k, v in (r.get("opset") or {}).items() if k != "cases_lowered"))
    same("confirm mode", lambda r: (r.get("confirm") or {}).get("mode"))

    total = _shard_of(first)[1]
    seen: dict[int, Path] = {}
    for path, run, _ in shards:
        k = _shard_of(run)[0]
        if k in seen:
            problems.append(f"shard {k}/{total} given twice: {seen[k]} and {path}")
        seen[k] = path
        if not run.get("complete"):
            problems.append(f"shard {k}/{total} ({path}) did not finish (run.json complete: false)")
    absent = [k for k in range(1, total + 1) if k not in seen]
    if absent:
        problems.append(f"shard(s) {', '.join(f'{k}/{total}' for k in absent)} not given")

    recorded: dict[str, list[int]] = {}
    for path, run, results in shards:
        k = _shard_of(run)[0]
        for r in results:
            recorded.setdefault(r["case"], []).append(k)
        problems += _shard_problems(path, run, {r["case"] for r in results})
    for name in sorted(recorded):
        where = recorded[name]
        if len(where) > 1:
            problems.append(f"{name}: duplicated, recorded by shards {', '.join(map(str, where))}")
    corpus = set(recorded)
    expected = (first.get("corpus") or {}).get("cases")
    if absent and isinstance(expected, int) and expected > len(corpus):
        problems.append(f"{expected - len(corpus)} of the corpus's {expected} cases are in no shard given")
    want = (first.get("shard") or {}).get("corpus_names_sha256")
    if want and not absent and names_sha256(corpus) != want:
        problems.append(f"the shards' cases ({len(corpus)}) are not the corpus they split "
                        f"({expected} cases)")
    return problems, corpus


def _shard_problems(path: Path, run: dict, names: set[str]) -> list[str]:
    """Whether a shard recorded what it selected: its whole shard (no --op, -k or node ids besides), every
    case of it (the names' count and digest in run.json's `selection`; a report of an earlier harness
    lists the names in `shard.cases`)."""
    k, total = _shard_of(run)
    selection = run.get("selection") or {}
    listed = (run.get("shard") or {}).get("cases")
    if isinstance(listed, list):
        count, digest = len(listed), names_sha256(listed)
    else:
        count, digest = selection.get("cases"), selection.get("names_sha256")
    narrowed = {key: v for key, v in selection.items() if key not in ("shard", "cases", "names_sha256") and v}
    out = []
    if narrowed:
        out.append(f"shard {k}/{total} ({path}) selected less than its shard ({selection_text(narrowed)})")
    if digest and names_sha256(names) != digest:
        what = f"{len(names)} of the {count} cases" if len(names) < (count or 0) else f"other cases than the {count}"
        out.append(f"shard {k}/{total} ({path}) recorded {what} it selected")
    return out


def merge_junit(paths: list[Path], out: Path) -> None:
    merged = ET.Element("testsuites", name="onnx-conformance")
    for path in paths:
        try:
            root = ET.parse(path / JUNIT).getroot()
        except (OSError, ET.ParseError):
            continue
        for suite in ([root] if root.tag == "testsuite" else list(root.iter("testsuite"))):
            suite.set("hostname", f"{suite.get('hostname', '')} ({path.name})".strip())
            merged.append(suite)
    for attr in ("tests", "failures", "errors", "skipped"):
        merged.set(attr, str(sum(int(s.get(attr, 0)) for s in merged)))
    ET.ElementTree(merged).write(out / JUNIT, encoding="utf-8", xml_declaration=True)


def gate(results: list[dict], runs: list[dict], expectations_path: str | None,
         corpus: set[str], allow_fixes: bool) -> baseline.Verdict:
    """With --expectations, the merged results graded afresh; else the shards' own verdicts."""
    if expectations_path:
        entries = baseline.load(Path(expectations_path))
        return baseline.evaluate(results, entries, corpus, allow_fixes=allow_fixes)
    if not any(r.get("expectations") for r in runs):
        return baseline.evaluate(results, None, corpus)
    verdict = baseline.evaluate(results, {}, corpus)  # only for NOTHING_RAN
    verdict.regressions = [x for r in runs for x in (r.get("gate") or {}).get("regressions", [])]
    verdict.fixes = [x for r in runs for x in (r.get("gate") or {}).get("fixes", [])]
    verdict.stale = sorted({x for r in runs for x in (r.get("gate") or {}).get("stale", [])})
    codes = [r.get("exit_code") for r in runs]
    if verdict.exit_code != baseline.NOTHING_RAN:
        verdict.exit_code = baseline.REGRESSED if baseline.REGRESSED in codes else baseline.OK
    return verdict


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="merge-reports", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="a shard's --report-dir")
    p.add_argument("--out", type=Path, required=True, help="merged report directory")
    p.add_argument("--expectations", metavar="FILE",
                   help="grade the merged results against this baseline (default: the shards' verdicts)")
    p.add_argument("--allow-fixes", action="store_true")
    a = p.parse_args(argv)
    try:
        shards = [(d, *load_shard(d)) for d in a.dirs]
    except MergeError as e:
        print(f"merge-reports: {e}", file=sys.stderr)
        return baseline.SETUP_ERROR
    problems, corpus = check(shards)
    runs = [run for _, run, _ in shards]
    results = sorted((r for _, _, rs in shards for r in rs), key=lambda r: str(r["case"]))
    by_case = {}
    for r in results:  # a duplicated case is an error above; its first record is kept
        kept = {k: plain(r.get(k)) for k in FIELDS}
        kept.update({k: r[k] for k in (*OPTIONAL_FACTS, *OPTIONAL_MEASURED) if r.get(k) is not None})
        by_case.setdefault(r["case"], kept)
    results = list(by_case.values())
    try:
        verdict = gate(results, runs, a.expectations, corpus, a.allow_fixes)
    except baseline.ExpectationsError as e:
        print(f"merge-reports: {e}", file=sys.stderr)
        return baseline.SETUP_ERROR
    exit_code = baseline.SETUP_ERROR if problems else verdict.exit_code

    first = runs[0]
    run_info = {k: first.get(k) for k in ("backend", "corpus", "platform", "python",
                                          "timeout_seconds", "expectations", "rerun_failures")}
    run_info.update(
        harness_version=harness.__version__, merged=now(),
        started=min((r.get("started") or "" for r in runs), default=None),
        finished=max((r.get("finished") or "" for r in runs), default=None),
        complete=not problems, counts=counts(results), exit_code=exit_code,
        problems=problems,
        gate={"regressions": verdict.regressions, "fixes": verdict.fixes, "stale": verdict.stale},
        shards=[{"index": _shard_of(run)[0], "total": _shard_of(run)[1], "report_dir": str(path),
                 "complete": run.get("complete"), "exit_code": run.get("exit_code"),
                 "counts": run.get("counts"), "started": run.get("started"),
                 "finished": run.get("finished"), "cases": len(rs)}
                for path, run, rs in sorted(shards, key=lambda s: _shard_of(s[1]))],
    )
    if "opset" in first:
        run_info["opset"] = {**{k: v for k, v in first["opset"].items() if k != "cases_lowered"},
                             "cases_lowered": sum(1 for r in results if r.get("ran_opset"))}
    if a.expectations:
        run_info["expectations"] = a.expectations
    a.out.mkdir(parents=True, exist_ok=True)
    with open(a.out / RESULTS, "w", encoding="utf-8") as f:
        for r in results:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    write_matrices(results, run_info, a.out)
    merge_junit([d for d, _, _ in shards], a.out)
    write_json(a.out / RUN, run_info)

    for line in problems:
        print(f"merge-reports: {line}", file=sys.stderr)
    for line in verdict.lines():
        print(line)
    tally = ", ".join(f"{n} {s}" for s, n in counts(results).items() if n)
    word = "INCOMPLETE" if problems else ("OK" if exit_code == baseline.OK else "FAILED")
    print(f"merge-reports: {len(shards)} shard(s), {len(results)} cases ({tally}) -> {a.out}: "
          f"{word} (exit code {exit_code})")
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
