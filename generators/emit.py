"""Builds every case of every operator and writes the corpus: case directories plus index.json."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import checker, helper, numpy_helper

from generators import reduce_family as rf
from generators.ops import all_operators
from generators.spec import OpVersion, versions
from harness.dtypes import elem_type_of

INDEX_FORMAT = 1
REPO_CASES = Path(__file__).resolve().parent.parent / "cases"


def snake(op: str) -> str:
    """ReduceLogSumExp -> reduce_log_sum_exp; ReduceL1 -> reduce_l1."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", op).lower()


def case_name(op: str, example: str, opset: int, dtype: str) -> str:
    return f"test_{snake(op)}_{example}_opset{opset}_{dtype}"


def seeded_rng(*key) -> np.random.Generator:
    """Random data seeded by the case's identity (opset aside: both opsets see the same data)."""
    digest = hashlib.sha256("|".join(map(str, key)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


@dataclass
class Built:
    """One case, in memory: the model, its feeds and (for expect-output) its expected outputs."""

    name: str
    meta: dict
    model: onnx.ModelProto
    inputs: list[tuple[str, np.ndarray]]
    outputs: list[tuple[str, np.ndarray]] | None


def build_model(op: rf.ReduceOp, v: OpVersion, opset: int, dt: rf.DtypeInfo, ex: rf.Example, expected, name: str):
    inputs = [helper.make_tensor_value_info("data", elem_type_of(dt.name), ex.data.shape)]
    feeds = [("data", ex.data)]
    attrs = {}
    if ex.keepdims is not None:
        attrs["keepdims"] = ex.keepdims
    if ex.noop is not None:
        attrs["noop_with_empty_axes"] = ex.noop
    if ex.axes is not None:
        if v.has_input("axes"):
            axes = np.array(ex.axes, dtype=rf.DtypeInfo(ex.axes_dtype).np)
            inputs.append(helper.make_tensor_value_info("axes", elem_type_of(ex.axes_dtype), axes.shape))
            feeds.append(("axes", axes))
        else:
            attrs["axes"] = list(ex.axes)
    node = helper.make_node(op.name, [n for n, _ in feeds], ["reduced"], **attrs)
    # An expect-error case has no result shape; its output still declares one (the input's rank,
    # dims unknown), because the checker requires a shape on graph outputs and the model's only
    # defect must be the one the case is about.
    out_shape = [None] * ex.data.ndim if expected is None else expected.shape
    output = helper.make_tensor_value_info("reduced", elem_type_of(dt.name), out_shape)
    graph = helper.make_graph([node], name, inputs, [output])
    opsets = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="onnx-conformance")
    model.ir_version = helper.find_min_ir_version_for(opsets)
    return model, feeds


def build_version(op_name: str, since_version: int) -> tuple[list[Built], list[dict]]:
    """Every case of one operator version, and every example that does not apply, with why."""
    op = all_operators()[op_name]
    v = next(x for x in versions(op_name) if x.since_version == since_version)
    built, not_applicable = [], []
    for dtype in v.dtypes:
        dt = rf.DtypeInfo(dtype)
        for example, make in rf.EXAMPLES.items():
            ex = make(op, v, dt, seeded_rng(op_name, since_version, example, dtype))
            expected = None
            if isinstance(ex, rf.Example) and ex.kind == "expect-output":
                expected = rf.oracle(op, ex, dt)
            for bad in (ex, expected):
                if isinstance(bad, rf.NotApplicable):
                    not_applicable.append(
                        {"op": op_name, "since_version": since_version, "dtype": dtype, "example": example,
                         "reason": bad.reason}
                    )
                    break
            else:
                for opset in v.opsets:
                    built.append(_case(op, v, opset, dt, example, ex, expected))
    return built, not_applicable


def _case(op, v, opset, dt, example, ex: rf.Example, expected) -> Built:
    name = case_name(op.name, example, opset, dt.name)
    model, feeds = build_model(op, v, opset, dt, ex, expected, name)
    if ex.kind == "expect-output":
        # Every model whose outcome is an output is a valid model; a failure here is a generator bug.
        checker.check_model(model, full_check=True)
    else:
        # Structurally valid: what makes it wrong is only the spec constraint the case is about.
        checker.check_model(model)
    meta = {
        "op": op.name, "domain": "", "opset": opset, "since_version": v.since_version, "dtype": dt.name,
        "example": example, "kind": ex.kind, "reason": ex.reason, "tolerance": ex.tolerance,
    }
    outputs = None if expected is None else [("reduced", expected)]
    return Built(name, meta, model, feeds, outputs)


def files_of(b: Built) -> dict[str, bytes]:
    files = {"model.onnx": b.model.SerializeToString()}
    for k, (n, arr) in enumerate(b.inputs):
        files[f"test_data_set_0/input_{k}.pb"] = numpy_helper.from_array(arr, n).SerializeToString()
    for k, (n, arr) in enumerate(b.outputs or []):
        files[f"test_data_set_0/output_{k}.pb"] = numpy_helper.from_array(arr, n).SerializeToString()
    return files


def _emit_unit(args) -> tuple[dict, list[dict], list[dict]]:
    """Worker: build one operator version, write its cases under out/node, return index entries."""
    op_name, since_version, out, crosscheck = args
    built, not_applicable = build_version(op_name, since_version)
    entries, disagreements = {}, []
    for b in built:
        files = files_of(b)
        case_dir = Path(out) / "node" / b.name
        (case_dir / "test_data_set_0").mkdir(parents=True, exist_ok=True)
        for rel, data in files.items():
            (case_dir / rel).write_bytes(data)
        entries[b.name] = dict(b.meta, files={rel: hashlib.sha256(d).hexdigest() for rel, d in sorted(files.items())})
        if crosscheck:
            from generators.crosscheck import against_reference

            d = against_reference(b)
            if d:
                disagreements.append(d)
    return entries, not_applicable, disagreements


def units(ops: list[str] | None = None) -> list[tuple[str, int]]:
    operators = all_operators()
    names = sorted(operators) if not ops else ops
    unknown = [n for n in names if n not in operators]
    if unknown:
        raise KeyError(f"no generator module for {', '.join(unknown)} (have: {', '.join(sorted(operators))})")
    return [(n, v.since_version) for n in names for v in versions(n)]


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
    cases, not_applicable, disagreements = {}, [], []
    for entries, na, dis in parts:
        cases.update(entries)
        not_applicable.extend(na)
        disagreements.extend(dis)
    index = {
        "format": INDEX_FORMAT,
        "onnx_version": onnx.__version__,
        "cases": dict(sorted(cases.items())),
        "not_applicable": sorted(not_applicable, key=lambda r: (r["op"], r["since_version"], r["dtype"], r["example"])),
    }
    (out_dir / "index.json").write_bytes(index_bytes(index))
    if crosscheck:
        index["_disagreements"] = sorted(disagreements, key=lambda d: d["case"])
    return index


def index_bytes(index: dict) -> bytes:
    public = {k: v for k, v in index.items() if not k.startswith("_")}
    return (json.dumps(public, indent=1, sort_keys=True) + "\n").encode()


def _is_our_corpus(out_dir: Path) -> bool:
    try:
        return json.loads((out_dir / "index.json").read_text()).get("format") == INDEX_FORMAT
    except (OSError, ValueError):
        return False
