"""The adapter writer's side (issue 32): prepare's signature, --check-adapter naming each mistake, the template, --list-backends."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_conformance.harness import adapter_check, adapter_probes, backend_list
from onnx_conformance.harness.backends import base, registry
from tests.conftest import REPO, read_jsonl, run_cli

TEMPLATE = "onnx_conformance.harness.backends.template"
MISTAKES = "tests.toybackends.mistakes"


# -- prepare's signature --------------------------------------------------------------------------

def _model() -> onnx.ModelProto:
    """Inputs of every kind, an initializer listed among the inputs (IR 4 on allows it), two outputs."""
    seq = helper.make_tensor_sequence_value_info("s", TensorProto.INT8, None)
    opt = helper.make_value_info("o", helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.BOOL, [])))
    mapped = helper.make_value_info("m", helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, None)))
    x = helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [2, "N", None])
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.BFLOAT16, None)
    n = helper.make_tensor_value_info("n", TensorProto.INT64, [])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"]), helper.make_node("SequenceLength", ["s"], ["n"])],
                              "g", [x, w, seq, opt, mapped], [y, n], initializer=[numpy_helper.from_array(np.ones(1, np.float32), "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def test_the_signature_is_the_graphs_inputs_and_outputs_in_order_initializers_left_out():
    sig = base.signature_of(_model())
    assert [(v.name, v.type, v.shape) for v in sig.inputs] == [
        ("x", "tensor(bfloat16)", (2, "N", None)), ("s", "seq(tensor(int8))", None),
        ("o", "optional(tensor(bool))", None), ("m", "map(int64, float)", None)]
    assert [(v.name, v.type, v.shape, v.element) for v in sig.outputs] == [
        ("y", "tensor(bfloat16)", None, "bfloat16"), ("n", "tensor(int64)", (), "int64")]


class _Old(base.Adapter):
    def prepare(self, model_path):
        return ("old", model_path)


class _New(base.Adapter):
    def prepare(self, model_path, signature=None):
        return ("new", signature)


class _Checked(base.Adapter):
    def prepare_checked(self, model_path, model, signature=None):
        return ("checked", model, signature)


class _Duck:  # no base class: prepare only
    def prepare(self, model_path, signature):
        return ("duck", signature)


def test_the_signature_reaches_prepare_only_where_it_is_asked_for(monkeypatch):
    model = _model()
    sig = base.signature_of(model)
    assert base.prepare_model(_New(), "m.onnx", b"bytes", model) == ("new", sig)
    assert base.prepare_model(_Checked(), "m.onnx", b"bytes", model) == ("checked", b"bytes", sig)
    assert base.prepare_model(_Duck(), "m.onnx", None, model) == ("duck", sig)
    # an adapter written before signatures: called as it always was, and no signature is made for it
    monkeypatch.setattr(base, "signature_of", lambda m: pytest.fail("signature made for an adapter not asking"))
    assert base.prepare_model(_Old(), "m.onnx", b"bytes", model) == ("old", "m.onnx")
    assert _Old().prepare_checked("m.onnx", None) == ("old", "m.onnx")


# -- --check-adapter ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def probes(tmp_path_factory) -> tuple[Path, list]:
    """The probes at the opset onnxruntime's adapter declares (every toy below derives from it or the template)."""
    folder = tmp_path_factory.mktemp("probes")
    opset = adapter_probes.highest_opset(registry.load("onnxruntime", {}).capabilities)
    assert adapter_probes.highest_opset(registry.load(TEMPLATE, {}).capabilities) == opset
    return folder, adapter_probes.build(folder, opset)


def _check(backend: str, probes) -> adapter_check.Report:
    folder, built = probes
    declared = adapter_check.declared_breaks(registry.load(backend, {}))
    return adapter_check.diagnose(built, adapter_check.run_probes(backend, {}, folder, 60.0, None), declared)


def test_the_probes_cover_each_contract_and_run_as_a_corpus(probes):
    folder, built = probes
    assert {p.topic for p in built} == {key for key, _ in adapter_probes.TOPICS}
    types = {p.dtype for p in built if p.topic == "types"}
    assert {"float", "bfloat16", "float8e4m3fn", "int4", "string", "bool"} <= types  # every tensor type, by ONNX's names
    from onnx_conformance.harness.corpus import read_corpus

    assert sorted(c.name for c in read_corpus(folder).cases) == sorted(p.name for p in built)


