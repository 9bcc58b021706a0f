"""Writes the node test cases the installed onnx builds in memory into the standard layout.

onnx 1.23 no longer ships `onnx/backend/test/data/node/` as files: `collect_testcases()` builds
each case (model and data sets) in memory when its module is imported. This module writes them
the way onnx's own `backend-test-tools generate-data` did (onnx/backend/test/cmd_tools.py): one
proto per graph input and output, a SequenceProto, OptionalProto or MapProto where the graph
declares a sequence, optional or map, so onnx's loader (`Runner._load_proto`) and ours read them
back alike. An index.json in the project's format carries each case's facts.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

from onnx_conformance.harness.dtypes import name_of

SOURCE = "onnx.backend.test.case.node"


def collect(op_type: str | None = None) -> list[tuple[object, onnx.NodeProto]]:
    """onnx's test cases, each with the node its `expect()` call was given.

    `expect()` records every test name with its node in `_existing_names`; the function-expanded
    variants it appends right after (`<name>_expanded`, `<name>_expanded_ver<N>`) are not
    recorded there, so they take the node of the case they follow.
    """
    import warnings

    from onnx.backend.test.case import node as node_cases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # the builders' own overflow warnings (Cast, Reduce*)
        cases = node_cases.collect_testcases(op_type)
    nodes = getattr(node_cases, "_existing_names", {})  # onnx-internal; without it, see meta_of
    out, current = [], None
    for case in cases:
        current = nodes.get(case.name, current)
        out.append((case, current))
    return out


def _value_bytes(value, value_info: onnx.ValueInfoProto) -> bytes:
    """One input or output as onnx's cmd_tools writes it: the proto kind follows the graph's type."""
    kind = value_info.type.WhichOneof("value")
    name = value_info.name
    if kind == "map_type":
        return numpy_helper.from_dict(value, name).SerializeToString()
    if kind == "sequence_type":
        return numpy_helper.from_list(value, name).SerializeToString()
    if kind == "optional_type":
        return numpy_helper.from_optional(value, name).SerializeToString()
    if isinstance(value, TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(np.asarray(value), name).SerializeToString()


def files_of(case) -> dict[str, bytes]:
    model = case.model
    files = {"model.onnx": model.SerializeToString()}
    graph = model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        for j, value in enumerate(inputs):
            files[f"test_data_set_{i}/input_{j}.pb"] = _value_bytes(value, graph.input[j])
        for j, value in enumerate(outputs):
            files[f"test_data_set_{i}/output_{j}.pb"] = _value_bytes(value, graph.output[j])
    return files


def element_type(type_proto: onnx.TypeProto) -> str | None:
    """The tensor element type inside a tensor, sequence, optional or map type."""
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        return name_of(type_proto.tensor_type.elem_type)
    if kind == "sequence_type":
        return element_type(type_proto.sequence_type.elem_type)
    if kind == "optional_type":
        return element_type(type_proto.optional_type.elem_type)
    if kind == "map_type":
        return element_type(type_proto.map_type.value_type)
    return None


def meta_of(case, node: onnx.NodeProto | None) -> dict:
    model = case.model
    graph = model.graph
    domain = node.domain if node is not None else ""
    if node is not None:
        op = node.op_type
    else:  # not built by expect(): nothing names an operator (no such case in onnx 1.23)
        op = graph.node[0].op_type if len(graph.node) == 1 else "graph"
    opsets = {o.domain or "ai.onnx": o.version for o in model.opset_import}
    opset = opsets.get(domain or "ai.onnx")
    since = None
    if opset is not None and op != "graph":
        try:
            since = onnx.defs.get_schema(op, opset, domain).since_version
        except onnx.defs.SchemaError:
            since = None
    # The first input's element type, as the project corpus records it; a case with no input
    # (Constant, RandomNormal, ...) is named by its first output's.
    first = graph.input[0] if len(graph.input) else (graph.output[0] if len(graph.output) else None)
    return {
        "op": op, "domain": domain, "opset": opset, "since_version": since,
        "dtype": element_type(first.type) if first is not None else None,
        "example": case.name, "kind": "expect-output", "reason": None,
        # onnx's Runner grades every node case with the TestCase's rtol/atol.
        "tolerance": {"atol": case.atol, "rtol": case.rtol},
    }


def write(out: Path, op_type: str | None = None) -> dict:
    """Write out/node/<case>/... and out/index.json; return the index. Same onnx, same bytes."""
    out = Path(out)
    node_dir = out / "node"
    if node_dir.exists():
        if not is_node_corpus(out):
            raise FileExistsError(f"{node_dir}: exists and is not a corpus written by "
                                  f"generate-cases --onnx-node-tests; choose another --out")
        shutil.rmtree(node_dir)
    node_dir.mkdir(parents=True)
    cases = {}
    for case, node in collect(op_type):
        files = files_of(case)
        case_dir = node_dir / case.name
        for rel, data in files.items():
            path = case_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        cases[case.name] = dict(meta_of(case, node), files={
            rel: hashlib.sha256(data).hexdigest() for rel, data in sorted(files.items())})
    index = {"format": 1, "onnx_version": onnx.__version__, "source": SOURCE,
             "cases": dict(sorted(cases.items())), "not_applicable": []}
    (out / "index.json").write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
    return index


def is_node_corpus(out: Path) -> bool:
    try:
        return json.loads((Path(out) / "index.json").read_text()).get("source") == SOURCE
    except (OSError, ValueError, AttributeError):
        return False
