"""A case above the backend's opset runs at it where every ai.onnx node's version is in force there (issue 33)."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnx_conformance.harness import opset_ceiling, verdict
from onnx_conformance.harness.backends.base import Capabilities
from onnx_conformance.harness.corpus import find_cases
from onnx_conformance.harness.verdict import declined, run_case
from tests.conftest import _write_case, read_jsonl, run_cli
from tests.toybackends.toy import ToyAdapter

AT_26 = opset_ceiling.Ceiling(26, "the backend's maximum 26")


def _tensor(name: str, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, [3])


def _model(nodes, opset: int, ir: int = 14, functions=(), inputs=("x",), more_imports=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", [_tensor(n) for n in inputs], [_tensor("y")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), *more_imports],
                             ir_version=ir, functions=list(functions))


def _in_loop(node) -> onnx.ModelProto:
    """Loop whose body computes `node` (x -> z) once per iteration: the node sits in a subgraph."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]), node],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cond", TensorProto.BOOL, []), _tensor("x_in")],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), _tensor("z")])
    return _model([helper.make_node("Loop", ["", "", "x"], ["y"], body=body)], 28)


def _in_if(node) -> onnx.ModelProto:
    """If whose branches compute `node` (x -> z) from the outer scope's x."""
    branch = helper.make_graph([node], "branch", [], [_tensor("z")])
    model = _model([helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch)], 28)
    model.graph.input.append(helper.make_tensor_value_info("c", TensorProto.BOOL, []))
    return model


def _in_function(node) -> onnx.ModelProto:
    """A model-local function (domain `local`, importing ai.onnx 28) whose body is `node` (x -> z)."""
    f = helper.make_function("local", "F", ["x_in"], ["z"], [node], [helper.make_opsetid("", 28)])
    return _model([helper.make_node("F", ["x"], ["y"], domain="local")], 28, functions=[f],
                  more_imports=[helper.make_opsetid("local", 1)])


def test_the_rule_lowers_a_model_whose_every_version_is_in_force_at_the_ceiling():
    model = _model([helper.make_node("Abs", ["x"], ["y"])], 28, more_imports=[helper.make_opsetid("ai.onnx.ml", 5)])
    reason, data = opset_ceiling.lower(model, 28, AT_26, (1, 13))
    assert reason is None
    ran = onnx.load_from_string(data)
    # other domains' imports as they were; the IR version lowered only as far as the backend's maximum requires
    assert {(o.domain, o.version) for o in ran.opset_import} == {("", 26), ("ai.onnx.ml", 5)}
    assert ran.ir_version == 13
    onnx.checker.check_model(ran, full_check=True)
    # a backend that takes IR 14 keeps it
    kept, _ = opset_ceiling.lower(_model([helper.make_node("Abs", ["x"], ["y"])], 28), 28, AT_26, (1, 14))
    assert kept is None


def test_a_node_whose_version_changed_keeps_the_case_unsupported_naming_it():
    cast = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)
    reason, data = opset_ceiling.lower(_model([cast], 28), 28, AT_26, (1, 13))
    assert data is None
    assert reason == "opset 28 above the backend's maximum 26; Cast-28 is not in force at 26 (Cast-25 is)"
    # by the index's facts alone, before the model is read, the same words
    case = {"op": "Cast", "domain": "", "opset": 28, "since_version": 28}
    assert opset_ceiling.declined_by_index(case, AT_26) == reason
    assert opset_ceiling.declined_by_index({**case, "op": "Abs", "since_version": 13}, AT_26) is None


