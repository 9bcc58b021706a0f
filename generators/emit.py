"""Builds every case of every operator and writes the corpus: case directories plus index.json."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np
import onnx
from onnx import checker, helper, numpy_helper

from onnx_conformance.generators.case import Case, Const, Declared, NotApplicable, Types, case_name, seeded_rng, type_of
from onnx_conformance.generators.expanded import SUFFIX, expand
from onnx_conformance.generators.graphs import all_families, build_family
from onnx_conformance.generators.ops import all_operators
from onnx_conformance.generators.protos import Built, files_of, ir_version_for, value_info
from onnx_conformance.generators.spec import OpVersion, versions
from onnx_conformance.harness.dtypes import element_of

INDEX_FORMAT = 1
REPO_CASES = Path(__file__).resolve().parent.parent / "cases"


def build_model(op, v: OpVersion, opset: int, case: Case, name: str) -> tuple[onnx.ModelProto, list]:
    graph_inputs, initializers, feeds, node_inputs = [], [], [], []
    for formal, value in case.inputs.items():
        if value is None:
            node_inputs.append("")
            continue
        node_inputs.append(formal)
        if isinstance(value, Const):
            initializers.append(numpy_helper.from_array(np.asarray(value.value), formal))
            continue
        graph_inputs.append(value_info(formal, type_of(value), value))
        feeds.append((formal, value))
    while node_inputs and node_inputs[-1] == "":  # an optional input left out at the end is simply absent
        node_inputs.pop()
    for name_, value in case.outer.items():
        graph_inputs.append(value_info(name_, type_of(value), value))
        feeds.append((name_, value))
    node_outputs, graph_outputs = [], []
    for formal, value in case.outputs.items():
        node_outputs.append("" if value is None else formal)
        if value is None:
            continue
        if isinstance(value, Declared):
            graph_outputs.append(value_info(formal, value.type, shape=value.shape))
        else:
            graph_outputs.append(value_info(formal, type_of(value), value))
    while node_outputs and node_outputs[-1] == "":
        node_outputs.pop()
    node = helper.make_node(op.name, node_inputs, node_outputs, domain=op.domain or None, **case.attrs)
    graph = helper.make_graph([*case.nodes, node], name, graph_inputs, graph_outputs, initializer=initializers)
    opsets = [helper.make_opsetid(op.domain, opset)]
    if case.nodes_opset is not None and op.domain:
        # ai.onnx nodes the model holds besides the operator: before it (Gradient's differentiated
        # graph) or in its subgraph attributes (FlexAttention's score_mod)
        opsets.append(helper.make_opsetid("", case.nodes_opset))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="onnx-conformance")
    model.ir_version = ir_version_for(opsets)
    if initializers and model.ir_version < 4:
        # IR 3 wants every initializer listed as a graph input too, which would shift the
        # numbering of input_K.pb: such a case must feed the value instead.
        raise ValueError(f"{name}: a constant input needs IR version 4 (opset 9) or later")
    return model, feeds


def build_version(op_name: str, since_version: int) -> tuple[list[Built], list[dict]]:
    """Every case of one operator version, and every example that does not apply, with why."""
    op = all_operators()[op_name]
    v = next(x for x in versions(op_name, op.domain) if x.since_version == since_version)
    built, not_applicable = [], []
    for t in op.bindings(v):
        for example in op.examples:
            rng = seeded_rng(op_name, since_version, example, t.dtype, *t.suffix)
            case = op.case(example, v, t, rng)
            if isinstance(case, NotApplicable):
                not_applicable.append({"op": op_name, "since_version": since_version, "dtype": t.dtype,
                                       "types": dict(t), "example": example, "reason": case.reason})
                continue
            for opset in v.opsets:
                built.append(_built(op, v, opset, t, example, case))
    return built, not_applicable


def _built(op, v: OpVersion, opset: int, t: Types, example: str, case: Case) -> Built:
    name = case_name(op.name, example, opset, t.dtype, t.suffix)
    model, feeds = build_model(op, v, opset, case, name)
    if case.kind == "expect-output":
        # Every model whose outcome is an output is a valid model; a failure here is a generator bug.
        checker.check_model(model, full_check=True)
    else:
        # Structurally valid: what makes it wrong is only the spec constraint the case is about.
        checker.check_model(model)
    meta = {
        "op": op.name, "domain": op.domain, "opset": opset, "since_version": v.since_version,
        "dtype": t.dtype, "types": dict(t), "example": example, "kind": case.kind, "reason": case.error,
        "tolerance": case.tolerance,
    }
    if case.quality:  # only where marked: every other entry stays as it was
        meta["quality"] = case.quality
    outputs = [(n, x) for n, x in case.outputs.items() if x is not None]
    expected = None if case.error else outputs
    return Built(name, meta, model, feeds, expected, [element_of(type_of(x)) for _, x in outputs])


def _emit_unit(args) -> tuple[dict, list[dict], list[dict], dict, list[str], list[dict]]:
    """Worker: build one operator version, write its cases under out/node, return index entries."""
    op_name, since_version, out, crosscheck = args
    # An oracle's NaN or infinity is a value here, not an accident: numpy's warnings about them
    # would only bury generate-cases' summary.
    with np.errstate(all="ignore"):
        built, not_applicable = build_version(op_name, since_version)
    op = all_operators()[op_name]
    entries, disagreements = _write_built(built, os.path.join(out, "node"), op, crosscheck)
    twins, differences = expanded_forms(op, built, not_applicable)
    more = _write_built(twins, os.path.join(out, "graph"), op, crosscheck)
    entries.update(more[0])
    disagreements.extend(more[1])
    return entries, not_applicable, disagreements, differences


def expanded_forms(op, built: list[Built], not_applicable: list[dict]) -> tuple[list[Built], list[dict]]:
    """The function-expanded twin of each expect-output case whose operator version has a function
    body (generators/expanded.py); why a twin does not exist goes to not_applicable, and where the
    body's value differs from the operator's, a row for cases/expanded.md."""
    twins, differences = [], []
    for b in built:
        if b.outputs is None or not _has_body(op.domain, op.name, b.meta["since_version"]):
            continue
        with np.errstate(all="ignore"):
            twin, row = expand(op, b)
        if isinstance(twin, NotApplicable):
            m = b.meta
            not_applicable.append({"op": op.name, "since_version": m["since_version"], "dtype": m["dtype"],
                                   "types": m["types"], "example": m["example"] + SUFFIX, "opset": m["opset"],
                                   "reason": twin.reason})
            continue
        twins.append(twin)
        if row:
            differences.append(row)
    return twins, differences


@lru_cache(maxsize=None)
def _has_body(domain: str, name: str, since_version: int) -> bool:
    schema = onnx.defs.get_schema(name, since_version, domain)
    return schema.has_function or schema.has_context_dependent_function


def _emit_family(args) -> tuple[dict, list[dict], list[dict], list[dict]]:
    """Worker: what _emit_unit does, for one graph family (generators/graphs.py), under out/graph."""
    name, out, crosscheck = args
    with np.errstate(all="ignore"):
        built, not_applicable = build_family(name)
    entries, disagreements = _write_built(built, os.path.join(out, "graph"), all_families()[name], crosscheck)
    return entries, not_applicable, disagreements, []


def _write_built(built: list[Built], folder: str, owner, crosscheck: bool) -> tuple[dict, list[dict]]:
    """Write each case's directory under folder; its index entry, and (with crosscheck) where onnx's
    ReferenceEvaluator disagrees, with the reason `owner` states."""
    entries, disagreements = {}, []
    for b in built:
        files = files_of(b)
        case_dir = os.path.join(folder, b.name)
        # Two mkdirs and one open per file: on a slow file system these calls are most of the time.
        os.mkdir(case_dir)
        os.mkdir(os.path.join(case_dir, "test_data_set_0"))
        for rel, data in files.items():
            _write(os.path.join(case_dir, rel), data)
        entries[b.name] = dict(b.meta, files={rel: hashlib.sha256(d).hexdigest() for rel, d in sorted(files.items())})
        if crosscheck:
            from onnx_conformance.generators.crosscheck import against_reference

            d = against_reference(b)
            if d:
                d["reason"] = owner.why_reference_differs(f"{d['example']} {d['dtype']}: {d['detail']}")
                disagreements.append(d)
    return entries, disagreements


def _write(path: str, data: bytes) -> None:
    """A new file holding data: what open(path, "wb").write(data) does, without the file object."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def units(ops: list[str] | None = None) -> list[tuple[str, int]]:
    """(operator, since_version) of every version to emit; `ops` may also name graph families
    (generators/graphs.py), which graph_units selects."""
    operators = all_operators()
    names = sorted(operators) if not ops else [n for n in ops if n not in graph_families()]
    unknown = [n for n in names if n not in operators]
    if unknown:
        raise KeyError(f"no generator module for {', '.join(unknown)} (have: {', '.join(sorted(operators))}, "
                       f"and the graph families {', '.join(sorted(graph_families()))})")
    # A deprecated version has no valid model to test: the checker refuses it (coverage lists it).
    return [(n, v.since_version) for n in names for v in versions(n, operators[n].domain) if not v.deprecated]


