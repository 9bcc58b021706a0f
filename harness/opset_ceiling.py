"""A case above the backend's opset runs at it, rewritten in memory, where its ai.onnx versions are in force there.

Issue 33. Each operator version is emitted at its first opset and at the latest; a runtime released before the
latest loads neither the latter nor anything above its own maximum, though Abs-13 at opset 28 is Abs-13
at opset 26 too. The rule (README "Run at the backend's own opset"): a model whose ai.onnx opset O is
above the ceiling M (the backend's declared maximum, or `--opset N` below it) runs at M when every node
of the ai.onnx domain, in the graph, its subgraphs and the model's own functions, has the same schema
at M as at O (onnx.defs.get_schema(op, M).since_version); else it stays `unsupported`, naming the first
node that differs. Only the ai.onnx imports change: an operator of another domain (ai.onnx.ml, a
function's own domain) is versioned by its own import, which the ceiling is not about. The IR version
is lowered only where the backend's maximum requires it, and never below what the lowered opsets need
(onnx.helper's release table). The rewritten model is checked by onnx's checker (structurally: `lower`).
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from typing import NamedTuple

from onnx_conformance.harness.layout import MODEL

AI_ONNX = frozenset({"", "ai.onnx"})  # the spec's two spellings of the default domain
# --opset travels to the executor among the adapter's options under this key; executor_child.serve takes
# it out before the adapter sees them (no --backend-option can be spelled with the colon's prefix).
OPTION = "conformance:opset"


class Ceiling(NamedTuple):
    """The ai.onnx opset a case above it runs at, and how a reason names it."""

    opset: int
    named: str  # "the backend's maximum 26", "the ceiling 24 (--opset 24)"


def maximum(capabilities) -> int | None:
    """The highest ai.onnx opset an adapter's Capabilities declare; None where they declare none."""
    return capabilities.opset[1] if capabilities is not None and capabilities.opset else None


def ceiling(top: int | None, requested: int | None) -> Ceiling | None:
    """The run's ceiling: `requested` (--opset N) where below the backend's declared maximum `top`, else
    that maximum; None where neither says one (an adapter that declares no opset range runs every case
    as it is)."""
    if requested is not None and (top is None or requested < top):
        return Ceiling(requested, f"the ceiling {requested} (--opset {requested})")
    return None if top is None else Ceiling(top, f"the backend's maximum {top}")


@functools.lru_cache(maxsize=None)
def in_force(op: str, opset: int) -> int | None:
    """The since_version of ai.onnx's `op` at `opset`; None where onnx defines none there."""
    import onnx.defs

    try:
        return onnx.defs.get_schema(op, opset, "").since_version
    except onnx.defs.SchemaError:
        return None


def not_in_force(op: str, since: int | None, at: int, top: Ceiling) -> str | None:
    """Why a node `op` at opset `at` (its version `since`) cannot run at the ceiling, or None."""
    there = in_force(op, top.opset)
    if there == since:
        return None
    instead = f"{op}-{there} is" if there is not None else "none is"
    return f"opset {at} above {top.named}; {op}-{since} is not in force at {top.opset} ({instead})"


def declined_by_index(case: dict, top: Ceiling) -> str | None:
    """The rule by the index's facts alone, before a byte of the case is read: a case whose own operator
    is not in force at the ceiling is declined as the model's check would decline it."""
    if (case.get("domain") or "") not in AI_ONNX or not case.get("op"):
        return None
    return not_in_force(case["op"], case.get("since_version"), case["opset"], top)


def ai_onnx_opset(model) -> int | None:
    for entry in model.opset_import:
        if entry.domain in AI_ONNX:
            return entry.version
    return None


