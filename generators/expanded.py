"""Function-expanded forms: every expect-output case of an operator whose schema gives a function body
(a plain or a context-dependent one), with the node replaced by that body, as a runtime that has no
kernel of its own for the operator runs it.

The body is the one the schema gives for the case's node and input types (onnx.defs), inlined into the
graph (onnx.inliner); one written for an older opset than the case's is brought to the case's opset by
onnx's version converter. Where onnx's checker refuses the expanded model in
a type, or the body cannot be computed (a random draw), the case does not exist and the index says
why. The expected values are the exact evaluator's over the body, node by node, with the tolerance
for graphs (generators/graphs.py). Where that value and the operator's own expected value differ by
more than that tolerance, the body and the operator's text disagree: each such case is listed in
cases/expanded.md with both values and the operator module's reason, where it states one
(`Operator.body_differs`).
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import onnx
from onnx import checker, inliner, version_converter

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.exact import CannotEvaluate, from_plain, schema_body
from onnx_conformance.generators.graphs import DependsOnRounding, evaluate
from onnx_conformance.generators.protos import Built, plain
from onnx_conformance.harness.compare import TOLERANCE, compare_outputs
from onnx_conformance.generators.semantics import NotDeterministic, Rejected, Undefined

SUFFIX = "_expanded"
NO_REASON = "(no reason stated)"


class _Refused(Exception):
    """Why a body cannot be brought to the model's opset."""


def expand(op, b) -> tuple[object, dict | None]:
    """The expanded twin of node case `b` (a protos.Built) of operator `op` and, where its value differs
    from b's beyond the tolerance for graphs, a row for cases/expanded.md; or (NotApplicable, None)."""
    model = _inlined(b.model)
    if isinstance(model, NotApplicable):
        return model, None
    model.graph.name = b.name + SUFFIX
    truncated = _truncates_a_transcendental(model)
    if truncated:
        return NotApplicable(truncated), None
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
    tolerance = _wider(tolerance, b.meta["tolerance"], values, b.output_types)
    meta = dict(b.meta, form="expanded", tolerance=tolerance)
    typed = [from_plain(x, o.type) for x, o in zip(values, model.graph.output)]
    twin = Built(b.name + SUFFIX, meta, model, b.inputs, list(zip((n for n, _ in b.outputs), typed)), b.output_types)
    # The body is one way to compute the operator: where its value lies within the twin's tolerance (the
    # operator case's own where that is wider: GroupNormalization's stage one in float), it agrees with the text.
    cmp = compare_outputs([plain(x) for _, x in b.outputs], values, tolerance, b.output_types)
    if cmp.status == "pass":
        return twin, None
    row = {"case": twin.name, "op": op.name, "since_version": b.meta["since_version"], "dtype": b.meta["dtype"],
           "example": b.meta["example"], "detail": f"the body's value against the operator's: {cmp.detail}"}
    row["reason"] = op.why_body_differs(f"{row['example']} {row['dtype']}: {cmp.detail}")
    return twin, row


# Operators whose float results runtimes compute to within an ulp or so, not correctly rounded (IEEE
# rounds Add, Sub, Mul, Div and Sqrt correctly; these it does not define).
TRANSCENDENTAL = {"Exp", "Log", "Pow", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh",
                  "Asinh", "Acosh", "Atanh", "Erf", "Sigmoid", "Softplus", "Softsign"}
_INTEGERS = {onnx.TensorProto.INT8, onnx.TensorProto.INT16, onnx.TensorProto.INT32, onnx.TensorProto.INT64,
             onnx.TensorProto.UINT8, onnx.TensorProto.UINT16, onnx.TensorProto.UINT32, onnx.TensorProto.UINT64}


