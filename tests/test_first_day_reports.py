"""A runtime vendor's first day (issue 32, items 3 and 4): a first run's short summary and how to record a
baseline, a refresh after an adapter change, and reports that say what ran (the selection, JUnit's errors,
the backend's last words, a dtype fail cast to the declared type)."""

from __future__ import annotations

import json
import shlex
import time
import xml.etree.ElementTree as ET

import ml_dtypes
import numpy as np

from onnx_conformance.harness import shard
from onnx_conformance.harness.compare import compare_outputs
from onnx_conformance.harness.corpus import find_cases
from onnx_conformance.harness.executor import Executor
from onnx_conformance.harness import junit
from onnx_conformance.harness.results import ResultsLog, read_results
from tests.conftest import TOY, build_corpus, read_jsonl, run_cli

ADDS = [f"test_add_{i:02d}" for i in range(6)]
BAD = ["--backend-option", "test_add_01=wrong_values", "--backend-option", "test_add_02=error"]


def _said(stdout: str, start: str) -> str:
    """The line of the conformance summary that starts with `start`."""
    return next(line for line in stdout.splitlines() if line.startswith(start))


def _command(line: str) -> list[str]:
    """The run-conformance command a summary line ends with, as run_cli's arguments."""
    words = shlex.split(line.split(": ", 1)[1])
    assert words[0] == "run-conformance"
    return words[1:]


def test_a_first_run_prints_a_short_summary_and_how_to_record_a_baseline(tmp_path):
    cases = build_corpus(tmp_path / "cases", adds=ADDS, index=True)
    for extra in ([], ["--plain-pytest"]):
        proc = run_cli("--backend", TOY, "--cases", str(cases), "--report-dir", "r", *BAD, *extra, cwd=tmp_path)
        out = proc.stdout
        assert proc.returncode == 1, out + proc.stderr  # no baseline: a fail or an error fails the gate
        # no FAILED block or line, no REGRESSION line per case: counts, reasons folded, where, how
        lines = out.splitlines()
        assert not [ln for ln in lines if ln.startswith(("FAILED", "REGRESSION", "_")) or "= FAILURES =" in ln], out
        assert "conformance: 1 error, 1 fail, 4 pass (6 cases)" in out
        assert "error   test_add_02 [run]: RuntimeError: toy kernel failed" in out
        assert "reports in r: matrix.md" in out and "results.jsonl (every case)" in out
        assert "the 2 cases that fail, error, crash or time out fail the gate" in out
        assert "2 failed, 4 passed" in out.strip().splitlines()[-1]
    record = _said(out, "record this run as the baseline")
    assert record.endswith("--expectations r/expectations.txt --update-expectations")
    assert run_cli(*_command(record), "--report-dir", "r", cwd=tmp_path).returncode == 0
    assert [ln.split(",")[:2] for ln in (tmp_path / "r" / "expectations.txt").read_text().splitlines()[1:]] == \
        [["test_add_01", "fail"], ["test_add_02", "error"]]
    # asked for (-v, -r, --tb), every FAILED block and line is there as before
    proc = run_cli("--backend", TOY, "--cases", str(cases), "--report-dir", "r", *BAD, "-rA", cwd=tmp_path)
    assert "FAILED Add::test_add_01" in proc.stdout and "REGRESSION test_add_02: got error" in proc.stdout
    assert "_ test_add_02 _" in proc.stdout and "reproduce: run-conformance" in proc.stdout


def test_regressions_all_one_change_of_status_say_so_and_how_to_refresh(tmp_path):
    cases = build_corpus(tmp_path / "cases", adds=ADDS, index=True)
    (tmp_path / "base.txt").write_text("test_add_01,error,boom\ntest_add_02,error,boom\n")
    declines = ["--backend-option", "test_add_01=notimpl", "--backend-option", "test_add_02=notimpl"]
    args = ["--backend", TOY, "--cases", str(cases), "--report-dir", "r", "--expectations", "base.txt", *declines]
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 1
    assert "regressions by change of status: 2 error -> unsupported" in proc.stdout
    refresh = _said(proc.stdout, "all 2 regressions are one change of status, error -> unsupported")
    assert refresh.endswith("--expectations base.txt --update-expectations")
    assert run_cli(*_command(refresh), "--report-dir", "r", cwd=tmp_path).returncode == 0
    assert [ln.split(",")[:2] for ln in (tmp_path / "base.txt").read_text().splitlines()[1:]] == \
        [["test_add_01", "unsupported"], ["test_add_02", "unsupported"]]
    # two kinds of change: counted, no refresh offered
    proc = run_cli(*args, "--backend-option", "test_add_03=abort", "--backend-option", "test_add_04=wrong_values",
                   cwd=tmp_path)
    assert "regressions by change of status: 1 pass -> crash, 1 pass -> fail" in proc.stdout, proc.stdout
    assert "refresh the baseline" not in proc.stdout


