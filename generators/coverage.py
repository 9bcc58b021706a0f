"""Coverage of the (operator, version, dtype) cells the schemas allow, and why the rest are not covered."""

from __future__ import annotations

from collections import Counter, defaultdict

from generators.spec import versions


def cells(ops: list[str]) -> list[tuple[str, int, str]]:
    return [(op, v.since_version, d) for op in ops for v in versions(op) for d in v.dtypes]


def summarize(index: dict, ops: list[str]) -> dict:
    covered = {(c["op"], c["since_version"], c["dtype"]) for c in index["cases"].values() if c["kind"] == "expect-output"}
    all_cells = cells(ops)
    why = defaultdict(list)
    for r in index["not_applicable"]:
        why[(r["op"], r["since_version"], r["dtype"])].append(f"{r['example']}: {r['reason']}")
    missing = [(c, why.get(c, ["no example emitted"])) for c in all_cells if c not in covered]
    by_example = Counter((r["example"], r["reason"]) for r in index["not_applicable"])
    return {"total": len(all_cells), "covered": len(all_cells) - len(missing), "missing": missing,
            "by_example": by_example, "cases": len(index["cases"])}


def summary_lines(s: dict) -> list[str]:
    pct = 100.0 * s["covered"] / s["total"] if s["total"] else 0.0
    lines = [f"{s['cases']} cases; (operator, version, dtype) cells covered: {s['covered']}/{s['total']} ({pct:.1f}%)"]
    for (op, sv, dtype), reasons in s["missing"]:
        lines.append(f"  not covered: {op}-{sv} {dtype}: {'; '.join(reasons)}")
    return lines


def markdown(s: dict) -> str:
    out = ["# Corpus coverage", "", "Written by `generate-cases`; the cell list comes from `onnx.defs`.", ""]
    out += [f"- {line.strip()}" if i else line for i, line in enumerate(summary_lines(s))]
    out += ["", "## Examples not emitted, and the sentence or rule that says why", "",
            "| example | reason | (version, dtype) pairs |", "| --- | --- | --- |"]
    for (example, reason), n in sorted(s["by_example"].items()):
        out.append(f"| {example} | {reason} | {n} |")
    return "\n".join(out) + "\n"
