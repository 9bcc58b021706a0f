"""generate-cases: write the corpus, or check that regenerating it reproduces the committed index."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

from onnx_conformance.generators import coverage, expanded
from onnx_conformance.generators.crosscheck import parse_report, report_markdown
from onnx_conformance.generators.emit import REPO_CASES, generate_corpus, graph_units, units
from onnx_conformance.harness import corpus_home


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="generate-cases", description=__doc__)
    p.add_argument("--out", type=Path, default=None,
                   help="corpus directory (default: the project's cases/ in a checkout; installed from a wheel, "
                        f"the user's corpus under ${corpus_home.ENV} or ~/.cache/onnx-conformance)")
    p.add_argument("--op", action="append",
                   help="only this operator or graph family (generators/patterns, generators/models; repeatable)")
    p.add_argument("--jobs", "-j", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--check", action="store_true",
                   help="regenerate into a temporary directory and fail, naming the cases, if any byte differs "
                        "from OUT/index.json (and from OUT/node where present)")
    p.add_argument("--no-crosscheck", action="store_true", help="skip running onnx's ReferenceEvaluator on every case")
    p.add_argument("--onnx-node-tests", action="store_true",
                   help="instead, write the node test cases of the installed onnx (collect_testcases()) "
                        "into OUT (required, not the project's cases/); with --op, only that operator")
    a = p.parse_args(argv)
    if a.onnx_node_tests:
        return onnx_node_tests(p, a)
    # Installed from a wheel, the default corpus is the package's whole index, generated into the user's
    # cache (harness/corpus_home.py): a selection or the graph cases make another corpus, in a folder of its own.
    installed = a.out is None and not corpus_home.in_checkout()
    if installed and a.op and not a.check:
        p.error("--op selections write a corpus other than the package's: give them --out DIR")
    if a.out is None and not installed:
        a.out = REPO_CASES
    try:
        ops = sorted({n for n, _ in units(a.op)})
    except KeyError as e:
        print(f"generate-cases: {e.args[0]}", file=sys.stderr)
        return 2
    selected = ops + graph_units(a.op) if a.op else None  # operators and graph families
    try:
        if a.check and installed:
            return check(corpus_home.default_corpus(), selected, a.jobs, corpus_home.PACKAGED_INDEX)
        if installed:
            return installed_corpus(a, ops)
    except corpus_home.CorpusError as e:
        print(f"generate-cases: {e}", file=sys.stderr)
        return 1
    if a.check:
        return check(a.out, selected, a.jobs)
    # --op into a corpus that holds more (the project's cases/): only the selection's cases are rewritten,
    # the other operators' are kept; a corpus of the selection alone is written afresh
    update = bool(a.op) and (a.out / "index.json").is_file()
    try:
        index = generate_corpus(a.out, selected, a.jobs, crosscheck=not a.no_crosscheck, keep_others=update)
    except FileExistsError as e:
        print(f"generate-cases: {e}", file=sys.stderr)
        return 2
    s = coverage.summarize(index, sorted({n for n, _ in units(None)}) if update else ops)
    (a.out / "coverage.md").write_text(coverage.markdown(s))
    if "_disagreements" in index:
        unexplained = sum(1 for d in index["_disagreements"] if d.get("reason") is None)
        where = a.out / "crosscheck.md"
        write_rows(where, index["_disagreements"], index, report_markdown, parse_report,
                   set(selected) if update else None)
        print(f"reference evaluator disagrees on {len(index['_disagreements'])} cases, {unexplained} of them "
              f"with no stated reason: see {where}")
    write_rows(a.out / "expanded.md", index["_expanded"], index, expanded.report_markdown, expanded.parse_report,
               set(selected) if update else None)
    for line in coverage.summary_lines(s):
        print(line)
    print(f"wrote {a.out / 'node'}, {a.out / 'graph'} and {a.out / 'index.json'}")
    return 0


def installed_corpus(a: argparse.Namespace, ops: list[str]) -> int:
    """The installed package's whole corpus into the user's cache: written beside it, and moved in once its
    index is the packaged one byte for byte."""
    out = corpus_home.default_corpus()
    summary = []

    def write(tmp: Path) -> None:
        index = generate_corpus(tmp, None, a.jobs, crosscheck=not a.no_crosscheck)
        s = coverage.summarize(index, ops)
        (tmp / "coverage.md").write_text(coverage.markdown(s))
        if "_disagreements" in index:
            write_rows(tmp / "crosscheck.md", index["_disagreements"], index, report_markdown, parse_report)
        write_rows(tmp / "expanded.md", index["_expanded"], index, expanded.report_markdown, expanded.parse_report)
        summary.extend(coverage.summary_lines(s))

    corpus_home.generate_into(out, write, "generate-cases", replace=True)
    for line in summary:
        print(line)
    print(f"wrote {out / 'node'}, {out / 'graph'} and {out / 'index.json'}")
    return 0


def onnx_node_tests(p: argparse.ArgumentParser, a: argparse.Namespace) -> int:
    from onnx_conformance.generators import onnx_node_tests as writer

    if a.out is None or a.out.resolve() == REPO_CASES.resolve() or a.check or (a.op and len(a.op) > 1):
        p.error("--onnx-node-tests needs its own --out DIR, takes at most one --op, and no --check")
    try:
        index = writer.write(a.out, a.op[0] if a.op else None)
    except FileExistsError as e:
        print(f"generate-cases: {e}", file=sys.stderr)
        return 2
    print(f"wrote {len(index['cases'])} onnx {index['onnx_version']} node test cases to "
          f"{a.out / 'node'} and {a.out / 'index.json'}")
    return 0


def write_rows(where: Path, rows: list[dict], index: dict, render, parse, selected: set[str] | None = None) -> None:
    """A per-case report (crosscheck.md, expanded.md: `render` writes it, `parse` reads it back); with
    `selected` (an update of those operators), the other operators' rows already there are kept."""
    if selected is not None and where.is_file():
        rows = [r for r in parse(where.read_text(encoding="utf-8")) if r["op"] not in selected] + rows
    where.write_text(render(rows, index["onnx_version"]))


