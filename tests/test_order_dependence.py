"""--confirm: a failing case is run again alone in a fresh executor; one whose status changes there is
`order-dependent`, naming the case it depends on, and the gate grades it by its status alone."""

from __future__ import annotations

import json

import pytest

from onnx_conformance.harness import confirm, expectations
from onnx_conformance.harness.executor import Earlier
from onnx_conformance.harness.expectations import Expectation, ExpectationsError, evaluate
from tests.conftest import build_corpus, read_jsonl, run_cli

CORRUPTING = "tests.toybackends.corrupting:Corruptible"
# test_add_b corrupts its process; test_add_d fails wherever it runs.
CASES = ["test_add_a", "test_add_b", "test_add_c", "test_add_d"]


def _run(tmp_path, name: str, *more: str):
    cases = tmp_path / "cases"
    if not cases.exists():
        build_corpus(cases, adds=CASES, index=True)
    proc = run_cli("--backend", CORRUPTING, "--backend-option", "corrupts=test_add_b",
                   "--backend-option", "always=test_add_d", "--cases", str(cases),
                   "--report-dir", str(tmp_path / name), *more, cwd=tmp_path)
    results = {r["case"]: r for r in read_jsonl(tmp_path / name / "results.jsonl")}
    return proc, results, json.loads((tmp_path / name / "run.json").read_text())


def test_a_case_failing_after_a_corrupting_one_is_order_dependent_and_names_it(tmp_path):
    baseline = tmp_path / "expectations.txt"
    baseline.write_text(expectations.HEADER + "\n")  # a baseline: every case expected to pass
    proc, results, run = _run(tmp_path, "r", "--expectations", str(baseline))
    c = results["test_add_c"]
    assert c["status"] == "order-dependent" and c["alone"] == "pass" and c["after"] == "test_add_b"
    assert c["detail"].startswith("fail after test_add_b (again after it alone in a fresh executor), pass alone: "
                                  "output 0: 6 of 6 values differ")
    # A real failure is confirmed as it is; the culprit itself passed.
    assert results["test_add_d"]["status"] == "fail" and "alone" not in results["test_add_d"]
    assert results["test_add_b"]["status"] == "pass"
    assert run["confirm"] == {"mode": "unexpected", "confirmed": 2, "changed": 1, "over_limit": 0}
    assert {s: n for s, n in run["counts"].items() if n} == {"pass": 2, "fail": 1, "order-dependent": 1}
    # The gate grades test_add_c by its status alone: only test_add_d regressed.
    assert proc.returncode == 1
    assert run["gate"]["regressions"] == [f"test_add_d: got fail, expected pass ({results['test_add_d']['detail']})"]
    assert "order-dependent test_add_c [compare]: fail after test_add_b" in proc.stdout
    assert "⛓️" in (tmp_path / "r" / "matrix.md").read_text()

    # The same run with confirmation off: the plain fail, which the gate counts.
    proc, results, run = _run(tmp_path, "off", "--expectations", str(baseline), "--confirm", "off")
    assert results["test_add_c"]["status"] == "fail" and "alone" not in results["test_add_c"]
    assert run["confirm"] == {"mode": "off"} and proc.returncode == 1
    assert [line.split(":")[0] for line in run["gate"]["regressions"]] == ["test_add_c", "test_add_d"]


def test_a_crash_after_a_corrupting_case_is_confirmed_without_a_baseline_and_never_recorded(tmp_path):
    written = tmp_path / "expectations.txt"
    proc, results, run = _run(tmp_path, "r", "--backend-option", "then=abort",
                              "--expectations", str(written), "--update-expectations")
    c = results["test_add_c"]
    assert c["status"] == "order-dependent" and c["alone"] == "pass" and c["after"] == "test_add_b"
    assert c["detail"].startswith("crash after test_add_b (again after it alone in a fresh executor), pass alone: "
                                  "executor died with SIGABRT")
    # test_add_d ran first in the executor started after the crash: alone already, not run again.
    assert results["test_add_d"]["status"] == "fail"
    assert run["confirm"]["confirmed"] == 1
    # The baseline records each case's own status: test_add_c passes alone, so it has no entry.
    entries = expectations.load(written)
    assert {e.case: e.status for e in entries.values()} == {"test_add_d": "fail"}
    assert proc.returncode == 0, proc.stdout[-2000:]