def test_run_json_and_the_matrices_say_what_was_selected(tmp_path):
    cases = build_corpus(tmp_path / "cases", adds=ADDS, reduce_sums=["test_reduce_sum_a"], index=True)
    proc = run_cli("--backend", TOY, "--cases", str(cases), "--report-dir", "r", "--op", "Add", "-k", "not 05",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    chosen = ADDS[:5]
    assert run["selection"] == {"op": ["Add"], "keyword": "not 05", "cases": 5,
                                "names_sha256": shard.names_sha256(chosen)}
    assert run["complete"] is True and run["corpus"]["cases"] == 7
    md = (tmp_path / "r" / "matrix.md").read_text()
    assert "selection `--op Add -k not 05` · cases `5 of the 5 selected`" in md and "complete `yes`" in md
    assert "<span>cases</span> <code>5 of the 5 selected</code>" in (tmp_path / "r" / "matrix.html").read_text()
    assert json.loads((tmp_path / "r" / "matrix.json").read_text())["run"]["selection"]["cases"] == 5
    # -x stops the run early: complete is relative to the selection, so it is not
    proc = run_cli("--backend", TOY, "--cases", str(cases), "--report-dir", "r", "-x", *BAD, cwd=tmp_path)
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert proc.returncode == 1 and run["complete"] is False and run["selection"]["cases"] == 7
    assert "Incomplete run: 2 of the 7 selected cases recorded" in (tmp_path / "r" / "matrix.md").read_text()


def test_a_shard_that_ran_less_than_its_shard_does_not_merge(tmp_path):
    names = [f"test_add_{i:02d}" for i in range(8)]
    cases = build_corpus(tmp_path / "cases", adds=names, index=True)
    for k in (1, 2):
        narrowed = ["-k", "not test_add_0"] if k == 2 else []
        run_cli("--backend", TOY, "--cases", str(cases), "--shard", f"{k}/2", "--report-dir", f"s{k}", *narrowed,
                cwd=tmp_path)
    from onnx_conformance.harness.merge import main

    assert main([str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "m")]) == 2
    problems = json.loads((tmp_path / "m" / "run.json").read_text())["problems"]
    assert any(p.startswith("shard 2/2") and "selected less than its shard (-k not test_add_0)" in p
               for p in problems), problems


def test_junit_tells_errors_crashes_and_timeouts_from_failures(tmp_path):
    rows = [junit.Testcase("Add", f"test_{s}", 0.1, s, "failed", f"{s}!", f"{s} text") for s in
            ("fail", "error", "crash", "timeout", "flaky")]
    rows.append(junit.Testcase("Add", "test_xpass", 0.1, "pass", "failed", "XPASS(strict)", "text"))
    junit.write_junit(tmp_path / "junit.xml", rows, time.time(), 1.0)
    suite = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    tags = {tc.get("name"): [e.tag for e in tc if e.tag != "properties"] for tc in suite.iter("testcase")}
    assert tags == {"test_fail": ["failure"], "test_error": ["error"], "test_crash": ["error"],
                    "test_timeout": ["error"], "test_flaky": ["failure"], "test_xpass": ["failure"]}
    assert (suite.get("errors"), suite.get("failures"), suite.get("tests")) == ("3", "3", "6")


def test_the_backends_last_words_are_kept_for_an_error_a_crash_and_a_timeout(tmp_path):
    names = ["test_add_a", "test_add_b", "test_add_c", "test_add_d", "test_add_e"]
    build_corpus(tmp_path, adds=names, nested=False)
    behaviours = {"test_add_b": "error", "test_add_c": "abort", "test_add_d": "hang"}
    executor = Executor("tests.toybackends.talker:Talker", behaviours, timeout=3)
    try:
        results = {case.name: executor.run(case) for case in find_cases(tmp_path)}
    finally:
        executor.close()
    assert [results[n]["status"] for n in names] == ["pass", "error", "crash", "timeout", "pass"]
    assert results["test_add_b"]["stderr"] == "talker: running test_add_b"  # this case's words, not the last's
    assert results["test_add_c"]["stderr"] == "talker: running test_add_c\ntalker: last words of test_add_c"
    assert results["test_add_d"]["stderr"] == "talker: running test_add_d"
    assert "stderr" not in results["test_add_a"] and "stderr" not in results["test_add_e"]
    # results.jsonl: the field where there is one; a passing case's record is as it was
    log = ResultsLog(tmp_path / "results.jsonl", resume=False)
    for n in names:
        log.append(results[n])
    log.close()
    recorded = {r["case"]: r for r in read_results(tmp_path / "results.jsonl")[0]}
    assert list(recorded["test_add_a"])[-1] == "seconds" and recorded["test_add_b"]["stderr"]


def test_a_first_runs_failure_text_quotes_the_backends_last_words(tmp_path):
    cases = build_corpus(tmp_path / "cases", adds=ADDS[:2], index=True)
    proc = run_cli("--backend", "tests.toybackends.talker:Talker", "--cases", str(cases), "--report-dir", "r",
                   "--backend-option", "test_add_01=error", "-v", cwd=tmp_path)
    assert "what the backend wrote last (stdout, stderr):\n  talker: running test_add_01" in proc.stdout
    assert read_jsonl(tmp_path / "r" / "results.jsonl")[1]["stderr"] == "talker: running test_add_01"
    written = ET.parse(tmp_path / "r" / "junit.xml").getroot()
    assert "talker: running test_add_01" in next(written.iter("error")).text


def test_a_dtype_fail_says_whether_the_values_match_once_cast():
    declared = np.array([1.5, -2.25, 3.0], ml_dtypes.bfloat16)
    widened = compare_outputs([declared], [declared.astype(np.float32)])
    assert widened.detail == "output 0 dtype float != expected bfloat16; the values match once cast to bfloat16"
    wrong = compare_outputs([declared], [declared.astype(np.float32) * 2])
    assert wrong.detail == \
        "output 0 dtype float != expected bfloat16; the values differ too, once cast to bfloat16 (3 of 3)"
    text = compare_outputs([np.array([1, 2], np.int64)], [np.array(["a", "b"])])
    assert text.detail == "output 0 dtype string != expected int64; the values cannot be cast to int64"