@pytest.mark.parametrize("backend", ["onnxruntime", TEMPLATE])
def test_the_onnxruntime_adapter_and_the_template_break_no_contract(backend, probes):
    report = _check(backend, probes)
    assert report.broken == [] and report.exit_code == 0, report.lines("")
    # a map fed correctly that the runtime computes otherwise (DictVectorizer's (1, N)) is the runtime's, not the adapter's
    assert all(f.key == "note" for f in report.findings)


@pytest.mark.parametrize(("toy", "broken", "said"), [
    ("RankOneOutputs", ["rank-0 out"], "returns rank-1 for a rank-0 output ((1,) for ()): keep the shape the runtime gives"),
    ("RankOneInputs", ["rank-0 in"], "turns a rank-0 input into shape (1,): pass 0-d arrays"),
    ("RankZeroRefused", ["rank-0 error"], "a rank-0 input ends in error (RuntimeError: cannot bind a tensor of rank 0)"),
    ("WidenedOutputs", ["dtype"], "bfloat16 came back as float, float8e4m3fn came back as float"),
    ("ReversedOutputs", ["outputs order"], "returns the outputs in another order than the graph's"),
    ("NotAList", ["not a list"], "run() returns a dict, not a list"),
    ("SortedNameFeeds", ["inputs by sorted name"], "inputs are fed by sorted name, not by position"),
    ("InitializersFed", ["initializer"], "counts an initializer as an input"),
    ("SequencesAsArrays", ["sequence error", "optional error"], "a sequence case ends in error"),
    ("SequencesReturnedAsArrays", ["sequence kind"], "a sequence comes back as ndarray: return a sequence as a list"),
    ("EmptyOptionalAsArray", ["empty optional out"], "an empty optional comes back as ndarray: return None"),
    ("DeclinesWithValueError", ["declines as error"], "raise Unsupported (or NotImplementedError)"),
    ("MapsAsValues", ["map error"], "a map input ends in error"),
])
def test_each_adapter_mistake_is_named(toy, broken, said, probes):
    report = _check(f"{MISTAKES}:{toy}", probes)
    assert report.broken == broken and report.exit_code == 1
    lines = report.lines("REPRO")
    assert any(line.startswith("BROKEN: ") and said in line for line in lines), lines
    assert any(line.startswith("    e.g. test_") for line in lines)
    assert lines[-1].startswith("rerun one: REPRO -k test_")


def test_a_break_declared_the_runtimes_own_is_a_note_for_its_probes_alone(probes):
    """runtime_breaks: the declared contract, for the probes named, is a note with its reason; the same
    contract broken by other probes still fails, and a declaration no probe shows is stale."""
    report = _check(f"{MISTAKES}:RankOneOutputsDeclared", probes)
    assert report.broken == ["rank-0 out"] and report.exit_code == 1
    lines = report.lines("REPRO")
    assert "note: returns rank-1 for a rank-0 output ((1,) for ()): the runtime's own, as the adapter declares " \
           "(runtime_breaks['rank-0 out']): this toy's runtime gives Size's result as (1,)" in lines
    assert "    e.g. test_size_example_opset" in "\n".join(lines)
    broken = next(line for line in lines if line.startswith("BROKEN: "))
    assert broken.startswith("BROKEN: returns rank-1 for a rank-0 output ((1,) for ())") and "Size" not in broken
    assert lines[lines.index(broken) + 1].startswith("    e.g. test_identity_rank0_opset")
    assert "stale: runtime_breaks['dtype'] declares float16, which no probe shows broken here" in lines

    folder, built = probes
    assert adapter_check.diagnose(built, {}, {"no such contract": (("float",), "why")}).stale == (
        f"runtime_breaks['no such contract'] names no contract of the check (one of: {', '.join(adapter_check.MISTAKES)})",)
    with pytest.raises(ValueError, match="runtime_breaks must map a contract to"):
        adapter_check.declared_breaks(type("Toy", (), {"runtime_breaks": {"dtype": ("float16", "a bare string")}})())


def test_check_adapter_is_a_command_of_its_own(tmp_path, capsys, probes):
    """Through run-conformance's main: the verdict printed, the exit code, the probes left to rerun; no corpus read."""
    from onnx_conformance.harness import cli

    rc = cli.main(["--backend", f"{MISTAKES}:WidenedOutputs", "--check-adapter", "--report-dir", str(tmp_path / "r"),
                   "--cases", str(tmp_path / "no-such-corpus")])
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "BROKEN: bfloat16 came back as float" in out
    assert re.search(r"^  broken +every element type in and out", out, re.M)
    assert re.search(r"^rerun one: run-conformance --backend \S+WidenedOutputs --cases \S+check-adapter --report-dir ", out, re.M)
    assert (tmp_path / "r" / "check-adapter" / "index.json").is_file()
    assert cli.main(["--backend", "nosuch", "--check-adapter"]) == 2
    assert "backend 'nosuch': no built-in adapter" in capsys.readouterr().err