def _truncates_a_transcendental(model: onnx.ModelProto) -> str | None:
    """Why the twin would fail a correct runtime, where it would: the body casts a float that a
    transcendental fed into an integer (ReduceLogSumExp-18 of int32: CastLike(Log(ReduceSum(Exp(x))))).
    log(e^46 + e^1) is 46 and a little; correctly rounded that is 46.0, but a runtime whose Log is an ulp
    low (within every tolerance) gets 45.99999999999999, which the cast truncates to 45."""
    if not any(n.op_type in TRANSCENDENTAL for n in model.graph.node):
        return None  # most bodies: no type inference needed
    producer = {o: n for n in model.graph.node for o in n.output}
    typed = onnx.shape_inference.infer_shapes(model)
    elem = {v.name: v.type.tensor_type.elem_type for v in [*typed.graph.value_info, *typed.graph.output]}

    def fed_by_transcendental(name: str, seen: set) -> str | None:
        n = producer.get(name)
        if n is None or name in seen:
            return None
        seen.add(name)
        if n.op_type in TRANSCENDENTAL:
            return n.op_type
        return next((t for t in (fed_by_transcendental(i, seen) for i in n.input if i) if t), None)

    for n in model.graph.node:
        if n.op_type in ("Cast", "CastLike") and elem.get(n.output[0]) in _INTEGERS:
            source = fed_by_transcendental(n.input[0], set())
            if source:
                return (f"the body casts a float that {source} computed into an integer: a correct runtime's "
                        f"{source}, an ulp off, moves the value across the integer the exact result rounds to")
    return None


def _wider(graph: dict | None, node: dict | None, values: list, types: list[str]) -> dict | None:
    """The twin's tolerance: the tolerance for graphs around the body's value (an atol, the type's rtol), or
    the operator case's own where that is wider (a runtime that runs the body is a kernel of the operator:
    GroupNormalization's stage one in float may leave a double result a float ulp or two off, as the
    operator's case allows). A node budget in ulps becomes the atol it allows at the largest output value."""
    if not node or "distribution" in node:
        return graph
    defaults = [TOLERANCE.get(t, (0.0, 0.0)) if isinstance(t, str) else (0.0, 0.0) for t in types]
    merged = dict(graph or {})
    atol = max([merged.get("atol", 0.0)] + [d[0] for d in defaults])  # what the twin allows already
    rtol = max([merged.get("rtol", 0.0)] + [d[1] for d in defaults])
    wanted = max(node.get("atol", 0.0), node["ulp"] * _largest_ulp(values) if node.get("ulp") else 0.0)
    if wanted > atol:
        merged["atol"] = wanted
    if node.get("rtol", 0.0) > rtol:
        merged["rtol"] = node["rtol"]
    return merged or None


def _largest_ulp(values: list) -> float:
    """One unit in the last place at the largest finite magnitude among the float outputs."""
    worst = 0.0
    for x in values:
        try:
            a = np.asarray(x)
            info = ml_dtypes.finfo(a.dtype)
        except (TypeError, ValueError):
            continue  # not a float output
        finite = np.abs(a[np.isfinite(a)].astype(np.float64))
        if finite.size:
            m = max(float(finite.max()), float(info.tiny))
            worst = max(worst, 2.0 ** (math.floor(math.log2(m)) - info.nmant))
    return worst


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
    _state_defaults(wrapped.graph.node[-1], schema)
    older = _older_imports(body, model)
    try:
        if older:
            expanded = _converted(wrapped, older)
        else:
            expanded = inliner.inline_local_functions(wrapped)
        checker.check_model(expanded, full_check=True)
    except _Refused as e:
        return NotApplicable(str(e))
    except Exception as e:  # noqa: BLE001 - onnx's inliner, converter and checker raise several kinds
        return NotApplicable(f"onnx's checker refuses the expanded body: {_first_line(e)}")
    return expanded