def lower(model, at: int, top: Ceiling, ir: tuple[int, int] | None = None,
          held: bool = False) -> tuple[str | None, bytes | None]:
    """Rewrite `model` (its ai.onnx opset `at`, above the ceiling) in place to run at the ceiling:
    (None, the rewritten model's bytes, checked), or (why it stays unsupported, None). `held`: the
    safety check kept the model's bytes, so it holds no external data."""
    import onnx

    nodes = [(node, at) for node in _nodes(model.graph)]
    functions = []
    for f in model.functions:
        own = next((e for e in f.opset_import if e.domain in AI_ONNX), None)
        f_at = own.version if own is not None else at
        if f_at > top.opset:
            functions.append(own)
        nodes += [(node, f_at) for graph_node in f.node for node in _nodes_of(graph_node)]
    for node, node_at in nodes:
        if node.domain in AI_ONNX and node_at > top.opset:
            why = not_in_force(node.op_type, in_force(node.op_type, node_at), at, top)
            if why:
                return why, None
    if not held and _external(model):  # its tensors' files are beside model.onnx, the rewritten model is not
        return f"opset {at} above {top.named}; a model with external data is not rewritten", None
    for entry in model.opset_import:
        if entry.domain in AI_ONNX:
            entry.version = top.opset
    for entry in functions:
        entry.version = top.opset
    if ir and model.ir_version > ir[1]:
        from onnx import helper

        needs = helper.find_min_ir_version_for(list(model.opset_import), ignore_unknown=True)
        if needs > ir[1]:
            return (f"opset {at} above {top.named}; at opset {top.opset} the model needs IR version {needs}, "
                    f"above the backend's maximum {ir[1]}"), None
        model.ir_version = ir[1]
    data = model.SerializeToString()
    try:
        # Structurally: what the rewrite touched (the opset imports, the IR version). Shape inference,
        # which generators/emit.py ran on the model as emitted, is the same schemas' at the ceiling, so
        # its verdict stands (and a full check costs 456 us a case on average, 105 ms at worst).
        onnx.checker.check_model(data)
    except Exception as e:  # noqa: BLE001 - the checker's several kinds
        said = " ".join(str(e).split())[:300]
        return f"opset {at} above {top.named}; at opset {top.opset} onnx's checker refuses the model: {said}", None
    return None, data


def _external(model) -> bool:
    from onnx_conformance.harness.case_files import EXTERNAL
    from onnx_conformance.harness.safety import _model_tensors  # the safety check's own walk

    return any(t.data_location == EXTERNAL for _, t in _model_tensors(model))


def _nodes(graph):
    for node in graph.node:
        yield from _nodes_of(node)


def _nodes_of(node):
    """The node, then every node of its subgraphs (Loop's and Scan's body, If's branches), depth first."""
    yield node
    for a in node.attribute:
        if a.HasField("g"):
            yield from _nodes(a.g)
        for g in a.graphs:
            yield from _nodes(g)


_written: list[str] = []  # this process's folder for rewritten models, then the last one's file


def write(data: bytes, case_dir: str) -> str:
    """The rewritten model as a file, for an adapter that loads from a path (base.prepare_model): in a
    folder named as the case's (an adapter may read the case's name from its path), one at a time per
    process, each replacing the last; `remove_written` removes them when the process ends."""
    if not _written:
        _written[:] = [tempfile.mkdtemp(prefix="onnx-conformance-opset-"), ""]
        atexit.register(remove_written)  # an executor ends by os._exit, and calls it itself
    folder = os.path.join(_written[0], os.path.basename(os.path.normpath(case_dir)))
    last = _written[1]
    if last and os.path.dirname(last) != folder:
        os.replace(os.path.dirname(last), folder)  # one rename, not a folder made and one removed per case
    os.makedirs(folder, exist_ok=True)
    path = _written[1] = os.path.join(folder, MODEL)
    with open(path, "wb") as f:
        f.write(data)
    return path


def written_folder() -> str | None:
    """The folder of the last rewritten model written for an adapter, which it may quote."""
    return os.path.dirname(_written[1]) if _written and _written[1] else None


def remove_written() -> None:
    if _written:
        shutil.rmtree(_written[0], ignore_errors=True)
        _written.clear()