@pytest.mark.parametrize("build", [_in_loop, _in_if, _in_function])
def test_nodes_in_subgraphs_and_model_local_functions_count(build):
    source = "x" if build is _in_if else "x_in"
    cast = helper.make_node("Cast", [source], ["z"], to=TensorProto.FLOAT)
    reason, _ = opset_ceiling.lower(build(cast), 28, AT_26)
    assert reason == "opset 28 above the backend's maximum 26; Cast-28 is not in force at 26 (Cast-25 is)"
    reason, data = opset_ceiling.lower(build(helper.make_node("Abs", [source], ["z"])), 28, AT_26, None)
    assert reason is None, reason
    ran = onnx.load_from_string(data)
    assert opset_ceiling.ai_onnx_opset(ran) == 26
    if build is _in_function:  # the function's own ai.onnx import runs at the ceiling too; its domain is left
        assert [(o.domain, o.version) for o in ran.functions[0].opset_import] == [("", 26)]
        assert ("local", 1) in {(o.domain, o.version) for o in ran.opset_import}


def test_what_cannot_be_lowered_says_why():
    abs_ = [helper.make_node("Abs", ["x"], ["y"])]
    # opset 26 needs IR 13 (onnx.helper's table): a backend that reads IR 12 at most cannot take it
    reason, _ = opset_ceiling.lower(_model(abs_, 28), 28, AT_26, (1, 12))
    assert reason == ("opset 28 above the backend's maximum 26; at opset 26 the model needs IR version 13, "
                      "above the backend's maximum 12")
    # checked: a model the checker refuses at the ceiling does not run
    wrong = _model([helper.make_node("Abs", ["x", "x"], ["y"])], 28)
    reason, _ = opset_ceiling.lower(wrong, 28, AT_26, None)
    assert reason.startswith("opset 28 above the backend's maximum 26; at opset 26 onnx's checker refuses the model: ")
    # a model with external data is not rewritten: its tensors' files sit beside the case's model.onnx
    outside = _model([helper.make_node("Add", ["x", "w"], ["y"])], 28)
    w = outside.graph.initializer.add()
    w.name, w.data_type, w.dims[:], w.data_location = "w", TensorProto.FLOAT, [3], TensorProto.EXTERNAL
    w.external_data.add(key="location", value="w.bin")
    assert opset_ceiling.lower(outside, 28, AT_26, None)[0] == (
        "opset 28 above the backend's maximum 26; a model with external data is not rewritten")


def test_the_ceiling_is_the_backends_maximum_or_opset_n_below_it():
    assert opset_ceiling.ceiling(26, None) == AT_26
    assert opset_ceiling.ceiling(26, 24) == (24, "the ceiling 24 (--opset 24)")
    assert opset_ceiling.ceiling(26, 27) == AT_26
    assert opset_ceiling.ceiling(None, 24) == (24, "the ceiling 24 (--opset 24)")
    assert opset_ceiling.ceiling(None, None) is None


class LowToy(ToyAdapter):
    """The toy (onnx's reference evaluator) declaring what onnxruntime 1.31 does: opset 26, IR 13; it loads
    from the path it is given, and says which opsets and IR version it read there."""

    capabilities = Capabilities(opset=(1, 26), ir=(1, 13))

    def prepare(self, model_path: str):
        loaded = onnx.load(model_path)
        self.loaded = (opset_ceiling.ai_onnx_opset(loaded), loaded.ir_version)
        return super().prepare(model_path)


class BytesToy(LowToy):
    """LowToy loading from memory, as onnxruntime's adapter does: the bytes it is given, and the path it is told."""

    def prepare_checked(self, model_path: str, model: bytes | None):
        loaded = onnx.load_from_string(model)
        self.loaded = (opset_ceiling.ai_onnx_opset(loaded), loaded.ir_version, model_path)
        return ToyAdapter.prepare(self, model_path)


def _cases(root):
    x = np.array([-1.5, 0.0, 2.0], np.float32)
    for opset in (13, 28):
        _write_case(root / "node", f"test_abs_opset{opset}",
                    _model([helper.make_node("Abs", ["x"], ["y"])], opset, ir=14 if opset == 28 else 7),
                    [x], [np.abs(x)])
    _write_case(root / "node", "test_cast_opset28", _model([helper.make_node("Cast", ["x"], ["y"], to=1)], 28),
                [x], [x])
    index = {name: {"op": op, "domain": "", "opset": opset, "since_version": since, "dtype": "float",
                    "types": {"T": "float"}, "example": "x", "kind": "expect-output", "tolerance": None}
             for name, op, opset, since in (("test_abs_opset13", "Abs", 13, 13), ("test_abs_opset28", "Abs", 28, 13),
                                            ("test_cast_opset28", "Cast", 28, 28))}
    (root / "index.json").write_text(json.dumps({"format": 1, "cases": index}))
    return {c.name: dict(vars(c)) for c in find_cases(root)}


