"""Builds every case of every operator and writes the corpus: case directories plus index.json."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import checker, helper, numpy_helper

from onnx_conformance.generators.case import Case, Const, Declared, Map, NotApplicable, Opt, Seq, Types, case_name, seeded_rng, type_of
from onnx_conformance.generators.ops import all_operators
from onnx_conformance.generators.spec import OpVersion, versions
from onnx_conformance.harness.dtypes import elem_type_of, element_of, numpy_of

INDEX_FORMAT = 1
REPO_CASES = Path(__file__).resolve().parent.parent / "cases"


@dataclass
class Built:
    """One case, in memory: the model, its feeds and (for expect-output) its expected outputs."""

    name: str
    meta: dict
    model: onnx.ModelProto
    inputs: list[tuple[str, Any]]
    outputs: list[tuple[str, Any]] | None
    output_types: list[str]  # each expected output's element type, as the comparator names it


def value_info(name: str, type_name: str, value: Any = None, shape=None) -> onnx.ValueInfoProto:
    """A graph input or output: the value's type, and the concrete shape of a tensor value."""
    return helper.make_value_info(name, type_proto(type_name, value, shape))


def type_proto(type_name: str, value: Any = None, shape=None) -> onnx.TypeProto:
    if type_name.startswith("optional("):
        inner = type_name[len("optional("):-1]
        content = value.value if isinstance(value, Opt) else None
        return helper.make_optional_type_proto(type_proto(inner, content))
    if type_name.startswith("map("):
        key, val = map_types(type_name)
        return helper.make_map_type_proto(elem_type_of(key), type_proto(val))
    if type_name.startswith("seq(map("):
        return helper.make_sequence_type_proto(type_proto(type_name[len("seq("):-1]))
    if type_name.startswith("seq("):
        inner = type_name[len("seq("):-1]
        # The tensors of a sequence differ in shape: declare their rank only where they agree.
        ranks = {np.ndim(x) for x in value.items} if isinstance(value, Seq) else set()
        rank_shape = [None] * ranks.pop() if len(ranks) == 1 else None
        return helper.make_sequence_type_proto(type_proto(inner, None, rank_shape))
    elem = type_name[len("tensor("):-1] if type_name.startswith("tensor(") else type_name
    if shape is None and value is not None:
        shape = np.shape(value)
    return helper.make_tensor_type_proto(elem_type_of(elem), shape)


def map_types(type_name: str) -> tuple[str, str]:
    """'map(int64, string)' -> ('int64', 'string')."""
    key, val = type_name[len("map("):-1].split(",", 1)
    return key.strip(), val.strip()


def map_proto(name: str, value: Map) -> onnx.MapProto:
    """A map as onnx's loader reads it (numpy_helper.to_dict): the keys, and a sequence of one
    0-d tensor per value, in the keys' order."""
    proto = onnx.MapProto(name=name, key_type=elem_type_of(value.key))
    if value.key == "string":
        proto.string_keys.extend(str(k).encode() for k in value.items)
    else:
        proto.keys.extend(int(k) for k in value.items)
    seq = onnx.SequenceProto(elem_type=onnx.SequenceProto.TENSOR)
    dt = object if value.value == "string" else numpy_of(value.value)
    seq.tensor_values.extend(numpy_helper.from_array(np.array(x, dtype=dt)) for x in value.items.values())
    proto.values.CopyFrom(seq)
    return proto


def value_proto(name: str, value: Any):
    """A value as onnx's loader reads it: TensorProto, SequenceProto, OptionalProto or MapProto."""
    if isinstance(value, Map):
        return map_proto(name, value)
    if isinstance(value, Seq) and value.elem.startswith("map("):
        proto = onnx.SequenceProto(name=name, elem_type=onnx.SequenceProto.MAP)
        proto.map_values.extend(map_proto("", m) for m in value.items)
        return proto
    if isinstance(value, Opt):
        proto = onnx.OptionalProto(name=name)
        if value.value is None:
            proto.elem_type = onnx.OptionalProto.UNDEFINED
        elif isinstance(value.value, Seq):
            proto.elem_type = onnx.OptionalProto.SEQUENCE
            proto.sequence_value.CopyFrom(value_proto("", value.value))
        else:
            proto.elem_type = onnx.OptionalProto.TENSOR
            proto.tensor_value.CopyFrom(value_proto("", value.value))
        return proto
    if isinstance(value, Seq):
        proto = onnx.SequenceProto(name=name, elem_type=onnx.SequenceProto.TENSOR)
        proto.tensor_values.extend(value_proto("", x) for x in value.items)
        return proto
    return numpy_helper.from_array(np.asarray(value), name)


