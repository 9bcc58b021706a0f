"""Second source for every expected output: onnx.reference.ReferenceEvaluator on the same model and feeds."""

from __future__ import annotations

import warnings

import numpy as np
from onnx.reference import ReferenceEvaluator


def against_reference(built) -> dict | None:
    """None when the reference evaluator agrees with our oracle; else a row for the committed report."""
    from onnx_conformance.harness.compare import compare_outputs  # the runner's comparator: one definition of "agrees"

    row = {"case": built.name, "op": built.meta["op"], "since_version": built.meta["since_version"],
           "dtype": built.meta["dtype"], "example": built.meta["example"]}
    from onnx_conformance.generators.protos import plain

    feeds = {n: plain(a) for n, a in built.inputs}
    try:
        # The evaluator's own numpy warnings (overflow in its intermediate sums, log of 0) are not the
        # user's business: what it gets wrong is reported as a disagreement.
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            got = ReferenceEvaluator(built.model).run(None, feeds)
    except Exception as e:  # the evaluator's own failure is a finding, recorded, never dropped
        if built.outputs is None:
            return None  # expected an error, got one
        return dict(row, detail=f"reference evaluator raised {type(e).__name__}: {_one_line(e)}")
    if built.outputs is None:
        return dict(row, detail="reference evaluator returned outputs for an expect-error case")
    cmp = compare_outputs([plain(a) for _, a in built.outputs], list(got), built.meta["tolerance"], built.output_types)
    if cmp.status == "pass":
        return None
    return dict(row, detail=f"reference evaluator: {cmp.detail}")


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 200 else text[:197] + "..."


def report_markdown(disagreements: list[dict], onnx_version: str) -> str:
    """cases/crosscheck.md: every case where the reference evaluator and our oracle differ, under
    the reason our value stands (the operator module states it); unexplained ones first."""
    groups: dict[tuple, list[dict]] = {}
    for d in disagreements:
        groups.setdefault((d.get("reason") is not None, d["op"], d.get("reason") or ""), []).append(d)
    unexplained = sum(len(g) for (known, _, _), g in groups.items() if not known)
    lines = [
        "# Oracle vs. onnx.reference.ReferenceEvaluator",
        "",
        f"Every case of the corpus was also run through `onnx.reference.ReferenceEvaluator` (onnx {onnx_version}).",
        "Where it does not produce our expected output, the case is listed here under the reason our value",
        "stands (stated in the operator's module, `OPERATOR.reference_differs`). Regenerate with",
        "`generate-cases` (this file is rewritten each time).",
        "",
        f"Disagreements: {len(disagreements)}; unexplained: {unexplained}",
        "",
        "| operator | reason our value stands | cases |",
        "| --- | --- | ---: |",
    ]
    for (known, op, reason), g in sorted(groups.items()):
        lines.append(f"| {op} | {(reason if known else 'UNEXPLAINED').replace('|', '/')} | {len(g)} |")
    for (known, op, reason), g in sorted(groups.items()):
        lines += ["", f"## {op}: {reason if known else 'UNEXPLAINED'}", "", "| case | detail |", "| --- | --- |"]
        lines += [f"| `{d['case']}` | {d['detail'].replace('|', '/')} |" for d in sorted(g, key=lambda d: d["case"])]
    return "\n".join(lines) + "\n"


def parse_report(text: str) -> list[dict]:
    """The disagreements a crosscheck.md lists, as report_markdown takes them (op, reason, case, detail):
    what `generate-cases --op` keeps of the operators it does not rewrite."""
    rows, op, reason = [], None, None
    for line in text.splitlines():
        if line.startswith("## "):
            op, _, said = line[3:].partition(": ")
            reason = None if said == "UNEXPLAINED" else said
        elif op is not None and line.startswith("| `"):
            case, _, detail = line[3:].partition("` | ")
            rows.append({"op": op, "reason": reason, "case": case, "detail": detail.removesuffix(" |")})
    return rows
