"""generate-cases: write the corpus, or check that regenerating it reproduces the committed index."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

from onnx_conformance.generators import coverage, expanded
from onnx_conformance.generators.crosscheck import report_markdown
from onnx_conformance.generators.emit import REPO_CASES, generate_corpus, graph_units, units


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="generate-cases", description=__doc__)
    p.add_argument("--out", type=Path, default=REPO_CASES, help="corpus directory (default: the project's cases/)")
    p.add_argument("--op", action="append",
                   help="only this operator or graph family (generators/patterns, generators/models; repeatable)")
    p.add_argument("--jobs", "-j", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--check", action="store_true",
                   help="regenerate into a temporary directory and fail, naming the cases, if any byte differs "
                        "from OUT/index.json (and from OUT/node where present)")
    p.add_argument("--no-crosscheck", action="store_true", help="skip running onnx's ReferenceEvaluator on every case")
    p.add_argument("--graphs", action="store_true",
                   help="also write the cases beyond single nodes into OUT/graph: every case's function-expanded "
                        "twin, and every pattern and model (README 'Beyond single nodes'); not yet in the "
                        "default corpus")
    p.add_argument("--onnx-node-tests", action="store_true",
                   help="instead, write the node test cases of the installed onnx (collect_testcases()) "
                        "into OUT (required, not the project's cases/); with --op, only that operator")
    a = p.parse_args(argv)
    if a.onnx_node_tests:
        return onnx_node_tests(p, a)
    try:
        ops = sorted({n for n, _ in units(a.op)})
    except KeyError as e:
        print(f"generate-cases: {e.args[0]}", file=sys.stderr)
        return 2
    selected = ops + graph_units(a.op) if a.op else None  # operators and graph families
    if a.check:
        return check(a.out, selected, a.jobs, a.graphs)
    try:
        index = generate_corpus(a.out, selected, a.jobs, crosscheck=not a.no_crosscheck, graphs=a.graphs)
    except FileExistsError as e:
        print(f"generate-cases: {e}", file=sys.stderr)
        return 2
    s = coverage.summarize(index, ops)
    (a.out / "coverage.md").write_text(coverage.markdown(s))
    if "_disagreements" in index:
        (a.out / "crosscheck.md").write_text(report_markdown(index["_disagreements"], index["onnx_version"]))
        unexplained = sum(1 for d in index["_disagreements"] if d.get("reason") is None)
        print(f"reference evaluator disagrees on {len(index['_disagreements'])} cases, {unexplained} of them "
              f"with no stated reason: see {a.out / 'crosscheck.md'}")
    if a.graphs:
        (a.out / "expanded.md").write_text(expanded.report_markdown(index["_expanded"], index["onnx_version"]))
    for line in coverage.summary_lines(s):
        print(line)
    print(f"wrote {a.out / 'node'}, {a.out / 'graph'} and {a.out / 'index.json'}")
    return 0


def onnx_node_tests(p: argparse.ArgumentParser, a: argparse.Namespace) -> int:
    from onnx_conformance.generators import onnx_node_tests as writer

    if a.out.resolve() == REPO_CASES.resolve() or a.check or (a.op and len(a.op) > 1):
        p.error("--onnx-node-tests needs its own --out DIR, takes at most one --op, and no --check")
    try:
        index = writer.write(a.out, a.op[0] if a.op else None)
    except FileExistsError as e:
        print(f"generate-cases: {e}", file=sys.stderr)
        return 2
    print(f"wrote {len(index['cases'])} onnx {index['onnx_version']} node test cases to "
          f"{a.out / 'node'} and {a.out / 'index.json'}")
    return 0


def check(out: Path, ops: list[str] | None, jobs: int | None, graphs: bool = False) -> int:
    """Regenerate (only `ops`, where given: then only their cases are compared) and compare with OUT/index.json."""
    index_path = out / "index.json"
    try:
        pinned = json.loads(index_path.read_text())
    except (OSError, ValueError) as e:
        print(f"generate-cases --check: {index_path}: cannot read the index ({e})", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        fresh = generate_corpus(Path(tmp), ops, jobs, crosscheck=False, graphs=graphs)
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
