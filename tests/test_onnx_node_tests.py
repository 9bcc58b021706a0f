"""generate-cases --onnx-node-tests: onnx's in-memory node cases on disk, read back by both loaders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_conformance.harness.compare import compare_outputs
from onnx_conformance.harness.corpus import data_sets, find_cases, value_types
from tests.conftest import REPO, read_jsonl, run_cli


def _generate(out: Path, op: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, "-W", "ignore", "-m", "onnx_conformance.generators.cli", "--onnx-node-tests",
                             "--op", op, "--out", str(out)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def identity_corpora(tmp_path_factory) -> tuple[Path, Path]:
    """Identity's node cases (a tensor, an optional and a sequence case), written twice, each by
    a fresh process, since collect_testcases(op) filters only on first import."""
    a, b = tmp_path_factory.mktemp("a"), tmp_path_factory.mktemp("b")
    procs = [_generate(a, "Identity"), _generate(b, "Identity")]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    return a, b


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_onnx_same_bytes(identity_corpora):
    a, b = identity_corpora
    assert _tree(a) == _tree(b)
    index = json.loads((a / "index.json").read_text())
    assert set(index["cases"]) == {"test_identity", "test_identity_opt", "test_identity_sequence"}


def test_index_facts_come_from_the_model_and_the_test_case(identity_corpora):
    index = json.loads((identity_corpora[0] / "index.json").read_text())
    assert index["onnx_version"] == onnx.__version__
    entry = index["cases"]["test_identity_sequence"]
    model = onnx.load(identity_corpora[0] / "node" / "test_identity_sequence" / "model.onnx")
    opset = next(o.version for o in model.opset_import if o.domain == "")
    assert {k: entry[k] for k in ("op", "domain", "opset", "since_version", "dtype", "example", "kind")} == {
        "op": "Identity", "domain": "", "opset": opset,
        "since_version": onnx.defs.get_schema("Identity", opset).since_version,
        "dtype": "float", "example": "test_identity_sequence", "kind": "expect-output"}
    assert entry["tolerance"] == {"atol": 1e-7, "rtol": 1e-3}  # onnx's Runner's, per TestCase
    assert set(entry["files"]) == {"model.onnx", "test_data_set_0/input_0.pb", "test_data_set_0/output_0.pb"}


def test_values_read_as_onnx_own_loader_reads_them(identity_corpora):
    from onnx.backend.test.runner import Runner

    root = identity_corpora[0] / "node"
    for name in ("test_identity", "test_identity_opt", "test_identity_sequence"):
        model = onnx.load(root / name / "model.onnx")
        ours = data_sets(str(root / name), value_types(model))[0]
        theirs: list = []
        Runner._load_proto(None, str(root / name / "test_data_set_0" / "output_0.pb"), theirs,
                           model.graph.output[0].type)
        assert compare_outputs(theirs, ours.outputs).status == "pass", name
        assert type(ours.inputs[0]) is type(theirs[0])
    assert ours.output_dtypes == ["float"]  # a sequence's element type


@pytest.mark.parametrize("backend", ["onnxruntime", "reference"])
def test_sequence_and_optional_cases_run(identity_corpora, tmp_path, backend):
    r = run_cli("--backend", backend, "--cases", str(identity_corpora[0]), "--report-dir",
                str(tmp_path / "r"), cwd=tmp_path)
    statuses = {x["case"]: x["status"] for x in read_jsonl(tmp_path / "r" / "results.jsonl")}
    assert statuses == dict.fromkeys(["test_identity", "test_identity_opt", "test_identity_sequence"],
                                     "pass"), r.stdout[-2000:]
    assert r.returncode == 0


def test_the_writer_refuses_the_project_corpus_and_foreign_folders(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-m", "onnx_conformance.generators.cli", "--onnx-node-tests", "--out"]
    r = subprocess.run([*cmd, str(REPO / "cases")], env=env, capture_output=True, text=True)
    assert r.returncode == 2 and "its own --out" in r.stderr
    (tmp_path / "node").mkdir()
    from onnx_conformance.generators.onnx_node_tests import write

    with pytest.raises(FileExistsError, match="not a corpus written by"):
        write(tmp_path)


def test_optional_and_map_files_without_index(tmp_path):
    """A corpus in onnx's own layout with no index: optional and map values run, not skip."""
    case = tmp_path / "test_opt_map"
    (case / "test_data_set_0").mkdir(parents=True)
    opt_type = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])], "g",
        [helper.make_value_info("x", opt_type)], [helper.make_value_info("y", opt_type)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]), case / "model.onnx")
    for kind in ("input", "output"):
        (case / "test_data_set_0" / f"{kind}_0.pb").write_bytes(
            numpy_helper.from_optional(None, kind).SerializeToString())
    (found,) = find_cases(tmp_path)
    assert found.skip is None and found.dtype == "float"
    model = onnx.load(case / "model.onnx")
    ds = data_sets(str(case), value_types(model))[0]
    assert ds.inputs == [None] and ds.outputs == [None]


def test_maps_compare_by_key():
    e = {1: np.array([1.0], np.float32), 2: np.array([2.0], np.float32)}
    assert compare_outputs([e], [dict(e)]).status == "pass"
    wrong = compare_outputs([e], [{1: e[1], 3: e[2]}])
    assert wrong.status == "fail" and "map keys" in wrong.detail
    off = compare_outputs([e], [{1: e[1], 2: np.array([2.5], np.float32)}])
    assert off.status == "fail" and "output 0[1]" in off.detail
    assert compare_outputs([e], [[e[1], e[2]]]).status == "fail"


def _agreement():
    import importlib.util

    spec = importlib.util.spec_from_file_location("agreement", REPO / "bench" / "agreement.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_agreement_with_onnx_runner_end_to_end(identity_corpora, capsys):
    """Both runners on the same written corpus: onnx's Runner (from disk) and ours agree."""
    agreement = _agreement()
    assert agreement.main(["--cases", str(identity_corpora[0]), "-n", "0"]) == 0
    out = capsys.readouterr().out
    assert "agreement on pass / not-pass: 3 of 3 cases (100.00%)" in out
    assert "disagreements: 0" in out


def test_agreement_explains_or_flags_each_disagreement():
    agreement = _agreement()
    theirs = {"a": ("pass", ""), "b": ("fail", "RuntimeError: Numpy_type 260 can't be converted to MLDataType."),
              "c": ("fail", "AssertionError: Not equal to tolerance"), "d": ("skip", "opset"), "e": ("pass", "")}
    ours = {"a": ("pass", ""), "b": ("pass", ""), "c": ("pass", ""), "d": ("unsupported", "opset 28"),
            "e": ("fail", "output 0 differs")}
    result = agreement.compare(theirs, ours)
    assert result["agree"] == 2 and result["cases"] == 5
    reasons = {d["case"]: d["reason"] for d in result["disagreements"]}
    assert reasons["b"].startswith("onnx's Runner hands onnxruntime.backend ml_dtypes arrays")
    assert reasons["c"] is None and reasons["e"] is None  # unexplained: the script exits 1
    text = "\n".join(agreement.lines(result))
    assert "2 unexplained" in text and "| skip | unsupported | 1 |" in text
