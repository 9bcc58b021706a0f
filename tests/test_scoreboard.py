"""The committed baselines hold over the whole corpus, and the cross-backend reports say where backends differ."""

from __future__ import annotations

import gzip
import importlib
import json
import os
import shutil
from pathlib import Path

import pytest

from onnx_conformance.harness import compare_reports, scoreboard
from tests.conftest import REPO, run_cli


@pytest.fixture
def full_corpus(generated_corpus) -> Path:
    return generated_corpus[0]


# The backends CI gates on: the core install's two, and tract from the extras .ci/run installs.
# Every baseline covers the whole corpus (update-scoreboard); CI's budget (30 minutes on 2 cores,
# README "What CI gates") holds onnxruntime over every case (the README's main job), the reference
# evaluator over a fixed quarter, and tract, which takes 40 minutes over the whole corpus, over a fixed
# sixteenth balanced by the committed per-case seconds (5,370 cases reaching all 22 families).
# OpenVINO (15 minutes at -n 2 over the whole corpus) over a fixed sixteenth balanced likewise: some cases
# corrupt its process, so a later case in the same executor can crash or fail (FINDINGS OV-13); every
# result its gate would fail on is confirmed alone in a fresh executor (--confirm, harness/confirm.py),
# and one that passes there is `order-dependent`, graded by its status alone: the gate fails on the
# case, not on the order. --allow-fixes: its baseline's fail entries were recorded, unconfirmed, from one
# whole run, and some are that run's order (14 in this sixteenth pass in it); an improvement is still listed.
def _slice(backend: str, n: int) -> list[str]:
    return ["--shard", f"1/{n}", "--shard-durations", str(REPO / "reports" / backend / "results.jsonl.gz")]


GATED = {
    "onnxruntime": ("onnxruntime", []),
    "reference": ("onnx", ["--shard", "1/4"]),
    "tract": ("tract", _slice("tract", 16)),
    "openvino": ("openvino", [*_slice("openvino", 16), "--allow-fixes"]),
}


@pytest.mark.parametrize("backend", list(GATED))
def test_committed_baseline_holds_over_the_whole_corpus(backend, full_corpus, tmp_path):
    """The CI gate a vendor would run, against reports/<backend>/expectations.txt."""
    module, selection = GATED[backend]
    try:
        importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI"):  # CI installs every gated extra: a missing one is a broken install
            raise
        pytest.skip(f"{backend} is not installed (pip install -e '.[{backend}]')")
    expectations = REPO / "reports" / backend / "expectations.txt"
    proc = run_cli("--backend", backend, "--cases", str(full_corpus), "--report-dir", str(tmp_path / "r"),
                   "--expectations", str(expectations), *selection, "-q", "-rN", cwd=tmp_path, timeout=1500)
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert run["complete"]
    if not selection:
        assert sum(run["counts"].values()) == run["corpus"]["cases"]


