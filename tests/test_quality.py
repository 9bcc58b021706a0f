"""The quality tier: a backend wrong only at values the corpus marks (their formula overflows the
type on the way to a representable result) gets `warn`, not `fail`, and the gate says what that costs."""

from __future__ import annotations

from pathlib import Path

import pytest

from onnx_conformance.generators.emit import generate_corpus
from onnx_conformance.harness import expectations as baseline
from tests.conftest import read_jsonl, run_cli

# mean([FLT_MAX, FLT_MAX]) is FLT_MAX; sum-then-divide in float gives inf
CASE = "test_reduce_mean_dtype_range_opset18_float"
SELECT = ("--op", "ReduceMean", "-k", "dtype_range_opset18_float and not float16")


@pytest.fixture(scope="module")
def means(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("means")
    return out, generate_corpus(out, ops=["ReduceMean", "ReduceSumSquare"], jobs=1, crosscheck=False)


def _run(corpus: Path, tmp_path: Path, *args: str, backend: str = "onnxruntime"):
    tmp_path.mkdir(parents=True, exist_ok=True)
    proc = run_cli("--backend", backend, "--cases", str(corpus), "--report-dir", str(tmp_path / "r"),
                   *SELECT, *args, cwd=tmp_path, timeout=300)
    rows = {r["case"]: r for r in read_jsonl(tmp_path / "r" / "results.jsonl")}
    return proc, rows


def test_the_generator_marks_the_mean_of_two_float_maxima_and_never_an_integer(means):
    _, index = means
    marked = index["cases"][CASE]["quality"]
    assert marked["outputs"] == {"0": [0, 1]}  # (FLT_MAX, FLT_MAX) and (-FLT_MAX, -FLT_MAX)
    assert "largest partial sum" in marked["reason"] and "float" in marked["reason"]
    kinds = {meta["dtype"] for meta in index["cases"].values() if "quality" in meta}
    assert kinds and kinds <= {"float", "double", "float16", "bfloat16"}
    # a sum of squares that fits has no intermediate beyond its result: nothing to mark
    assert not any("quality" in m for m in index["cases"].values() if m["op"] == "ReduceSumSquare")


def test_onnxruntime_s_inf_is_a_warn_that_passes_the_gate_and_fails_it_under_strict(means, tmp_path):
    corpus, _ = means
    proc, rows = _run(corpus, tmp_path)
    got = rows[CASE]
    assert got["status"] == "warn", got
    assert "got inf expected 3.4028" in got["detail"] and "only at values marked" in got["detail"]
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "⚠️" in (tmp_path / "r" / "matrix.md").read_text()
    junit = (tmp_path / "r" / "junit.xml").read_text()
    assert '<property name="status" value="warn" />' in junit
    # no baseline: a first run folds each case's lines unless asked for them (-rf)
    strict, _ = _run(corpus, tmp_path / "s", "--strict", "-rf")
    assert strict.returncode == 1, strict.stdout[-2000:]
    assert "REGRESSION" in strict.stdout and CASE in strict.stdout


def test_a_backend_answering_zero_fails(means, tmp_path):
    corpus, _ = means
    _, rows = _run(corpus, tmp_path, backend="tests.toybackends.zeroes:ZeroesBackend")
    assert rows[CASE]["status"] == "fail", rows[CASE]
    assert "only at values marked" not in rows[CASE]["detail"]


def test_a_fail_that_now_only_warns_is_a_fix_the_baseline_records(means, tmp_path):
    corpus, _ = means
    file = tmp_path / "expectations.txt"
    file.write_text(f"{CASE},fail,inf where FLT_MAX was expected\n")
    proc, _ = _run(corpus, tmp_path, "--expectations", str(file))
    assert proc.returncode == 1 and "XPASS(strict)" in proc.stdout, proc.stdout[-2000:]
    allowed, _ = _run(corpus, tmp_path / "a", "--expectations", str(file), "--allow-fixes")
    assert allowed.returncode == 0, allowed.stdout[-2000:]
    updated, _ = _run(corpus, tmp_path / "u", "--expectations", str(file), "--update-expectations")
    assert updated.returncode == 0
    assert baseline.load(file)[CASE].status == "warn"


def test_the_gate_rules_for_warn():
    warn = [{"case": "c", "status": "warn"}]
    assert baseline.evaluate(warn, None).exit_code == 0
    assert baseline.evaluate(warn, {}).exit_code == 0
    assert baseline.evaluate(warn, {}, strict=True).exit_code == 1
    entry = {"c": baseline.Expectation("c", "warn")}
    assert baseline.evaluate(warn, entry, strict=True).exit_code == 0
    assert baseline.evaluate([{"case": "c", "status": "fail"}], entry).exit_code == 1
    assert baseline.evaluate([{"case": "c", "status": "pass"}], entry).fixes
