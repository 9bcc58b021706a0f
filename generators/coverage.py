"""Coverage of the (operator, version, type parameter, type) cells the schemas allow, and why the rest are not covered."""

from __future__ import annotations

from collections import Counter, defaultdict

from onnx_conformance.generators.ops import all_operators
from onnx_conformance.generators.spec import versions


def cells(ops: list[str]) -> list[tuple[str, int, str, str]]:
    """Every cell of every version in force; deprecated versions have no valid model and no cells."""
    out = []
    for v in _versions(ops):
        if not v.deprecated:
            out += [(v.op, v.since_version, p, t) for p, allowed in v.type_params.items() for t in allowed]
    return out


def _versions(ops: list[str]):
    operators = all_operators()
    return [v for op in ops for v in versions(op, operators[op].domain)]


def deprecated(ops: list[str]) -> list[tuple[str, int]]:
    return [(v.op, v.since_version) for v in _versions(ops) if v.deprecated]


def summarize(index: dict, ops: list[str]) -> dict:
    covered = set()
    versions_covered = set()
    for c in index["cases"].values():
        if c["kind"] != "expect-output":
            continue
        versions_covered.add((c["op"], c["since_version"]))
        for p, t in c.get("types", {}).items():
            covered.add((c["op"], c["since_version"], p, t))
    all_cells = cells(ops)
    why = defaultdict(list)
    for r in index["not_applicable"]:
        for p, t in r.get("types", {}).items():
            why[(r["op"], r["since_version"], p, t)].append(f"{r['example']}: {r['reason']}")
    missing = [(c, why.get(c, ["no example emitted"])) for c in all_cells if c not in covered]
    all_versions = sorted((v.op, v.since_version) for v in _versions(ops) if not v.deprecated)
    per_op = {}
    domains = {name: operator.domain for name, operator in all_operators().items() if name in ops}
    for op, sv, p, t in all_cells:
        row = per_op.setdefault(op, {"cells": 0, "covered": 0, "versions": set(), "versions_covered": set(),
                                     "domain": domains.get(op, "")})
        row["cells"] += 1
        row["covered"] += (op, sv, p, t) in covered
    for op, sv in all_versions:
        row = per_op.setdefault(op, {"cells": 0, "covered": 0, "versions": set(), "versions_covered": set(),
                                     "domain": domains.get(op, "")})
        row["versions"].add(sv)
        if (op, sv) in versions_covered:
            row["versions_covered"].add(sv)
    by_example = Counter((r["example"], r["reason"]) for r in index["not_applicable"])
    return {"total": len(all_cells), "covered": len(all_cells) - len(missing), "missing": missing,
            "versions": len(all_versions), "versions_covered": len(versions_covered & set(all_versions)),
            "per_op": per_op, "by_example": by_example, "cases": len(index["cases"]),
            "deprecated": deprecated(ops)}


def summary_lines(s: dict) -> list[str]:
    pct = 100.0 * s["covered"] / s["total"] if s["total"] else 0.0
    lines = [f"{s['cases']} cases; (operator, version, type parameter, type) cells covered: "
             f"{s['covered']}/{s['total']} ({pct:.1f}%); operator versions covered: "
             f"{s['versions_covered']}/{s['versions']}"]
    for op, sv in s.get("deprecated", []):
        lines.append(f"  not counted: {op}-{sv} is deprecated; onnx.checker refuses every model using it")
    for (op, sv, param, t), reasons in s["missing"]:
        lines.append(f"  not covered: {op}-{sv} {param}={t}: {'; '.join(sorted(set(reasons)))}")
    return lines


def _domain_name(row: dict) -> str:
    return row.get("domain") or "ai.onnx"


def _by_domain(per_op: dict) -> dict:
    out: dict = defaultdict(list)
    for row in per_op.values():
        out[_domain_name(row)].append(row)
    return out


def markdown(s: dict) -> str:
    out = ["# Corpus coverage", "", "Written by `generate-cases`; the cell list comes from `onnx.defs`.", ""]
    out += [f"- {line.strip()}" if i else line for i, line in enumerate(summary_lines(s))]
    out += ["", "## Per domain", "", "| domain | operators | cells covered | versions covered |",
            "| --- | ---: | ---: | ---: |"]
    for domain, rows in sorted(_by_domain(s["per_op"]).items()):
        cells_covered = sum(r["covered"] for r in rows)
        cells_total = sum(r["cells"] for r in rows)
        v_covered = sum(len(r["versions_covered"]) for r in rows)
        v_total = sum(len(r["versions"]) for r in rows)
        out.append(f"| {domain} | {len(rows)} | {cells_covered}/{cells_total} | {v_covered}/{v_total} |")
    out += ["", "## Per operator", "", "| domain | operator | cells covered | versions covered |",
            "| --- | --- | ---: | ---: |"]
    for op, row in sorted(s["per_op"].items(), key=lambda kv: (_domain_name(kv[1]), kv[0])):
        out.append(f"| {_domain_name(row)} | {op} | {row['covered']}/{row['cells']} | "
                   f"{len(row['versions_covered'])}/{len(row['versions'])} |")
    out += ["", "## Examples not emitted, and the sentence or rule that says why", "",
            "| example | reason | (version, types) bindings |", "| --- | --- | --- |"]
    for (example, reason), n in sorted(s["by_example"].items()):
        out.append(f"| {example} | {reason.replace('|', '/')} | {n} |")
    return "\n".join(out) + "\n"