def plain(value: Any) -> Any:
    """A value as the comparator and the reference evaluator take it: arrays, lists, None."""
    if isinstance(value, Opt):
        return None if value.value is None else plain(value.value)
    if isinstance(value, Map):
        return plain_map(value)
    if isinstance(value, Seq):
        return [plain(x) if isinstance(x, Map) else np.asarray(x) for x in value.items]
    return np.asarray(value)


def plain_map(value: Map) -> dict:
    """A map as a dict: keys as Python int or str, values as 0-d arrays of the value type (how
    harness/corpus.py reads a MapProto back)."""
    dt = object if value.value == "string" else numpy_of(value.value)
    return {(str(k) if value.key == "string" else int(k)): np.array(x, dtype=dt) for k, x in value.items.items()}


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


def ir_version_for(opsets: list) -> int:
    """The lowest IR version that knows every opset imported. onnx.helper's table skips opsets
    2 to 4 (released under IR 3 between the opsets it lists): take the next opset it lists."""
    return _ir_version(tuple((o.domain or "ai.onnx", o.version) for o in opsets))


@lru_cache(maxsize=None)
def _ir_version(opsets: tuple[tuple[str, int], ...]) -> int:
    table = helper.OP_SET_ID_VERSION_MAP
    ir = 1
    for domain, version in opsets:
        known = sorted(v for d, v in table if d == domain and v >= version)
        if not known:
            raise ValueError(f"no IR version knows opset {version} of {domain!r}")
        ir = max(ir, table[(domain, known[0])])
    return ir


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


def files_of(b: Built) -> dict[str, bytes]:
    files = {"model.onnx": b.model.SerializeToString()}
    for k, (n, value) in enumerate(b.inputs):
        files[f"test_data_set_0/input_{k}.pb"] = value_proto(n, value).SerializeToString()
    for k, (n, value) in enumerate(b.outputs or []):
        files[f"test_data_set_0/output_{k}.pb"] = value_proto(n, value).SerializeToString()
    return files


def _emit_unit(args) -> tuple[dict, list[dict], list[dict], dict, list[str]]:
    """Worker: build one operator version, write its cases under out/node, return index entries
    (and, for index.json, each entry and each not-applicable record already rendered as JSON)."""
    op_name, since_version, out, crosscheck = args
    # An oracle's NaN or infinity is a value here, not an accident: numpy's warnings about them
    # would only bury generate-cases' summary.
    with np.errstate(all="ignore"):
        built, not_applicable = build_version(op_name, since_version)
    op = all_operators()[op_name]
    entries, rendered, disagreements = {}, {}, []
    node = os.path.join(out, "node")
    for b in built:
        files = files_of(b)
        case_dir = os.path.join(node, b.name)
        # Two mkdirs and one open per file: on a slow file system these calls are most of the time.
        os.mkdir(case_dir)
        os.mkdir(os.path.join(case_dir, "test_data_set_0"))
        for rel, data in files.items():
            _write(os.path.join(case_dir, rel), data)
        entry = entries[b.name] = dict(b.meta, files={rel: hashlib.sha256(d).hexdigest() for rel, d in sorted(files.items())})
        rendered[b.name] = _render(entry, 2)
        if crosscheck:
            from onnx_conformance.generators.crosscheck import against_reference

            d = against_reference(b)
            if d:
                d["reason"] = op.why_reference_differs(f"{d['example']} {d['dtype']}: {d['detail']}")
                disagreements.append(d)
    return entries, not_applicable, disagreements, rendered, [_render(r, 2) for r in not_applicable]


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
    operators = all_operators()
    names = sorted(operators) if not ops else ops
    unknown = [n for n in names if n not in operators]
    if unknown:
        raise KeyError(f"no generator module for {', '.join(unknown)} (have: {', '.join(sorted(operators))})")
    # A deprecated version has no valid model to test: the checker refuses it (coverage lists it).
    return [(n, v.since_version) for n in names for v in versions(n, operators[n].domain) if not v.deprecated]