@pytest.mark.parametrize("mode, entries, status, wanted", [
    ("unexpected", None, "crash", True),  # no baseline: a crash, OV-13's symptom
    ("unexpected", None, "fail", False),  # ... but not the thousands of fails a first run has
    ("unexpected", None, "timeout", False),
    ("unexpected", {"c": Expectation("c", "fail")}, "fail", False),  # the baseline expects it
    ("unexpected", {"c": Expectation("c", "fail")}, "crash", True),  # a regression
    ("unexpected", {}, "error", True),
    ("unexpected", {"c": Expectation("c", "flaky")}, "crash", False),
    ("all", {"c": Expectation("c", "fail")}, "fail", True),
    ("all", None, "timeout", True),
    ("all", None, "unsupported", False),  # a decline is the backend's plain word, not the order's
    ("off", {}, "crash", False),
])
def test_which_results_are_confirmed(mode, entries, status, wanted):
    confirmer = confirm.Confirmer(mode, fresh=None, cases={}, entries=entries)
    assert confirmer.wanted({"case": "c", "status": status}) is wanted


def test_a_case_its_process_ran_first_is_never_run_again():
    confirmer = confirm.Confirmer("all", fresh=lambda: pytest.fail("a fresh executor was made"), cases={},
                                  entries=None)
    first = {"case": "c", "status": "crash"}
    assert confirmer.check(object(), first, None) is first and confirmer.confirmed == 0


class _Case:
    def __init__(self, name):
        self.name = name


class _Process:
    """A fresh executor of a backend that `culprit` damages: every case after it in the process fails."""

    def __init__(self, culprit, made):
        self.culprit, self.damaged = culprit, False
        made.append(self)

    def start(self):
        return {}

    def run(self, case):
        status = "fail" if self.damaged else "pass"
        self.damaged = self.damaged or case.name == self.culprit
        return {"case": case.name, "status": status, "detail": None}

    def close(self):
        pass


def test_a_case_named_already_in_the_process_is_tried_when_the_one_before_is_not_it():
    made = []
    cases = {n: _Case(n) for n in ("a", "b", "c", "d", "e")}
    confirmer = confirm.Confirmer("all", lambda: _Process("b", made), cases, entries=None)
    first = {"case": "c", "status": "fail", "detail": "wrong"}
    got = confirmer.check(cases["c"], first, Earlier(2, "a", "b", ("x", 1)))
    assert got["after"] == "b" and len(made) == 2  # alone, then b and c
    got = confirmer.check(cases["e"], dict(first, case="e"), Earlier(4, "a", "d", ("x", 1)))
    assert got["status"] == "order-dependent" and got["after"] == "b" and len(made) == 5  # alone, d-e, b-e
    assert got["detail"] == ("fail after b, 4 cases before it in its executor (again after it alone in a fresh "
                             "executor), pass alone: wrong")
    # In another process nothing is named yet: the range, not b.
    got = confirmer.check(cases["e"], dict(first, case="e"), Earlier(4, "a", "d", ("y", 1)))
    assert "after" not in got and got["detail"].startswith("fail after the 4 cases before it in its executor (a to d)")


def test_the_same_order_giving_another_status_is_flaky_and_a_longer_one_is_named():
    first = {"case": "v", "status": "crash", "detail": "executor died with SIGSEGV"}
    alone = {"case": "v", "status": "pass", "detail": None}
    got = confirm._outcome(first, alone, 1, "p", "p", culprit=None, replayed=True)
    assert got["status"] == "flaky" and "alone" not in got
    assert got["detail"] == ("attempts: crash after p, pass alone, not crash again after p; "
                             "first attempt crash: executor died with SIGSEGV")
    got = confirm._outcome(first, alone, 40, "a", "p", culprit=None, replayed=True)
    assert got["status"] == "order-dependent" and got["alone"] == "pass" and "after" not in got
    assert got["detail"] == ("crash after the 40 cases before it in its executor (a to p) (not crash again after p "
                             "alone in a fresh executor), pass alone: executor died with SIGSEGV")


def test_the_gate_grades_an_order_dependent_case_by_its_status_alone(tmp_path):
    def result(alone):
        return {"case": "v", "status": "order-dependent", "alone": alone, "detail": "crash after p, ..."}

    fail = {"v": Expectation("v", "fail")}
    assert evaluate([result("fail")], fail, {"v"}).exit_code == 0
    assert evaluate([result("pass")], {}, {"v"}).exit_code == 0
    assert evaluate([result("fail")], {}, {"v"}).regressions == ["v: got fail, expected pass (crash after p, ...)"]
    assert evaluate([result("pass")], fail, {"v"}).fixes  # passes alone where the baseline says fail
    assert expectations.updated([result("error")], {}, {"v"})["v"].status == "error"
    path = tmp_path / "expectations.txt"
    path.write_text("v,order-dependent,after p\n")
    with pytest.raises(ExpectationsError, match=r"expectations.txt:1: 'order-dependent' is never an entry"):
        expectations.load(path)