def case_path(out_dir: Path, name: str, entry: dict) -> Path:
    """Where a case of the index lies under the corpus directory: node/ for a single node, graph/ for a
    case with a `form` (expanded, pattern, model)."""
    return Path(out_dir) / ("graph" if entry.get("form") else "node") / name


def graph_units(ops: list[str] | None = None) -> list[str]:
    """The graph families to emit: every one, or those `ops` names."""
    return sorted(graph_families()) if not ops else sorted(n for n in ops if n in graph_families())


@lru_cache(maxsize=None)
def graph_families() -> dict:
    return all_families()


def generate_corpus(out_dir: Path = REPO_CASES, ops: list[str] | None = None, jobs: int | None = None,
                    crosscheck: bool = True, keep_others: bool = False) -> dict:
    """Write out_dir/node/<case>/... (single nodes), out_dir/graph/<case>/... (every node case's function-
    expanded twin, generators/expanded.py, and the patterns and models of generators/graphs.py) and
    out_dir/index.json; return the index (the body-vs-operator differences under "_expanded").
    `ops` names operators and graph families; where given, only those are written. With `ops` and `keep_others`, an existing corpus
    keeps every other operator's cases and index entries: only the selection's are replaced.

    With crosscheck, also return (under "_disagreements") every case where onnx's ReferenceEvaluator
    disagrees with our oracle (of the cases written); the caller decides where to record them.
    """
    out_dir = Path(out_dir)
    kept = _drop_selection(out_dir, set(ops)) if ops and keep_others and _is_our_corpus(out_dir) else None
    for folder in (out_dir / "node", out_dir / "graph"):
        if kept is not None:
            folder.mkdir(parents=True, exist_ok=True)
            continue
        if folder.exists():
            # Only ever clear a directory this generator wrote: one whose index.json is ours.
            if not _is_our_corpus(out_dir):
                raise FileExistsError(f"{folder}: exists and is not a corpus written by generate-cases; "
                                      "choose another --out")
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
    work = [(n, sv, str(out_dir), crosscheck) for n, sv in units(ops)]
    families = [(n, str(out_dir), crosscheck) for n in graph_units(ops)]
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(_emit_unit, work)) + list(pool.map(_emit_family, families))
    else:
        parts = [_emit_unit(w) for w in work] + [_emit_family(f) for f in families]
    cases, not_applicable, disagreements, expanded = {}, [], [], []
    for entries, na, dis, differences in parts:
        cases.update(entries)
        not_applicable.extend(na)
        disagreements.extend(dis)
        expanded.extend(differences)
    not_applicable.sort(key=_na_order)
    index = {
        "format": INDEX_FORMAT,
        "onnx_version": onnx.__version__,
        "cases": dict(sorted(cases.items())),
        "not_applicable": not_applicable,
    }
    if kept is not None:
        index["cases"] = dict(sorted({**kept["cases"], **cases}.items()))
        index["not_applicable"] = sorted(kept["not_applicable"] + index["not_applicable"], key=_na_order)
    (out_dir / "index.json").write_bytes(index_bytes(index))
    index["_expanded"] = sorted(expanded, key=lambda d: d["case"])
    if crosscheck:
        index["_disagreements"] = sorted(disagreements, key=lambda d: d["case"])
    return index


