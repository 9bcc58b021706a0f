"""run-conformance end to end: real subprocesses, real executor children, toy backends that misbehave."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import REPO, TOY, build_corpus, read_jsonl, run_cli

BEHAVIOURS = {
    # case name: (toy behaviour, expected status, expected stage)
    "test_add_ok": ("correct", "pass", None),
    "test_add_wrong_values": ("wrong_values", "fail", "compare"),
    "test_add_wrong_shape": ("wrong_shape", "fail", "compare"),
    "test_add_notimpl": ("notimpl", "unsupported", "load"),
    "test_add_load_error": ("load_error", "error", "load"),
    "test_add_run_error": ("error", "error", "run"),
    "test_add_abort": ("abort", "crash", "run"),
    "test_add_segv": ("segv", "crash", "run"),
    "test_add_hang": ("hang", "timeout", "run"),
    "test_add_zz_after_hang": ("correct", "pass", None),
}
EXPECT_ERROR = {
    "test_add_invalid_clean_run": ("error", "pass", "run"),
    "test_add_invalid_clean_load": ("load_error", "pass", "load"),
    "test_add_invalid_silent": ("correct", "fail", "run"),
    "test_add_invalid_abort": ("abort", "crash", "run"),
    # a decline proves nothing about rejecting bad input (issue 15)
    "test_add_invalid_declined": ("notimpl", "unsupported", "load"),
}


def options(mapping: dict) -> list[str]:
    out = []
    for case, behaviour in mapping.items():
        out += ["--backend-option", f"{case}={behaviour}"]
    return out


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory):
    """One run over every misbehaviour at once; the tests below read what it left behind."""
    root = tmp_path_factory.mktemp("mixed")
    cases = build_corpus(root / "cases", adds=BEHAVIOURS, reduce_sums=["test_reduce_sum_ok"],
                         errors=EXPECT_ERROR, index=True)
    behaviours = {c: b for c, (b, _, _) in {**BEHAVIOURS, **EXPECT_ERROR}.items()}
    proc = run_cli("--backend", TOY, "--cases", str(cases), "--report-dir", str(root / "report"),
                   # the timeout also covers the executor's start (a fresh interpreter importing the
                   # backend), which takes seconds when the other xdist worker saturates the cores
                   "--timeout", "6", *options(behaviours), "-rs", cwd=root)
    results = {r["case"]: r for r in read_jsonl(root / "report" / "results.jsonl")}
    return proc, results, root / "report"


def test_every_status_is_recorded_once_and_the_run_goes_on(mixed_run):
    proc, results, report = mixed_run
    lines = (report / "results.jsonl").read_text().splitlines()
    assert len(lines) == len(results) == len(BEHAVIOURS) + len(EXPECT_ERROR) + 1, proc.stdout
    for case, (_, status, stage) in {**BEHAVIOURS, **EXPECT_ERROR}.items():
        got = results[case]
        assert (got["status"], got["stage"]) == (status, stage), f"{case}: {got}"
    assert results["test_reduce_sum_ok"]["status"] == "pass"
    # Without an expectations file any fail, error, crash or timeout fails the run.
    assert proc.returncode == 1, proc.stdout + proc.stderr


def test_details_say_what_went_wrong(mixed_run):
    _, results, _ = mixed_run
    assert "differ" in results["test_add_wrong_values"]["detail"]
    assert results["test_add_wrong_values"]["max_abs_err"] == pytest.approx(1.0)
    assert results["test_add_wrong_values"]["mismatches"] == 6
    assert "shape" in results["test_add_wrong_shape"]["detail"]
    assert "SIGABRT" in results["test_add_abort"]["detail"]
    assert "SIGSEGV" in results["test_add_segv"]["detail"]
    assert "6 s" in results["test_add_hang"]["detail"]
    assert results["test_add_notimpl"]["detail"] == "NotImplementedError: toy has no kernel for this operator"
    # Details are one line even when the backend's message is not, and a path the backend quotes
    # is shown relative to the working directory, as the run's stamp shows the corpus.
    load_error = results["test_add_load_error"]["detail"]
    assert "\n" not in load_error
    assert load_error.startswith("ValueError: toy rejects cases/node/test_add_load_error/model.onnx:"), load_error
    assert results["test_add_invalid_clean_run"]["detail"] == "RuntimeError: toy kernel failed"
    assert results["test_add_invalid_silent"]["detail"] == "expected an error, got outputs"
    ok = results["test_add_ok"]
    assert (ok["op"], ok["opset"], ok["since_version"], ok["dtype"], ok["example"], ok["kind"]) == \
        ("Add", 14, 14, "float", "two_matrices", "expect-output")
    assert ok["seconds"] > 0


def test_run_json_is_complete_and_counts_statuses(mixed_run):
    _, results, report = mixed_run
    run = json.loads((report / "run.json").read_text())
    assert run["complete"] is True and run["finished"]
    assert run["backend"]["name"] == "toy" and run["backend"]["version"] == "0.1"
    assert run["corpus"]["index_sha256"] and len(run["corpus"]["index_sha256"]) == 64
    assert run["counts"]["crash"] == 3 and run["counts"]["timeout"] == 1
    assert sum(run["counts"].values()) == len(results)
    assert run["exit_code"] == 1 and run["harness_version"]
    if os.path.exists("/proc/cpuinfo"):  # the CPU decides some backends' kernels: stamped
        assert run["platform"]["cpu"] and isinstance(run["platform"]["cpu_features"], list)
    assert any(line.startswith("test_add_abort: got crash") for line in run["gate"]["regressions"])
    assert (report / "matrix.json").exists() and (report / "matrix.html").exists()


def test_pytest_outcomes_and_junit(mixed_run):
    proc, _, report = mixed_run
    # unsupported is a pytest skip whose reason starts with the status word
    assert "unsupported: NotImplementedError: toy has no kernel" in proc.stdout
    # failures are one line plus the command that reproduces them, not a traceback
    assert "Add-14 float two_matrices: crash: executor died with SIGABRT" in proc.stdout
    assert "reproduce: run-conformance --backend" in proc.stdout
    assert "Traceback" not in proc.stdout
    suite = ET.parse(report / "junit.xml").getroot().find("testsuite")
    by_name = {tc.get("name"): tc for tc in suite.iter("testcase")}
    # a case that did not answer (error, crash, timeout) is a JUnit <error>, a wrong answer a <failure>
    assert by_name["test_add_abort"].find("error") is not None and by_name["test_add_abort"].find("failure") is None
    assert by_name["test_add_wrong_values"].find("failure") is not None
    assert suite.get("errors") == "6" and suite.get("failures") == "3"
    assert by_name["test_add_abort"].get("classname") == "Add"
    skipped = by_name["test_add_notimpl"].find("skipped")
    assert skipped is not None and skipped.get("message").startswith("unsupported:")
    assert by_name["test_add_ok"].find("failure") is None


def test_k_selects_cases_by_name(corpus, tmp_path):
    proc = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r", "-k", "reduce",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [r["case"] for r in read_jsonl(tmp_path / "r" / "results.jsonl")] == \
        ["test_reduce_sum_keepdims"]


def test_op_selects_cases_by_the_index_s_operator_not_by_name(corpus, tmp_path):
    """-k matches words in names ('reduce' is in test_reshape_reduced_dims); --op matches the operator."""
    proc = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r", "--op", "Add", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [r["case"] for r in read_jsonl(tmp_path / "r" / "results.jsonl")] == ["test_add_a", "test_add_b"]
    proc = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r2", "--op", "Nope", cwd=tmp_path)
    assert proc.returncode == 2 and "--op Nope: no case of that operator in" in proc.stdout + proc.stderr


def test_two_executors_and_each_case_recorded_once(tmp_path):
    names = [f"test_add_{i}" for i in range(8)]
    cases = build_corpus(tmp_path / "cases", adds=names, index=True)
    proc = run_cli("--backend", TOY, "--cases", str(cases), "--report-dir", "r", "-n", "2",
                   "--backend-option", "test_add_3=abort", cwd=tmp_path)
    assert "2 executors" in proc.stdout, proc.stdout + proc.stderr
    lines = read_jsonl(tmp_path / "r" / "results.jsonl")
    assert sorted(r["case"] for r in lines) == sorted(names)  # each once, none twice
    assert {r["case"]: r["status"] for r in lines}["test_add_3"] == "crash"
    assert proc.returncode == 1


def test_items_a_plugin_deselects_and_reorders_after_the_executors_started(tmp_path):
    """The executors start on the cases in collection order before pytest has its items; a plugin
    that then drops some and reverses the rest still gets exactly its cases, in its order, once each."""
    names = [f"test_add_{i:02d}" for i in range(40)]
    cases = build_corpus(tmp_path / "cases", adds=names, index=True)
    (tmp_path / "reorder_items.py").write_text(
        "def pytest_collection_modifyitems(config, items):\n"
        "    keep = [i for i in items if int(i.name[-2:]) % 3]\n"
        "    config.hook.pytest_deselected(items=[i for i in items if i not in keep])\n"
        "    items[:] = keep[::-1]\n")
    proc = run_cli("--backend", TOY, "--cases", str(cases), "--report-dir", "r", "-n", "2",
                   "-p", "reorder_items", "--backend-option", "test_add_05=wrong_values", cwd=tmp_path)
    kept = [n for n in names if int(n[-2:]) % 3][::-1]
    lines = read_jsonl(tmp_path / "r" / "results.jsonl")
    assert [r["case"] for r in lines] == kept, proc.stdout + proc.stderr
    assert {r["case"]: r["status"] for r in lines}["test_add_05"] == "fail"
    assert all(r["status"] == "pass" for r in lines if r["case"] != "test_add_05")
    assert proc.returncode == 1 and "14 deselected" in proc.stdout


def test_a_report_that_cannot_be_written_fails_the_gate_and_the_others_are_written(tmp_path):
    """junit.xml and the matrices are written side by side (junit.xml in a forked copy of the
    process): a failure there still reaches the run's warnings and exit code, in its own words."""
    cases = build_corpus(tmp_path / "cases", adds=["test_add_a", "test_add_b"], index=True)
    (tmp_path / "r" / "junit.xml.tmp").mkdir(parents=True)  # where junit.xml is written before it is moved
    proc = run_cli("--backend", TOY, "--cases", str(cases), "--report-dir", "r", cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert "reports: could not write junit.xml or the matrices: IsADirectoryError: " in out, out
    assert proc.returncode == 2
    assert (tmp_path / "r" / "matrix.json").is_file() and not (tmp_path / "r" / "junit.xml").exists()
    assert json.loads((tmp_path / "r" / "run.json").read_text())["exit_code"] == 2


def test_killed_run_resumes_without_losing_or_repeating_a_case(tmp_path):
    names = [f"test_add_{i:02d}" for i in range(14)]
    cases = build_corpus(tmp_path / "cases", adds=names, index=True)
    results = tmp_path / "r" / "results.jsonl"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    run = subprocess.Popen(
        [sys.executable, "-m", "onnx_conformance.harness.cli", "--backend", TOY, "--cases", str(cases),
         "--report-dir", "r", "--backend-option", "delay=0.15"],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if results.exists() and len(results.read_text().splitlines()) >= 4:
            break
        time.sleep(0.05)
    run.send_signal(signal.SIGKILL)
    run.wait()
    before = read_jsonl(results)
    assert 4 <= len(before) < len(names)
    assert json.loads((tmp_path / "r" / "run.json").read_text())["complete"] is False
    with results.open("a") as f:  # as if the kill had landed in the middle of a write
        f.write('{"case": "test_add_13", "sta')

    proc = run_cli("--backend", TOY, "--cases", str(cases), "--report-dir", "r", "--resume",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = read_jsonl(results)
    assert after[:len(before)] == before  # the prefix is kept as it was
    assert sorted(r["case"] for r in after) == names  # and nothing is lost or repeated
    assert f"{len(before)} already recorded" in proc.stdout
    run_json = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run_json["complete"] is True and run_json["counts"]["pass"] == len(names)


def test_a_new_run_without_resume_starts_fresh(corpus, tmp_path):
    for _ in range(2):
        proc = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r", cwd=tmp_path)
    assert proc.returncode == 0
    assert len(read_jsonl(tmp_path / "r" / "results.jsonl")) == 3


# -- the gate ------------------------------------------------------------------------------


def gate(corpus: Path, tmp_path: Path, expectations: str | None, *extra: str):
    args = ["--backend", TOY, "--cases", str(corpus), "--report-dir", "r", *extra]
    if expectations is not None:
        (tmp_path / "expected.txt").write_text(expectations)
        args += ["--expectations", "expected.txt"]
    return run_cli(*args, cwd=tmp_path)


def test_known_failure_passes_the_gate_and_a_new_one_fails_it(corpus, tmp_path):
    known = "# known bugs\ntest_add_a,fail,adds one\n"
    proc = gate(corpus, tmp_path, known, "--backend-option", "test_add_a=wrong_values")
    assert proc.returncode == 0, proc.stdout
    proc = gate(corpus, tmp_path, known, "--backend-option", "test_add_a=wrong_values",
                "--backend-option", "test_add_b=abort")
    assert proc.returncode == 1
    assert "REGRESSION test_add_b: got crash, expected pass" in proc.stdout


def test_pytest_s_closing_line_and_exit_code_agree_with_the_gate(corpus, tmp_path):
    """A baselined failure is an expected failure to pytest, printed as no FAILED block; a regression
    is the one FAILED block, and the closing line and the exit code both say so."""
    known = "test_add_a,fail,adds one\n"
    proc = gate(corpus, tmp_path, known, "--backend-option", "test_add_a=wrong_values")
    last = proc.stdout.strip().splitlines()[-1]
    assert proc.returncode == 0 and "2 passed, 1 xfailed" in last and "failed" not in last.replace("xfailed", "")
    assert "FAILED" not in proc.stdout
    proc = gate(corpus, tmp_path, known, "--backend-option", "test_add_a=wrong_values",
                "--backend-option", "test_add_b=error")
    last = proc.stdout.strip().splitlines()[-1]
    assert proc.returncode == 1 and "1 failed" in last and "1 xfailed" in last
    assert [ln for ln in proc.stdout.splitlines() if ln.startswith("FAILED ")] == [
        ln for ln in proc.stdout.splitlines() if ln.startswith("FAILED Add::test_add_b")] != []
    # the baselined case passing again is a strict XPASS: a failure unless fixes are allowed
    proc = gate(corpus, tmp_path, known)
    assert proc.returncode == 1 and "1 failed" in proc.stdout.strip().splitlines()[-1]
    assert "XPASS(strict): passed, but the baseline expects fail (adds one)" in proc.stdout


def test_a_lost_kernel_fails_the_gate(corpus, tmp_path):
    """Against a baseline written by --update-expectations, a case that passed and now comes back
    unsupported is a regression; without any baseline, unsupported stays acceptable."""
    proc = gate(corpus, tmp_path, "", "--update-expectations", "--backend-option", "test_add_b=notimpl")
    assert proc.returncode == 0, proc.stdout
    assert "test_add_b,unsupported," in (tmp_path / "expected.txt").read_text()
    args = ["--backend", TOY, "--cases", str(corpus), "--report-dir", "r", "--expectations", "expected.txt"]
    proc = run_cli(*args, "--backend-option", "test_add_b=notimpl", "--backend-option", "test_add_a=notimpl",
                   cwd=tmp_path)
    assert proc.returncode == 1
    assert "REGRESSION test_add_a: got unsupported, expected pass" in proc.stdout
    assert "test_add_b" not in proc.stdout.split("conformance gate")[0].split("REGRESSION")[-1]
    assert gate(corpus, tmp_path, None, "--backend-option", "test_add_a=notimpl").returncode == 0


def test_unexpected_pass_fails_unless_fixes_are_allowed(corpus, tmp_path):
    known = "test_add_a,fail,adds one\ntest_gone,crash,no longer in the corpus\n"
    proc = gate(corpus, tmp_path, known)
    assert proc.returncode == 1
    assert "FIXED test_add_a: passed, expected fail" in proc.stdout
    assert "STALE test_gone" in proc.stdout
    proc = gate(corpus, tmp_path, known, "--allow-fixes")
    assert proc.returncode == 0, proc.stdout
    assert "STALE test_gone" in proc.stdout  # stale entries warn, they do not fail


def test_nothing_ran_is_never_success(corpus, tmp_path):
    assert gate(corpus, tmp_path, None, "-k", "no_such_case").returncode == 3
    assert gate(corpus, tmp_path, None, "--backend-option", "default=notimpl").returncode == 3
    skips = "test_add_a,skip,hangs\ntest_add_b,skip,hangs\ntest_reduce_sum_keepdims,skip,hangs\n"
    proc = gate(corpus, tmp_path, skips)
    assert proc.returncode == 3
    statuses = {r["status"] for r in read_jsonl(tmp_path / "r" / "results.jsonl")}
    assert statuses == {"skip"}


def test_update_expectations_writes_a_deterministic_baseline(corpus, tmp_path):
    bad = ["--backend-option", "test_add_b=abort", "--backend-option", "test_add_a=notimpl"]
    proc = gate(corpus, tmp_path, "", "--update-expectations", *bad)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first = (tmp_path / "expected.txt").read_text()
    lines = [ln for ln in first.splitlines() if not ln.startswith("#")]
    assert lines == [
        "test_add_a,unsupported,NotImplementedError: toy has no kernel for this operator",
        "test_add_b,crash,executor died with SIGABRT during run",
    ]
    proc = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r",
                   "--expectations", "expected.txt", "--update-expectations", *bad, cwd=tmp_path)
    assert (tmp_path / "expected.txt").read_text() == first
    proc = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r",
                   "--expectations", "expected.txt", *bad, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout


def test_backend_problems_are_one_line_and_exit_2(corpus, tmp_path):
    for backend, words in [("no_such_backend_anywhere", "no_such_backend_anywhere"),
                           ("tests.toybackends.toy:BrokenToy", "libtoy.so")]:
        proc = run_cli("--backend", backend, "--cases", str(corpus), "--report-dir", "r",
                       cwd=tmp_path)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert words in proc.stderr and "Traceback" not in proc.stderr + proc.stdout
    assert not (tmp_path / "r" / "results.jsonl").exists()
    proc = run_cli("--cases", str(tmp_path / "missing"), cwd=tmp_path)
    assert proc.returncode == 2 and "does not exist" in proc.stderr


def test_onnx_layout_without_index_and_capabilities(tmp_path):
    """DIR/<case>/ directly, facts read from the models; OldToy declines opset 14 up front."""
    cases = build_corpus(tmp_path / "data", adds=["test_add"], reduce_sums=["test_reduce_sum"],
                         nested=False)
    proc = run_cli("--backend", "tests.toybackends.toy:OldToy", "--cases", str(cases),
                   "--report-dir", "r", cwd=tmp_path)
    assert proc.returncode == 3, proc.stdout  # everything unsupported: nothing ran
    results = {r["case"]: r for r in read_jsonl(tmp_path / "r" / "results.jsonl")}
    add = results["test_add"]
    assert (add["op"], add["opset"], add["since_version"], add["dtype"], add["example"]) == \
        ("Add", 14, 14, "float", "test_add")
    assert add["status"] == "unsupported"
    assert add["detail"] == "opset 14 above the backend's maximum 12; Add-14 is not in force at 12 (Add-7 is)"


def test_backend_selected_by_entry_point(corpus, tmp_path):
    site = tmp_path / "site"
    dist = site / "toy_conformance-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-conformance\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[onnx_conformance.backends]\ntoy-ep = tests.toybackends.toy:ToyAdapter\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(site)]))
    proc = subprocess.run(
        [sys.executable, "-m", "onnx_conformance.harness.cli", "--backend", "toy-ep", "--cases", str(corpus)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(read_jsonl(tmp_path / "reports" / "toy-ep" / "results.jsonl")) == 3


def test_exitfirst_then_last_failed(corpus, tmp_path):
    """-x and --lf are pytest's own; case items make them work per case."""
    bad = ["--backend-option", "test_add_a=wrong_values", "--backend-option", "test_add_b=abort"]
    proc = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r", "-x", *bad,
                   cwd=tmp_path)
    assert proc.returncode == 1
    assert [r["case"] for r in read_jsonl(tmp_path / "r" / "results.jsonl")] == ["test_add_a"]
    proc = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r", "--lf",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert [r["status"] for r in read_jsonl(tmp_path / "r" / "results.jsonl")] == ["pass"], proc.stdout
    listing = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r",
                      "--", "--collect-only", "-q", cwd=tmp_path)
    assert "ReduceSum::test_reduce_sum_keepdims" in listing.stdout
    assert listing.returncode == 0 and len(read_jsonl(tmp_path / "r" / "results.jsonl")) == 1


def test_cpu_stamp_names_the_model_and_the_kernel_flags(tmp_path):
    from onnx_conformance.harness.results import cpu_info

    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: Some CPU 9000\n"
                    "flags\t\t: fpu sse4_2 avx2 avx512f avx512_bf16 made_up\n\n"
                    "processor\t: 1\nmodel name\t: Other\nflags\t\t: amx_tile\n")
    assert cpu_info(str(info)) == {"cpu": "Some CPU 9000",
                                   "cpu_features": ["sse4_2", "avx2", "avx512f", "avx512_bf16"]}
    assert cpu_info(str(tmp_path / "absent")) == {}


def _junit_cases(path: Path) -> dict[str, bytes]:
    suite = ET.parse(path).getroot().find("testsuite")
    out = {}
    for tc in suite.iter("testcase"):
        tc.attrib.pop("time")
        out[tc.get("name")] = ET.tostring(tc)
    return out


def test_counted_outcomes_report_as_pytest_would_have(tmp_path):
    """A case pytest would only count (a pass, an expected failure, a skip) is counted by the run
    itself; with -v every case goes through pytest's reporting. Both runs must say the same: the
    same summary line, the same junit.xml testcases, the same results."""
    adds = [f"test_add_{k:02d}" for k in range(12)]
    corpus = build_corpus(tmp_path / "cases", adds=adds, reduce_sums=["test_reduce_sum_ok"], index=True)
    behaviours = {"test_add_03": "wrong_values", "test_add_04": "notimpl", "test_add_05": "notimpl",
                  "test_add_07": "load_error", "test_add_08": "error", "test_add_09": "wrong_shape"}
    baseline = tmp_path / "expected.txt"
    baseline.write_text("test_add_04,unsupported,known\ntest_add_05,unsupported,known\n"
                        "test_add_07,error,known\ntest_add_08,error,known\ntest_add_09,fail,known\n")
    runs = {}
    for mode in ("quiet", "verbose"):
        proc = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", mode, *options(behaviours),
                       "--expectations", str(baseline), *(["-v"] if mode == "verbose" else []), cwd=tmp_path)
        assert proc.returncode == 1, proc.stdout + proc.stderr  # test_add_03 regressed
        runs[mode] = proc.stdout
    summary = [ln for ln in runs["quiet"].splitlines() if " in " in ln and "passed" in ln][-1]
    assert "1 failed, 7 passed, 2 skipped, 3 xfailed" in summary, runs["quiet"]
    assert "1 failed, 7 passed, 2 skipped, 3 xfailed" in runs["verbose"].splitlines()[-1]
    assert "FAILED Add::test_add_03" in runs["quiet"] and "reproduce: run-conformance" in runs["quiet"]
    quiet, verbose = _junit_cases(tmp_path / "quiet" / "junit.xml"), _junit_cases(tmp_path / "verbose" / "junit.xml")
    assert quiet == verbose and len(quiet) == 13
    strip = lambda rows: [{k: v for k, v in r.items() if k != "seconds"} for r in rows]  # noqa: E731
    assert strip(read_jsonl(tmp_path / "quiet" / "results.jsonl")) == \
        strip(read_jsonl(tmp_path / "verbose" / "results.jsonl"))