def _report(root: Path, name: str, version: str, rows: list[dict]) -> Path:
    d = root / name
    d.mkdir()
    (d / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (d / "run.json").write_text(json.dumps({"backend": {"name": name, "version": version}, "complete": True}))
    return d


def _row(case, status, err=None, detail=""):
    return {"case": case, "op": "ReduceSum", "since_version": 13, "dtype": "int64", "example": "x",
            "kind": "expect-output", "status": status, "max_abs_err": err, "detail": detail}


def test_compare_reports_names_status_and_number_differences(tmp_path, capsys):
    a = _report(tmp_path, "a", "1.0", [_row("t_same", "pass"), _row("t_status", "pass"), _row("t_numbers", "fail", 1.0),
                                         _row("t_declined", "pass"), _row("t_only_a", "fail", 3.0)])
    b = _report(tmp_path, "b", "2.0", [_row("t_same", "pass"), _row("t_status", "error", detail="boom"),
                                         _row("t_numbers", "fail", 2.0), _row("t_declined", "unsupported")])
    rows = compare_reports.disagreements([compare_reports.load(a), compare_reports.load(b)])
    assert {r["case"]: r["differs_in"] for r in rows} == {"t_status": "status", "t_numbers": "numbers",
                                                          "t_declined": "status"}
    assert compare_reports.main([str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "| `t_status` | pass | error: boom |" in out
    assert "Answered differently: 2" in out and "t_only_a" not in out


def test_compare_reports_needs_real_reports(tmp_path, capsys):
    assert compare_reports.main([str(tmp_path / "nope"), str(tmp_path / "nope2")]) == 2
    assert "no results.jsonl" in capsys.readouterr().err


def test_scoreboard_table_counts_each_backend(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    reports = tmp_path / "reports"
    reports.mkdir()
    _report(reports, "onnxruntime", "9.9", [_row("t1", "pass"), _row("t2", "fail", 1.0)])
    _report(reports, "reference", "1.0", [_row("t1", "pass"), _row("t2", "pass")])
    assert scoreboard.main(["--no-run", "--backend", "onnxruntime", "--backend", "reference"]) == 0
    text = (reports / "README.md").read_text()
    assert "| ReduceSum | 13 | 1/2 | 2/2 |" in text
    assert "| onnxruntime | 9.9 |" in text
    first = text
    scoreboard.main(["--no-run", "--backend", "onnxruntime", "--backend", "reference"])
    assert (reports / "README.md").read_text() == first
    assert "t2" in (reports / "DISAGREEMENTS.md").read_text()


def _case_dir(root: Path, name: str) -> None:
    d = root / "node" / name / "test_data_set_0"
    d.mkdir(parents=True)
    (d.parent / "model.onnx").write_bytes(name.encode())


def test_cell_sample_touches_every_cell_with_fewer_cases(tmp_path):
    cases = tmp_path / "cases"
    entries = {
        "t_a_float": {"op": "Gather", "since_version": 13, "dtype": "float", "types": {"T": "float", "Tind": "int32"}},
        "t_b_float": {"op": "Gather", "since_version": 13, "dtype": "float", "types": {"T": "float", "Tind": "int64"}},
        "t_c_float": {"op": "Gather", "since_version": 13, "dtype": "float", "types": {"T": "float", "Tind": "int32"}},
        "t_d_int8": {"op": "Gather", "since_version": 13, "dtype": "int8", "types": {"T": "int8", "Tind": "int32"}},
        "t_e_none": {"op": "Shape", "since_version": 1, "dtype": None, "types": {}},
        # an operator's function-expanded twin is a cell of its own: a runtime runs a body, not the node
        "t_a_float_expanded": {"op": "Gather", "since_version": 13, "dtype": "float", "form": "expanded",
                               "types": {"T": "float", "Tind": "int32"}},
    }
    for name in entries:
        _case_dir(cases, name)
    (cases / "graph").mkdir()
    shutil.move(cases / "node" / "t_a_float_expanded", cases / "graph" / "t_a_float_expanded")
    (cases / "index.json").write_text(json.dumps({"format": 1, "cases": entries}))
    out = tmp_path / "sample"
    assert scoreboard.sample_cells(cases, out) == 5  # t_c adds no cell t_a and t_b did not
    sample = json.loads((out / "index.json").read_text())
    assert sorted(sample["cases"]) == ["t_a_float", "t_a_float_expanded", "t_b_float", "t_d_int8", "t_e_none"]
    assert sorted(p.name for p in (out / "node").iterdir()) == sorted(set(sample["cases"]) - {"t_a_float_expanded"})
    assert [p.name for p in (out / "graph").iterdir()] == ["t_a_float_expanded"]
    every = set().union(*(scoreboard.cell_keys(e) for e in entries.values()))
    assert set().union(*(scoreboard.cell_keys(e) for e in sample["cases"].values())) == every
    assert sample["format"] == 1


def test_committed_form_is_compressed_sorted_and_reproducible(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    reports = tmp_path / "reports"
    reports.mkdir()
    d = _report(reports, "onnxruntime", "9.9", [_row("t2", "fail", 1.0), _row("t1", "pass")])
    scoreboard.commit_form("onnxruntime")
    packed = (d / "results.jsonl.gz").read_bytes()
    assert [json.loads(line)["case"] for line in gzip.decompress(packed).splitlines()] == ["t1", "t2"]
    assert (d / "matrix.md").is_file() and (d / "matrix.html").is_file()
    (d / "results.jsonl").unlink()  # a fresh clone has only the compressed results
    scoreboard.commit_form("onnxruntime")
    assert (d / "results.jsonl.gz").read_bytes() == packed
    assert scoreboard.main(["--no-run", "--backend", "onnxruntime"]) == 0
    assert "| ReduceSum | 13 | 1/2 |" in (reports / "README.md").read_text()


def test_gate_fails_when_a_gated_backend_regresses(full_corpus, tmp_path):
    """What CI's gate does with a regression: a case the committed baseline expects to pass now
    fails. Simulated the other way round, with the real runtime and the real corpus: the baseline
    loses its record of one known onnxruntime failure, so that failure reads as new."""
    committed = (REPO / "reports" / "onnxruntime" / "expectations.txt").read_text().splitlines()
    known = next(line for line in committed if line.startswith("test_max_dtype_range_opset13_int64,fail,"))
    (tmp_path / "baseline.txt").write_text("\n".join(line for line in committed if line != known) + "\n")
    proc = run_cli("--backend", "onnxruntime", "--cases", str(full_corpus), "--report-dir", str(tmp_path / "r"),
                   "--expectations", str(tmp_path / "baseline.txt"), "--op", "Max", "-q", "-rN",
                   cwd=tmp_path, timeout=600)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "REGRESSION test_max_dtype_range_opset13_int64: got fail, expected pass" in proc.stdout


def test_disagreement_summary_folds_cases_to_one_line_per_cell(tmp_path):
    a = _report(tmp_path, "a", "1.0", [_row("t1", "pass"), _row("t2", "pass"), _row("t3", "pass"), _row("t4", "pass")])
    b = _report(tmp_path, "b", "2.0", [_row("t1", "fail", 1.0), _row("t2", "error"), _row("t3", "fail", 2.0),
                                         _row("t4", "unsupported")])
    reports = [compare_reports.load(a), compare_reports.load(b)]
    text = compare_reports.summary_markdown([label for label, _ in reports], compare_reports.disagreements(reports))
    assert "| ReduceSum | 13 | int64 | 3 | pass 3 | fail 2, error 1 | `t1` |" in text
    assert "Declined by some backends and answered by others: 1 (not listed)" in text


def _spliced_fixture(tmp_path: Path, fresh_version: str = "9.9") -> tuple[Path, Path, Path]:
    committed = _report(tmp_path, "committed", "9.9", [_row("t1", "pass"), _row("t2", "fail", 1.0), _row("t3", "error")])
    fresh = _report(tmp_path, "fresh", fresh_version, [_row("t2", "pass")])
    for d in (committed, fresh):
        run = json.loads((d / "run.json").read_text())
        run["backend"]["name"] = "onnxruntime"
        run["corpus"] = {"cases": 3, "path": "c"}
        (d / "run.json").write_text(json.dumps(run))
    (committed / "expectations.txt").write_text("t2,fail,off\nt3,error,gone\nt4,fail,kept\n")
    (fresh / "expectations.txt").write_text("t1,fail,a run's copy names only what it ran\n")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "index.json").write_text(json.dumps({"cases": {"t1": {}, "t2": {}, "t4": {}}}))
    return committed, fresh, corpus


def test_splice_replaces_the_rerun_cases_and_drops_the_gone(tmp_path):
    from onnx_conformance.harness.results import pack_results, read_results
    from onnx_conformance.harness.splice import splice

    committed, fresh, corpus = _spliced_fixture(tmp_path)
    pack_results(committed / "results.jsonl")
    (committed / "results.jsonl").unlink()  # the committed form: the .gz alone
    run = splice(committed, fresh, corpus)
    records = {r["case"]: r["status"] for r in read_results(committed / "results.jsonl")[0]}
    assert records == {"t1": "pass", "t2": "pass"}  # t2 re-run, t3 gone from the corpus
    assert run["counts"]["pass"] == 2 and run["counts"]["error"] == 0
    assert run["complete"] is False  # t4 has no record yet
    assert run["spliced"][-1]["cases"] == 1 and run["spliced"][-1]["dropped_gone"] == 1
    # t2's entry goes (it passed when rerun), t3's with its case, t4's stays (not rerun); the copy's word on
    # t1, which was not rerun, is not taken
    kept = [line for line in (committed / "expectations.txt").read_text().splitlines() if not line.startswith("#")]
    assert kept == ["t4,fail,kept"]


def test_splice_refuses_another_runtime_version(tmp_path):
    from onnx_conformance.harness.splice import SpliceError, splice

    committed, fresh, corpus = _spliced_fixture(tmp_path, fresh_version="10.0")
    with pytest.raises(SpliceError, match=r"run\.json: backend version '10\.0'"):
        splice(committed, fresh, corpus)


def test_splice_new_runs_the_cases_a_report_has_no_record_of(tmp_path):
    from onnx_conformance.harness.splice import missing, subset

    committed, _, corpus = _spliced_fixture(tmp_path)
    (corpus / "node" / "t4").mkdir(parents=True)
    (corpus / "node" / "t4" / "model.onnx").write_bytes(b"m")
    assert missing(committed, corpus) == ["t4"]
    small = subset(corpus, ["t4"], tmp_path / "small")
    assert json.loads((small / "index.json").read_text())["cases"] == {"t4": {}}
    assert (small / "node" / "t4" / "model.onnx").read_bytes() == b"m"
    assert not (small / "node" / "t4").is_symlink()