def generate_corpus(out_dir: Path = REPO_CASES, ops: list[str] | None = None, jobs: int | None = None,
                    crosscheck: bool = True) -> dict:
    """Write out_dir/node/<case>/... and out_dir/index.json; return the index.

    With crosscheck, also return (under "_disagreements") every case where onnx's ReferenceEvaluator
    disagrees with our oracle; the caller decides where to record them.
    """
    out_dir = Path(out_dir)
    node = out_dir / "node"
    if node.exists():
        # Only ever clear a directory this generator wrote: one whose index.json is ours.
        if not _is_our_corpus(out_dir):
            raise FileExistsError(f"{node}: exists and is not a corpus written by generate-cases; choose another --out")
        shutil.rmtree(node)
    node.mkdir(parents=True)
    work = [(n, sv, str(out_dir), crosscheck) for n, sv in units(ops)]
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(_emit_unit, work))
    else:
        parts = [_emit_unit(w) for w in work]
    cases, not_applicable, disagreements, rendered, na_rendered = {}, [], [], {}, []
    for entries, na, dis, text, na_text in parts:
        cases.update(entries)
        rendered.update(text)
        not_applicable.extend(zip(na, na_text))
        disagreements.extend(dis)
    not_applicable.sort(key=lambda r: (r[0]["op"], r[0]["since_version"], r[0]["dtype"], r[0]["example"],
                                       json.dumps(r[0]["types"], sort_keys=True)))
    index = {
        "format": INDEX_FORMAT,
        "onnx_version": onnx.__version__,
        "cases": dict(sorted(cases.items())),
        "not_applicable": [r for r, _ in not_applicable],
    }
    (out_dir / "index.json").write_bytes(index_bytes(index, rendered, [t for _, t in not_applicable]))
    if crosscheck:
        index["_disagreements"] = sorted(disagreements, key=lambda d: d["case"])
    return index


def index_bytes(index: dict, rendered: dict[str, str] | None = None, na_rendered: list[str] | None = None) -> bytes:
    """index.json: the index's public keys, sorted, indented by one space.

    json's C encoder does not indent, and the Python one takes seconds over the whole corpus: the
    workers render each case entry and each not-applicable record (`_render`), and this joins them
    into the same bytes json.dumps(public, indent=1, sort_keys=True) gives."""
    public = {k: v for k, v in index.items() if not k.startswith("_")}
    if rendered is None or na_rendered is None:
        return (json.dumps(public, indent=1, sort_keys=True) + "\n").encode()
    skeleton = json.dumps(dict(public, cases={}, not_applicable=[]), indent=1, sort_keys=True)
    head, _, rest = skeleton.partition('"cases": {}')
    middle, _, tail = rest.partition('"not_applicable": []')
    cases = ("{\n" + ",\n".join(f"  {json.dumps(name)}: {rendered[name]}" for name in public["cases"]) + "\n }"
             if public["cases"] else "{}")
    na = "[\n" + ",\n".join(f"  {text}" for text in na_rendered) + "\n ]" if na_rendered else "[]"
    return (head + '"cases": ' + cases + middle + '"not_applicable": ' + na + tail + "\n").encode()


def _render(value, depth: int) -> str:
    """value as json.dumps(indent=1, sort_keys=True) writes it `depth` levels down: JSON strings hold
    no raw newline, so every newline is the start of an indented line."""
    return json.dumps(value, indent=1, sort_keys=True).replace("\n", "\n" + " " * depth)


def _is_our_corpus(out_dir: Path) -> bool:
    try:
        return json.loads((out_dir / "index.json").read_text()).get("format") == INDEX_FORMAT
    except (OSError, ValueError):
        return False