def test_last_failed_forgets_a_case_that_now_passes_quietly(corpus, tmp_path):
    """--lf reads pytest's cache: a case that failed and then passes, even as a counted (not
    reported) pass, leaves it, so the next --lf has nothing to rerun but runs everything."""
    bad = ["--backend-option", "test_add_b=wrong_values", "--backend-option", "test_reduce_sum_keepdims=abort"]
    assert run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r", *bad,
                   cwd=tmp_path).returncode == 1
    cache = tmp_path / "r" / ".pytest_cache" / "v" / "cache" / "lastfailed"
    assert sorted(json.loads(cache.read_text())) == ["Add::test_add_b", "ReduceSum::test_reduce_sum_keepdims"]
    # test_add_a's pass is reported in full (the first pass), test_add_b's after it only counted
    proc = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r",
                   "--backend-option", "test_reduce_sum_keepdims=abort", cwd=tmp_path)
    assert proc.returncode == 1
    assert sorted(json.loads(cache.read_text())) == ["ReduceSum::test_reduce_sum_keepdims"]
    proc = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r", "--lf", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert [r["case"] for r in read_jsonl(tmp_path / "r" / "results.jsonl")] == ["test_reduce_sum_keepdims"]


def test_junit_keeps_pytests_layout(mixed_run, tmp_path):
    """junit.xml is written by the run from its results; with --junitxml pytest writes its own
    beside it (every case then goes through pytest's reporting). Testcase by testcase they agree:
    classname, name, the status property, and a failure or a skip of the same type and message;
    except that where pytest says <failure> for every regression, ours says <error> for a case that
    did not answer (error, crash, timeout), as JUnit readers tell them apart."""
    _, _, report = mixed_run
    corpus = report.parent / "cases"
    behaviours = {c: b for c, (b, _, _) in {**BEHAVIOURS, **EXPECT_ERROR}.items()}
    proc = run_cli("--backend", TOY, "--cases", str(corpus), "--report-dir", "r", "--timeout", "1.5",
                   *options(behaviours), "--", f"--junitxml={tmp_path / 'pytest.xml'}", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr

    def facts(path: Path) -> dict:
        suite = ET.parse(path).getroot().find("testsuite")
        out = {}
        for tc in suite.iter("testcase"):
            props = {p.get("name"): p.get("value") for p in tc.iter("property")}
            verdict = next(((e.tag, e.get("type"), e.get("message")) for e in tc
                            if e.tag in ("failure", "error", "skipped")), None)
            if verdict and verdict[0] in ("failure", "error"):
                verdict = (verdict[0], None, None)  # pytest's message is its own summary of the text
            out[tc.get("name")] = (tc.get("classname"), props.get("status"), verdict)
        return out

    ours, theirs = facts(tmp_path / "r" / "junit.xml"), facts(tmp_path / "pytest.xml")
    errors = {name for name, v in ours.items() if v[2] and v[2][0] == "error"}
    assert errors and all(ours[name][1] in ("error", "crash", "timeout") for name in errors)
    assert all(theirs[name][2] == ("failure", None, None) for name in errors)
    ours.update({name: (*ours[name][:2], ("failure", None, None)) for name in errors})
    assert ours == theirs and len(ours) == len(BEHAVIOURS) + len(EXPECT_ERROR) + 1
    assert {v[2][0] for v in theirs.values() if v[2]} == {"failure", "skipped"}


def test_plain_pytest_gives_the_same_run(tmp_path):
    """--plain-pytest (no shortcut into pytest's internals: harness/fastpath.py) records the same results,
    junit.xml, counts and exit code as the run with them."""
    behaviours = {"test_add_ok": "correct", "test_add_b_ok": "correct", "test_add_wrong_values": "wrong_values",
                  "test_add_notimpl": "notimpl", "test_add_load_error": "load_error", "test_add_run_error": "error",
                  "test_add_fixed": "correct"}
    cases = build_corpus(tmp_path / "cases", adds=behaviours, reduce_sums=["test_reduce_sum_ok"], index=True)
    baseline = tmp_path / "expectations.txt"
    baseline.write_text("test_add_wrong_values,fail,known\ntest_add_fixed,fail,was broken\n"
                        "test_add_notimpl,unsupported,no kernel\n", encoding="utf-8")
    runs = {}
    for name, extra in (("fast", []), ("plain", ["--plain-pytest"])):
        proc = run_cli("--backend", TOY, "--cases", str(cases), "--report-dir", str(tmp_path / name),
                       "--expectations", str(baseline), *options(behaviours), *extra, cwd=tmp_path)
        results = {r["case"]: {k: v for k, v in r.items() if k != "seconds"}
                   for r in read_jsonl(tmp_path / name / "results.jsonl")}
        junit = [(c.get("classname"), c.get("name"), [(e.tag, e.get("message")) for e in c])
                 for c in ET.parse(tmp_path / name / "junit.xml").getroot().iter("testcase")]
        run = json.loads((tmp_path / name / "run.json").read_text())
        closing = proc.stdout.strip().splitlines()[-1].split(" in ")[0]
        runs[name] = (proc.returncode, results, junit, run["counts"], run["gate"], closing)
    assert runs["fast"][0] == 1  # a fix and two regressions
    assert runs["plain"] == runs["fast"]