def test_a_case_above_the_backends_maximum_runs_at_it(tmp_path):
    cases = _cases(tmp_path / "cases")
    toy = LowToy({})
    ran = run_case(toy, cases["test_abs_opset28"])
    assert (ran["status"], ran["ran_opset"]) == ("pass", 26)
    assert toy.loaded == (26, 13)  # what the adapter loaded from its path is the model rewritten, not the file
    from_memory = BytesToy({})
    assert run_case(from_memory, cases["test_abs_opset28"])["ran_opset"] == 26
    assert from_memory.loaded == (26, 13, f"{cases['test_abs_opset28']['path']}/model.onnx")
    # a backend quoting the file it loaded names the case's, not the rewritten model's
    refused = run_case(LowToy({"test_abs_opset28": "load_error"}), cases["test_abs_opset28"])
    assert refused["detail"].startswith(f"ValueError: toy rejects {cases['test_abs_opset28']['path']}/model.onnx")
    own = run_case(toy, cases["test_abs_opset13"])
    assert own["status"] == "pass" and "ran_opset" not in own
    why = "opset 28 above the backend's maximum 26; Cast-28 is not in force at 26 (Cast-25 is)"
    assert declined(toy.capabilities, cases["test_cast_opset28"]) == why
    cast = run_case(toy, cases["test_cast_opset28"])
    assert (cast["status"], cast["detail"]) == ("unsupported", why) and "ran_opset" not in cast
    # --opset below the backend's maximum: every case above it, at it, by the same rule
    verdict.OPSET = 12
    try:
        low = run_case(toy, cases["test_abs_opset13"])
    finally:
        verdict.OPSET = None
    assert (low["status"], low["detail"]) == (
        "unsupported", "opset 13 above the ceiling 12 (--opset 12); Abs-13 is not in force at 12 (Abs-6 is)")


def test_opset_n_reaches_the_executor_and_the_record_run_json_and_matrices_say_it(tmp_path):
    """`--opset 26` with a backend that declares no maximum: the lowered case's record, run.json and both
    matrices say at which opset it ran; a case at its own opset says nothing new."""
    _cases(tmp_path / "cases")
    proc = run_cli("--backend", "tests.toybackends.toy:ToyAdapter", "--cases", "cases", "--report-dir", "r",
                   "--opset", "26", "--backend-option", "test_abs_opset28=wrong_values", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    results = {r["case"]: r for r in read_jsonl(tmp_path / "r" / "results.jsonl")}
    assert (results["test_abs_opset28"]["status"], results["test_abs_opset28"]["ran_opset"]) == ("fail", 26)
    assert "ran_opset" not in results["test_abs_opset13"]
    assert results["test_cast_opset28"]["detail"] == (
        "opset 28 above the ceiling 26 (--opset 26); Cast-28 is not in force at 26 (Cast-25 is)")
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["opset"] == {"ceiling": 26, "backend_maximum": None, "requested": 26, "cases_lowered": 1}
    md = (tmp_path / "r" / "matrix.md").read_text()
    assert "opset ceiling `26, --opset 26; 1 case above it ran at it`" in md
    assert "- Abs-13: float ❌ 1/2 (opset 13, 26)" in md
    assert "`test_abs_opset28` at opset 26:" in md
    html = (tmp_path / "r" / "matrix.html").read_text()
    assert 'title="Abs-13 float: 1 fail, 1 pass; ran at opset 13, 26"' in html
    # the command that reproduces the failure runs it at the same ceiling
    assert "--opset 26 -k test_abs_opset28" in (tmp_path / "r" / "junit.xml").read_text()
