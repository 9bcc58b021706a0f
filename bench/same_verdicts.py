"""Two report directories of the same corpus agree: every case's status, stage and detail, and the run's verdict.

For a change that must leave behaviour unchanged (a refactor of the runner): run the whole corpus
before and after into two report directories, then

    python bench/same_verdicts.py BEFORE_DIR AFTER_DIR [--again BEFORE_AGAIN_DIR]
                                  [--exit-codes RC_BEFORE RC_AFTER] [--output BEFORE_LOG AFTER_LOG]

compares results.jsonl case by case (case, status, stage, detail, and the facts each result
carries: op, opset, dtype, ...; not the seconds), run.json's complete, counts, exit_code and gate
(regressions, fixes, stale), junit.xml's testcases without their times, and matrix.md, each report
directory's own path aside; each difference is printed, at most --show of each kind. A random
operator's detail (a case whose index entry's tolerance is a `distribution`: its statistic and
p-value come from draws no seed fixes) is compared with its numbers masked; its status is compared as is.
So is a case whose result differs between BEFORE_DIR and --again, a second run of the same code (a
backend answering with memory it never wrote: onnxruntime's Scan over a zero-length sequence), its
measured numbers (max_abs_err, ..., mismatches) left out. Exit 0 when they agree, 1 when not, 2 when a
directory cannot be read. --exit-codes also compares the commands' own exit codes, --output
their terminal output.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

# A result's fields that running it measured as time, which differ from run to run.
TIMED = frozenset({"seconds"})
MEASURED = frozenset({"max_abs_err", "max_rel_err", "max_ulp", "mismatches", "first_bad_index"})
NUMBER = re.compile(r"-?\d+(\.\d+)?(e[-+]?\d+)?")
# run.json's fields that describe this run (when, where, how invoked) rather than what it found.
VERDICT_FIELDS = ("complete", "counts", "exit_code", "gate")
# junit.xml's attributes that are times.
JUNIT_TIMES = re.compile(r'\s(time|timestamp)="[^"]*"')
# pytest's closing line's time, and the rule around it (as wide as the time leaves room for).
PYTEST_TIME = re.compile(r" in [0-9.]+s( \([0-9:]+\))?|=+$|^=+")


def random_cases(report_dir: Path) -> set[str]:
    """The cases judged on their distribution, from the index of the corpus the run names."""
    run = json.loads((report_dir / "run.json").read_text(encoding="utf-8"))
    index = Path(run.get("corpus", {}).get("path") or "") / "index.json"
    if not index.is_file():
        raise SystemExit(f"same_verdicts: no corpus index at {index} (run.json's corpus path); run from where the run ran")
    cases = json.loads(index.read_text(encoding="utf-8"))["cases"]
    return {name for name, entry in cases.items()
            if isinstance(entry.get("tolerance"), dict) and "distribution" in entry["tolerance"]}


def read_results(report_dir: Path, masked: set[str] = frozenset(), unstable: set[str] = frozenset()) -> dict[str, dict]:
    by_case: dict[str, dict] = {}
    with open(report_dir / "results.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["case"] in by_case:
                raise SystemExit(f"{report_dir}: {r['case']} recorded twice")
            kept = {k: v for k, v in r.items() if k not in TIMED}
            if r["case"] in unstable:
                kept = {k: v for k, v in kept.items() if k not in MEASURED}
            if (r["case"] in masked or r["case"] in unstable) and isinstance(kept.get("detail"), str):
                kept["detail"] = NUMBER.sub("#", kept["detail"])
            by_case[r["case"]] = kept
    return by_case


def unstable_cases(before: Path, again: Path | None) -> set[str]:
    """The cases whose result two runs of the same code did not agree on (statuses aside)."""
    if again is None:
        return set()
    a, b = read_results(before), read_results(again)
    return {c for c in a.keys() & b.keys() if a[c] != b[c]}


def compare(before: Path, after: Path, show: int, again: Path | None = None) -> list[str]:
    out: list[str] = []
    masked, unstable = random_cases(before), unstable_cases(before, again)
    noisy = sorted(unstable - masked)
    if unstable:
        print(f"same_verdicts: {len(unstable)} case(s) differ between {before} and {again}, {len(noisy)} of them not "
              f"random operators'; their numbers are not compared" + (": " + ", ".join(noisy[:show]) if noisy else ""))
    a, b = read_results(before, masked, unstable), read_results(after, masked, unstable)
    only_before, only_after = sorted(a.keys() - b.keys()), sorted(b.keys() - a.keys())
    for name, missing in (("before", only_before), ("after", only_after)):
        if missing:
            out.append(f"{len(missing)} case(s) only {name}: " + ", ".join(missing[:show]))
    changed = 0
    for case in sorted(a.keys() & b.keys()):
        x, y = a[case], b[case]
        if x != y:
            changed += 1
            if changed <= show:
                fields = sorted(k for k in x.keys() | y.keys() if x.get(k) != y.get(k))
                out.append(f"{case}: " + "; ".join(f"{k}: {x.get(k)!r} -> {y.get(k)!r}" for k in fields))
    if changed:
        out.append(f"{changed} case(s) differ in status, stage, detail or another field")

    runs = [json.loads((d / "run.json").read_text(encoding="utf-8")) for d in (before, after)]
    for key in VERDICT_FIELDS:
        if runs[0].get(key) != runs[1].get(key):
            out.append(f"run.json {key}: {runs[0].get(key)!r} -> {runs[1].get(key)!r}")

    for name, normalise in (("junit.xml", lambda t: JUNIT_TIMES.sub("", t)), ("matrix.md", lambda t: t)):
        texts = []
        for d in (before, after):
            path = d / name
            text = path.read_text(encoding="utf-8").replace(str(d.resolve()), "REPORT_DIR") if path.exists() else None
            texts.append(normalise(text) if text is not None else None)
        if texts[0] != texts[1]:
            lines = [t.splitlines() if t is not None else [] for t in texts]
            diffs = [(i, p, q) for i, (p, q) in enumerate(zip(lines[0], lines[1])) if p != q]
            out.append(f"{name} differs ({len(lines[0])} vs {len(lines[1])} lines"
                       + (f"; first at line {diffs[0][0] + 1}: {diffs[0][1][:200]!r} -> {diffs[0][2][:200]!r}"
                          if diffs else "") + ")")
    return out


def compare_output(before: Path, after: Path, dirs: tuple[Path, Path]) -> list[str]:
    """The two commands' terminal output, the same but for each run's report directory and times."""
    texts = []
    for path, report_dir in zip((before, after), dirs):
        text = path.read_text(encoding="utf-8", errors="replace").replace(str(report_dir.resolve()), "REPORT_DIR")
        texts.append([PYTEST_TIME.sub("=", line) for line in text.splitlines()])
    diffs = [(i, p, q) for i, (p, q) in enumerate(zip(*texts)) if p != q]
    if not diffs and len(texts[0]) == len(texts[1]):
        return []
    where = f"; first at line {diffs[0][0] + 1}: {diffs[0][1][:200]!r} -> {diffs[0][2][:200]!r}" if diffs else ""
    return [f"terminal output differs ({len(texts[0])} vs {len(texts[1])} lines{where})"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before", type=Path)
    p.add_argument("after", type=Path)
    p.add_argument("--again", type=Path, metavar="BEFORE_AGAIN_DIR",
                   help="a second run of the before code: what differs between the two is the backend's noise")
    p.add_argument("--exit-codes", nargs=2, type=int, metavar=("BEFORE", "AFTER"),
                   help="the two commands' exit codes, compared too")
    p.add_argument("--output", nargs=2, type=Path, metavar=("BEFORE_LOG", "AFTER_LOG"),
                   help="the two commands' terminal output, compared too (times and report directories aside)")
    p.add_argument("--show", type=int, default=20, help="differences shown of each kind (default 20)")
    args = p.parse_args(argv)
    try:
        differences = compare(args.before, args.after, args.show, args.again)
    except (OSError, ValueError, KeyError) as e:
        print(f"same_verdicts: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    if args.output:
        differences += compare_output(*args.output, (args.before, args.after))
    if args.exit_codes and args.exit_codes[0] != args.exit_codes[1]:
        differences.append(f"exit code: {args.exit_codes[0]} -> {args.exit_codes[1]}")
    for line in differences:
        print(line)
    count = len(read_results(args.before))
    print(f"same_verdicts: {count} cases; " + ("identical" if not differences else f"{len(differences)} difference(s)"))
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