def _state_defaults(node: onnx.NodeProto, schema) -> None:
    """Give the node every attribute its schema defaults that it leaves out: a body reads an attribute by
    reference (MeanVarianceNormalization's `axes: ints = @axes`), and onnx's inliner drops a reference the
    node does not set, which would reduce over every axis instead of the default [0, 2, 3]."""
    given = {a.name for a in node.attribute}
    for name, attr in sorted(schema.attributes.items()):
        if name not in given and attr.default_value.type != onnx.AttributeProto.UNDEFINED:
            default = onnx.AttributeProto()
            default.CopyFrom(attr.default_value)
            default.name = name
            node.attribute.append(default)


def _older_imports(body: onnx.FunctionProto, model: onnx.ModelProto) -> dict[str, int]:
    """The domains the body imports at another version than the model (a body written at opset 16, as
    GreaterOrEqual's is, in a model of opset 28), with the body's version."""
    imported = _imports(model)
    return {o.domain: o.version for o in body.opset_import if imported.get(o.domain, o.version) != o.version}


def _converted(wrapped: onnx.ModelProto, older: dict[str, int]) -> onnx.ModelProto:
    """A body written for an older opset than the model's, as onnx's checker accepts it (one version of a
    domain per model): inlined at the body's opset, then brought to the model's by onnx's version converter,
    whose adapter for each operator version keeps its meaning (most changes only add types; a Reduce's
    axes move from attribute to input). Only the default domain has a converter, and only a model of the
    operator's node alone can be read at the body's opset."""
    target = next(o.version for o in wrapped.opset_import if o.domain == "")
    if set(older) - {"", "ai.onnx"} or len(wrapped.graph.node) > 1:
        raise _Refused(f"the body is written for opset {older}, the model imports {_imports(wrapped)}, and "
                       "onnx's version converter handles only a graph of the default domain alone")
    for o in wrapped.opset_import:
        if o.domain in older:
            o.version = older[o.domain]
    at_body = inliner.inline_local_functions(wrapped)
    try:
        return version_converter.convert_version(at_body, target)
    except Exception as e:  # noqa: BLE001 - the converter raises RuntimeError or its own errors
        raise _Refused(f"the body is written for opset {older['']}, and onnx's version converter cannot "
                       f"bring it to opset {target}: {_first_line(e)}") from None


def _imports(model: onnx.ModelProto) -> dict[str, int]:
    return {o.domain: o.version for o in model.opset_import}


def _body(schema, node: onnx.NodeProto, model: onnx.ModelProto, opset: int) -> onnx.FunctionProto | None:
    types = {i.name: i.type for i in model.graph.input}
    for init in model.graph.initializer:
        tp = onnx.TypeProto()
        tp.tensor_type.elem_type = init.data_type
        types[init.name] = tp
    inputs = [types.get(name) or onnx.TypeProto() for name in node.input]
    body = schema_body(schema, node, inputs, opset)
    if body is None:
        # onnx gives a context-dependent body only at an opset where none of its operators changed since the
        # body was written (Softmax-13's, written at 18, none at 28): take it at that opset, and let _converted
        # bring it to the model's
        written = [w for w in (schema.function_opset_versions or schema.context_dependent_function_opset_versions)
                   if w <= opset]
        if written and max(written) != opset:
            body = schema_body(schema, node, inputs, max(written))
    return body


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
        by_reason.setdefault((r["op"], r.get("reason") or NO_REASON), []).append(r)
    for (op, reason), group in sorted(by_reason.items()):
        lines += [f"## {op}: {reason}", ""]
        lines += [f"- `{r['case']}`: {r['detail']}" for r in group]
        lines.append("")
    return "\n".join(lines)


def parse_report(text: str) -> list[dict]:
    """The rows an expanded.md lists, as report_markdown takes them (op, reason, case, detail): what
    `generate-cases --op` keeps of the operators it does not rewrite."""
    rows, op, reason = [], None, None
    for line in text.splitlines():
        if line.startswith("## "):
            op, _, said = line[3:].partition(": ")
            reason = None if said == NO_REASON else said
        elif op is not None and line.startswith("- `"):
            case, _, detail = line[3:].partition("`: ")
            rows.append({"op": op, "reason": reason, "case": case, "detail": detail})
    return rows