# -- the template, end to end ---------------------------------------------------------------------

def test_the_template_gates_a_slice_of_the_corpus_on_its_first_try(tmp_path):
    """Having passed the check (above): a first run records the baseline, the next gates on it."""
    from onnx_conformance.generators.emit import generate_corpus

    cases = tmp_path / "cases"
    generate_corpus(cases, ["And", "SequenceAt"], jobs=1, crosscheck=False)
    baseline = tmp_path / "expectations.txt"
    common = ["--backend", TEMPLATE, "--cases", str(cases), "--report-dir", str(tmp_path / "r"),
              "--expectations", str(baseline)]
    first = run_cli(*common, "--update-expectations", cwd=tmp_path)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-2000:]
    statuses = {r["status"] for r in read_jsonl(tmp_path / "r" / "results.jsonl")}
    assert "pass" in statuses and not statuses & {"fail", "error", "crash", "timeout"}, statuses
    again = run_cli(*common, cwd=tmp_path)
    assert again.returncode == 0, again.stdout[-3000:]


# -- --list-backends ------------------------------------------------------------------------------

def test_list_backends_says_what_is_installed_and_what_installs_it(tmp_path):
    proc = run_cli("--list-backends", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0]: line for line in proc.stdout.splitlines() if line and not line.startswith(" ")}
    assert set(registry.builtin_names()) <= set(rows) and "template" not in rows
    assert re.match(r"onnxruntime +built-in +yes +core install$", rows["onnxruntime"])
    assert rows["openvino"].endswith('pip install "onnx-conformance[openvino]"')


def test_list_backends_reads_extras_and_entry_points_without_importing(monkeypatch):
    extras = {"openvino": ["openvino==0.0.1"], "tract": ["no-such-distribution-xyz>=1"]}
    monkeypatch.setattr(backend_list, "project_extras", lambda: extras)
    group = registry.ENTRY_POINT_GROUP
    points = [importlib.metadata.EntryPoint("myrt", "tests.toybackends.toy:ToyAdapter", group),
              importlib.metadata.EntryPoint("gone", "no_such_module_xyz:Adapter", group),
              importlib.metadata.EntryPoint("onnxruntime", "tests.toybackends.toy:ToyAdapter", group)]
    monkeypatch.setattr(backend_list.importlib.metadata, "entry_points", lambda group=None: points)
    rows = {(b.name, b.source.split()[0]): b for b in backend_list.backends()}
    openvino = rows[("openvino", "built-in")]
    if importlib.util.find_spec("openvino") is not None:
        assert not openvino.installed and "the extra wants openvino==0.0.1" in openvino.why
    tract = rows[("tract", "built-in")]
    assert not tract.installed and tract.why == "no-such-distribution-xyz is not installed"
    assert tract.install == 'pip install "onnx-conformance[tract]"'
    assert rows[("onnxruntime", "built-in")].installed and rows[("onnxruntime", "built-in")].install == "core install"
    assert rows[("myrt", "entry")].installed and rows[("myrt", "entry")].source == "entry point tests.toybackends.toy:ToyAdapter"
    assert not rows[("gone", "entry")].installed and "'no_such_module_xyz' is not importable" in rows[("gone", "entry")].why
    assert "shadowed: --backend onnxruntime is the built-in" in rows[("onnxruntime", "entry")].why


def test_the_plugin_runs_the_commands_too(tmp_path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PYTEST_ADDOPTS", None)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-c", os.devnull, "-p", "onnx_conformance.harness.plugin",
                           "--conformance-list-backends"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and re.search(r"^onnxruntime +built-in +yes", proc.stdout, re.M), proc.stdout + proc.stderr


# -- the guide ------------------------------------------------------------------------------------

def test_the_readme_checklist_names_every_mistake_the_check_names():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    guide = readme[readme.index("### Writing an adapter"):]
    guide = guide[:guide.index("\n### ", 1)]
    missing = [key for key in adapter_check.MISTAKES if key != "other" and f"`{key}`" not in guide]
    assert not missing, missing
    assert "harness/backends/template.py" in guide and "--check-adapter" in guide