def check(out: Path, ops: list[str] | None, jobs: int | None, index_path: Path | None = None) -> int:
    """Regenerate (only `ops`, where given: then only their cases are compared) and compare with OUT/index.json
    (or `index_path`: an installed package's own index), and with OUT's case folders where present."""
    index_path = index_path or out / "index.json"
    try:
        pinned = json.loads(index_path.read_text())
    except (OSError, ValueError) as e:
        print(f"generate-cases --check: {index_path}: cannot read the index ({e})", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        fresh = generate_corpus(Path(tmp), ops, jobs, crosscheck=False)
    if ops:
        pinned = dict(pinned, cases={n: c for n, c in pinned["cases"].items() if c["op"] in ops})
    problems = diff_cases(pinned["cases"], fresh["cases"], "regenerated")
    if (out / "node").is_dir():
        on_disk = hash_tree(out / "node", pinned["cases"])
        if (out / "graph").is_dir():
            on_disk.update(hash_tree(out / "graph", pinned["cases"]))
        if ops:  # the other operators' folders are not this check's business
            on_disk = {n: c for n, c in on_disk.items() if c.get("op") in ops}
        problems += diff_cases(pinned["cases"], on_disk, "on disk")
    if pinned.get("onnx_version") != fresh["onnx_version"]:
        problems.insert(0, f"index made with onnx {pinned.get('onnx_version')}, installed {fresh['onnx_version']}")
    if problems:
        for line in problems:
            print(f"generate-cases --check: {line}")
        print(f"generate-cases --check: FAILED, {len(problems)} differences from {index_path}")
        return 1
    print(f"generate-cases --check: {len(fresh['cases'])} cases reproduce {index_path} byte for byte")
    return 0


def hash_tree(node: Path, pinned: dict) -> dict:
    """The files of each case directory under node/, hashed like the index."""
    found = {}
    for case_dir in sorted(p for p in node.iterdir() if p.is_dir()):
        files = {str(f.relative_to(case_dir)): hashlib.sha256(f.read_bytes()).hexdigest()
                 for f in sorted(case_dir.rglob("*")) if f.is_file()}
        found[case_dir.name] = dict(pinned.get(case_dir.name, {}), files=files)
    return found


def diff_cases(pinned: dict, got: dict, where: str) -> list[str]:
    out = [f"{name}: in the index, missing {where}" for name in sorted(set(pinned) - set(got))]
    out += [f"{name}: {where}, not in the index" for name in sorted(set(got) - set(pinned))]
    for name in sorted(set(pinned) & set(got)):
        a, b = pinned[name], got[name]
        bad = sorted(f for f in set(a["files"]) | set(b["files"]) if a["files"].get(f) != b["files"].get(f))
        if bad:
            out.append(f"{name}: {where} bytes differ in {', '.join(bad)}")
        fields = sorted(k for k in set(a) | set(b) if k != "files" and a.get(k) != b.get(k))
        if fields and where == "regenerated":
            out.append(f"{name}: {where} fields differ: {', '.join(fields)}")
    return out


if __name__ == "__main__":
    sys.exit(main())
