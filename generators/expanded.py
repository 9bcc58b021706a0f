"""Function-expanded forms: every expect-output case of an operator whose schema gives a function body
(a plain or a context-dependent one), with the node replaced by that body, as a runtime that has no
kernel of its own for the operator runs it.

The body is the one the schema gives at the case's opset, for the case's node and input types
(onnx.defs), inlined into the graph (onnx.inliner). Where onnx's checker refuses the expanded model in
a type, or the body cannot be computed (a random draw), the case does not exist and the index says
why. The expected values are the exact evaluator's over the body, node by node, with the tolerance
for graphs (generators/graphs.py). Where that value and the operator's own expected value differ by
more than that tolerance, the body and the operator's text disagree: each such case is listed in
cases/expanded.md with both values and the operator module's reason, where it states one
(`Operator.body_differs`).
"""

from __future__ import annotations

import onnx
from onnx import checker, inliner

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.exact import CannotEvaluate, from_plain, schema_body
from onnx_conformance.generators.graphs import DependsOnRounding, evaluate
from onnx_conformance.generators.protos import Built, plain
from onnx_conformance.harness.compare import compare_outputs
from onnx_conformance.generators.semantics import NotDeterministic, Rejected, Undefined

SUFFIX = "_expanded"


def expand(op, b) -> tuple[object, dict | None]:
    """The expanded twin of node case `b` (a protos.Built) of operator `op` and, where its value differs
    from b's beyond the tolerance for graphs, a row for cases/expanded.md; or (NotApplicable, None)."""
    model = _inlined(b.model)
    if isinstance(model, NotApplicable):
        return model, None
    model.graph.name = b.name + SUFFIX
    feeds = [plain(x) for _, x in b.inputs]  # as a runner reads them: the evaluator types them itself
    try:
        values, tolerance = evaluate(model, feeds)
    except NotDeterministic as e:
        return NotApplicable(f"the function body draws random values: {e}"), None
    except (CannotEvaluate, Undefined, Rejected) as e:  # in the evaluator's words; the node case stands
        return NotApplicable(f"the exact evaluator cannot compute the body: {e}"), None
    except DependsOnRounding as e:
        return NotApplicable(f"the body's result depends on rounding its intermediates, which a runtime may "
                             f"keep wider: {str(e).split(': ', 1)[1]}"), None
    meta = dict(b.meta, form="expanded", tolerance=tolerance)
    typed = [from_plain(x, o.type) for x, o in zip(values, model.graph.output)]
    twin = Built(b.name + SUFFIX, meta, model, b.inputs, list(zip((n for n, _ in b.outputs), typed)), b.output_types)
    cmp = compare_outputs([plain(x) for _, x in b.outputs], values, tolerance, b.output_types)
    if cmp.status == "pass":
        return twin, None
    row = {"case": twin.name, "op": op.name, "since_version": b.meta["since_version"], "dtype": b.meta["dtype"],
           "example": b.meta["example"], "detail": f"the body's value against the operator's: {cmp.detail}"}
    row["reason"] = op.why_body_differs(f"{row['example']} {row['dtype']}: {cmp.detail}")
    return twin, row


def _inlined(model: onnx.ModelProto) -> onnx.ModelProto | NotApplicable:
    """The model with its last node (the operator; nodes before it belong to the case) replaced by
    the body the schema gives for it, or why there is no valid one."""
    node = model.graph.node[-1]
    opset = next(o.version for o in model.opset_import if o.domain == node.domain)
    schema = onnx.defs.get_schema(node.op_type, opset, node.domain)
    body = _body(schema, node, model, opset)
    if body is None:
        return NotApplicable(f"{node.op_type}-{schema.since_version} has no function body at opset {opset}")
    body.name, body.domain = node.op_type, node.domain
    wrapped = onnx.ModelProto()
    wrapped.CopyFrom(model)
    wrapped.functions.append(body)
    try:
        expanded = inliner.inline_local_functions(wrapped)
        checker.check_model(expanded, full_check=True)
    except Exception as e:  # noqa: BLE001 - onnx's inliner and checker raise several kinds
        return NotApplicable(f"onnx's checker refuses the expanded body: {_first_line(e)}")
    return expanded


def _body(schema, node: onnx.NodeProto, model: onnx.ModelProto, opset: int) -> onnx.FunctionProto | None:
    types = {i.name: i.type for i in model.graph.input}
    for init in model.graph.initializer:
        tp = onnx.TypeProto()
        tp.tensor_type.elem_type = init.data_type
        types[init.name] = tp
    return schema_body(schema, node, [types.get(name) or onnx.TypeProto() for name in node.input], opset)


def _first_line(e: Exception) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 300 else text[:297] + "..."


def report_markdown(rows: list[dict], onnx_version: str) -> str:
    """cases/expanded.md: every case where an operator's function body and its own expected value differ."""
    lines = [
        "# Function bodies vs. the operators' own values",
        "",
        f"Generated by `generate-cases` with onnx {onnx_version}. Each expanded case (the node replaced by the",
        "function body its schema gives) is computed node by node by the exact evaluator; listed here is every",
        "one whose value differs from the operator's own expected value by more than the tolerance for graphs,",
        "with the operator module's reason where it states one. The expanded case keeps the body's value: a",
        "runtime that runs the body must produce it.",
        "",
        f"{len(rows)} cases, {sum(1 for r in rows if r.get('reason') is None)} with no stated reason.",
        "",
    ]
    by_reason: dict[tuple, list[dict]] = {}
    for r in sorted(rows, key=lambda r: r["case"]):
        by_reason.setdefault((r["op"], r.get("reason") or "(no reason stated)"), []).append(r)
    for (op, reason), group in sorted(by_reason.items()):
        lines += [f"## {op}: {reason}", ""]
        lines += [f"- `{r['case']}`: {r['detail']}" for r in group]
        lines.append("")
    return "\n".join(lines)