def _na_order(record: dict) -> tuple:
    return (record["op"], record["since_version"] or 0, record["dtype"], record["example"],
            json.dumps(record["types"], sort_keys=True))


def _drop_selection(out_dir: Path, selected: set[str]) -> dict:
    """The index of the corpus at out_dir without the selected operators' and graph families' cases
    (an operator's expanded twins too), whose folders are removed."""
    index = json.loads((out_dir / "index.json").read_text(encoding="utf-8"))

    cases = {}
    for name, entry in index["cases"].items():
        if entry["op"] in selected:
            shutil.rmtree(case_path(out_dir, name, entry), ignore_errors=True)
        else:
            cases[name] = entry
    for folder in ("node", "graph"):  # folders the index does not list (a run that died) are no case
        for name in os.listdir(out_dir / folder) if (out_dir / folder).is_dir() else ():
            if name not in cases:
                shutil.rmtree(out_dir / folder / name, ignore_errors=True)
    na = [r for r in index["not_applicable"] if r["op"] not in selected]
    return {"cases": cases, "not_applicable": na}


def index_bytes(index: dict) -> bytes:
    """index.json: the index's public keys, sorted, at an indent of one; each case and each not-applicable
    record on a line of its own (its keys sorted), so that a change to N cases changes N lines."""
    public = {k: v for k, v in sorted(index.items()) if not k.startswith("_")}
    parts = []
    for key, value in public.items():
        if key == "cases" and value:
            body = ",\n".join(f"  {json.dumps(name)}: {json.dumps(entry, sort_keys=True)}" for name, entry in sorted(value.items()))
            value_text = "{\n" + body + "\n }"
        elif key == "not_applicable" and value:
            value_text = "[\n" + ",\n".join(f"  {json.dumps(r, sort_keys=True)}" for r in value) + "\n ]"
        else:
            value_text = json.dumps(value, sort_keys=True)
        parts.append(f" {json.dumps(key)}: {value_text}")
    return ("{\n" + ",\n".join(parts) + "\n}\n").encode()


def _is_our_corpus(out_dir: Path) -> bool:
    try:
        return json.loads((out_dir / "index.json").read_text()).get("format") == INDEX_FORMAT
    except (OSError, ValueError):
        return False
