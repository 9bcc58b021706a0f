"""The fixed cases run-conformance --check-adapter runs, each chosen to expose one adapter mistake, built by the generators.

Each probe is a case in the corpus's own layout (`DIR/node/<case>/` and `DIR/index.json`), so it runs
as any case does and reruns with `run-conformance --cases DIR -k <case>`. Most are examples of the
project's operators (generators/ops/) at the version in force at the chosen opset; three graphs are
built here, where no single operator's example can show the mistake (inputs whose names sort against
their order, an initializer the adapter must not feed, two outputs of one shape and type).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import NamedTuple

import numpy as np
import onnx
from onnx import checker, helper, numpy_helper

from onnx_conformance.generators.case import NotApplicable, case_name, seeded_rng, type_of
from onnx_conformance.generators.emit import build_model
from onnx_conformance.generators.ops import all_operators
from onnx_conformance.generators.protos import Built, files_of, ir_version_for, value_info
from onnx_conformance.generators.spec import versions
from onnx_conformance.harness.dtypes import element_of

# The contracts the probes check, in the order the check reports them: (key, what it is in words).
TOPICS = (
    ("types", "every element type in and out"),
    ("rank-0", "rank-0 tensors in and out"),
    ("zero-sized", "zero-sized tensors"),
    ("input order", "inputs by position, names aside, initializers left out"),
    ("output order", "outputs in graph order"),
    ("sequences", "sequences (lists of arrays)"),
    ("optionals", "optionals (a value, or None when empty)"),
    ("maps", "maps (dicts) in, sequences of maps out"),
)

# Examples of the project's operators: (topic, operator, example, its types; None: every tensor type).
EXAMPLES = (
    ("types", "Identity", "identity", None),  # a (2, 3, 5) tensor of each type, in and out
    ("rank-0", "Identity", "rank0", ("float", "int64", "string")),  # rank-0 in and out
    ("rank-0", "Size", "example", ("float",)),  # rank-0 out only: a (2, 3) input, an int64 scalar
    ("zero-sized", "Identity", "empty", ("float", "int64", "string")),  # a (2, 0, 3) tensor
    ("input order", "Sub", "example", ("float",)),  # [1, 2, 3] - [3, 2, 1]: swapped inputs change the sign
    ("sequences", "Identity", "identity", ("seq(tensor(float))", "seq(tensor(int64))")),
    ("sequences", "Identity", "empty", ("seq(tensor(float))",)),
    ("optionals", "Identity", "identity", ("optional(tensor(float))", "optional(seq(tensor(float)))")),
    ("optionals", "Identity", "empty", ("optional(tensor(float))", "optional(seq(tensor(float)))")),
    ("maps", "DictVectorizer", "documented", ("map(string, float)", "map(int64, float)")),
    ("maps", "ZipMap", "rows", ("seq(map(string, float))", "seq(map(int64, float))")),
)

# The graphs built here: example name -> what it shows.
INPUTS_NAMED_IN_REVERSE = "inputs_named_in_reverse"  # Sub(b, a), graph inputs [b, a]: sorted names swap them
INITIALIZER_LEFT_OUT = "initializer_left_out"  # Sub(x, a_weight), a_weight an initializer: one input
TWO_OUTPUTS = "two_outputs"  # [z_copy, a_negated] of one (3,) float input: sorted names swap them


class Probe(NamedTuple):
    name: str  # the case's name (its folder)
    topic: str  # a key of TOPICS
    op: str
    example: str
    dtype: str  # the type it carries: 'float', 'seq(tensor(float))', 'map(int64, float)'


def build(folder: Path, opset: int) -> list[Probe]:
    """Write every probe for ai.onnx opset `opset` under `folder` (emptied first), with its index.json;
    the probes in TOPICS' order. An example the version in force does not have (sequences before
    opset 14, optionals before 16) is left out: its topic then has fewer probes, or none."""
    folder = Path(folder)
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "node").mkdir(parents=True)
    built: list[tuple[Probe, Built]] = []
    for topic, op_name, example, wanted in EXAMPLES:
        built += _examples(topic, op_name, example, wanted, opset)
    built += _graphs(opset)
    order = [key for key, _ in TOPICS]
    built.sort(key=lambda pb: order.index(pb[0].topic))
    index = {}
    for probe, b in built:
        case_dir = folder / "node" / b.name
        (case_dir / "test_data_set_0").mkdir(parents=True)
        for rel, data in files_of(b).items():
            (case_dir / rel).write_bytes(data)
        index[b.name] = b.meta
    (folder / "index.json").write_text(json.dumps({"format": 1, "cases": index}, indent=1) + "\n")
    return [probe for probe, _ in built]


def _examples(topic: str, op_name: str, example: str, wanted, opset: int) -> list[tuple[Probe, Built]]:
    op = all_operators()[op_name]
    found = versions(op_name, op.domain)
    if op.domain:  # ai.onnx.ml and the like: their own opsets, the first where the version is in force
        v = found[-1]
        at = v.first_opset
    else:
        in_force = [v for v in found if v.first_opset <= opset <= v.last_opset]
        if not in_force:
            return []
        v, at = in_force[0], opset
    out = []
    for t in op.bindings(v):
        if t.suffix or ("(" in t.dtype if wanted is None else t.dtype not in wanted):
            continue
        with np.errstate(all="ignore"):
            case = op.case(example, v, t, seeded_rng(op_name, v.since_version, example, t.dtype))
        if isinstance(case, NotApplicable):
            continue
        name = case_name(op_name, example, at, t.dtype)
        model, feeds = build_model(op, v, at, case, name)
        meta = {"op": op_name, "domain": op.domain, "opset": at, "since_version": v.since_version,
                "dtype": t.dtype, "types": dict(t), "example": example, "kind": case.kind,
                "tolerance": case.tolerance}
        outputs = [(n, x) for n, x in case.outputs.items() if x is not None]
        b = Built(name, meta, model, feeds, outputs, [element_of(type_of(x)) for _, x in outputs])
        out.append((Probe(name, topic, op_name, example, t.dtype), b))
    return out


def _graphs(opset: int) -> list[tuple[Probe, Built]]:
    x = np.array([10, 20, 30], np.float32)
    w = np.array([1, 2, 3], np.float32)
    out = []

    # Sub's minuend is the graph's first input, named "b"; its subtrahend the second, "a".
    node = helper.make_node("Sub", ["b", "a"], ["difference"])
    out.append(_graph("input order", "Sub", INPUTS_NAMED_IN_REVERSE, opset, [node],
                      [("b", x), ("a", w)], [("difference", x - w)]))
    # The subtrahend is an initializer named to sort first: run() is given x alone.
    node = helper.make_node("Sub", ["x", "a_weight"], ["difference"])
    out.append(_graph("input order", "Sub", INITIALIZER_LEFT_OUT, opset, [node],
                      [("x", x)], [("difference", x - w)], initializers=[numpy_helper.from_array(w, "a_weight")]))
    # Output 0 is named to sort last.
    nodes = [helper.make_node("Identity", ["x"], ["z_copy"]), helper.make_node("Neg", ["x"], ["a_negated"])]
    out.append(_graph("output order", "Neg", TWO_OUTPUTS, opset, nodes,
                      [("x", w)], [("z_copy", w), ("a_negated", -w)]))
    return out


def _graph(topic: str, op_name: str, example: str, opset: int, nodes: list, inputs: list, outputs: list,
           initializers: list = ()) -> tuple[Probe, Built]:
    name = case_name(op_name, example, opset, "float")
    graph = helper.make_graph(nodes, name, [value_info(n, "float", v) for n, v in inputs],
                              [value_info(n, "float", v) for n, v in outputs], initializer=list(initializers))
    opsets = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="onnx-conformance")
    model.ir_version = ir_version_for(opsets)
    checker.check_model(model, full_check=True)
    since = onnx.defs.get_schema(op_name, opset).since_version
    meta = {"op": op_name, "domain": "", "opset": opset, "since_version": since, "dtype": "float",
            "types": {"T": "float"}, "example": example, "kind": "expect-output", "tolerance": None,
            "form": "pattern"}
    return Probe(name, topic, op_name, example, "float"), Built(name, meta, model, inputs, outputs,
                                                                 ["float"] * len(outputs))


def highest_opset(capabilities) -> int:
    """The ai.onnx opset the probes are built at: the newest the installed onnx knows, within what the
    adapter declares (Capabilities.opset), lowered until its IR version is within Capabilities.ir."""
    opset = onnx.defs.onnx_opset_version()
    declared = getattr(capabilities, "opset", None)
    if declared:
        opset = max(min(opset, declared[1]), declared[0])
    ir = getattr(capabilities, "ir", None)
    while ir and opset > 1 and ir_version_for([helper.make_opsetid("", opset)]) > ir[1]:
        opset -= 1
    return opset
