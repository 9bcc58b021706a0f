"""--rerun-failures: a case whose status changes between attempts is `flaky`, never `pass`."""

from __future__ import annotations

import json

from onnx_conformance.harness.expectations import Expectation, evaluate
from onnx_conformance.harness.rerun import with_reruns
from tests.conftest import build_corpus, read_jsonl, run_cli

FLAKY = "tests.toybackends.flaky:FirstAttemptFails"


def test_first_attempt_failure_is_flaky_in_results_and_matrix(tmp_path):
    cases = build_corpus(tmp_path / "cases", adds=["test_add_a", "test_add_b", "test_add_c"], index=True)
    r = run_cli("--backend", FLAKY, "--backend-option", "test_add_a=wrong_values",
                "--backend-option", "always=test_add_c", "--rerun-failures", "2",
                "--cases", str(cases), "--report-dir", str(tmp_path / "r"), cwd=tmp_path)
    results = {x["case"]: x for x in read_jsonl(tmp_path / "r" / "results.jsonl")}
    assert results["test_add_a"]["status"] == "flaky"
    assert results["test_add_a"]["detail"].startswith("attempts: fail, pass; first attempt fail: ")
    assert results["test_add_b"]["status"] == "pass"
    # Failing the same way every time is a failure, with its own words, not a flake.
    assert results["test_add_c"]["status"] == "fail"
    assert "attempts" not in results["test_add_c"]["detail"]
    matrix = json.loads((tmp_path / "r" / "matrix.json").read_text())
    assert matrix["summary"] == {"flaky": 1, "fail": 1, "pass": 1}
    (row,) = matrix["rows"]
    assert row["cells"]["float"]["worst"] == "flaky" and row["cells"]["float"]["passed"] == 1
    assert "🔀" in (tmp_path / "r" / "matrix.md").read_text()
    assert r.returncode == 1  # flaky is not a pass: the gate fails without an entry
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["rerun_failures"] == 2 and run["counts"]["flaky"] == 1


def test_without_reruns_the_first_attempt_stands(tmp_path):
    cases = build_corpus(tmp_path / "cases", adds=["test_add_a"], index=True)
    run_cli("--backend", FLAKY, "--backend-option", "test_add_a=error",
            "--cases", str(cases), "--report-dir", str(tmp_path / "r"), cwd=tmp_path)
    (result,) = read_jsonl(tmp_path / "r" / "results.jsonl")
    assert result["status"] == "error"


def test_reruns_stop_at_the_first_change_and_add_up_the_time():
    attempts = iter([{"status": "crash", "seconds": 1.0}, {"status": "pass", "seconds": 2.0}])
    calls = []

    def run(case):
        calls.append(case)
        return next(attempts)

    first = {"case": "c", "status": "fail", "detail": "output 0 differs", "seconds": 0.5}
    got = with_reruns(run, "c", first, 5)
    assert got["status"] == "flaky" and got["seconds"] == 1.5 and len(calls) == 1
    assert got["detail"] == "attempts: fail, crash; first attempt fail: output 0 differs"
    assert with_reruns(run, "c", {"status": "pass"}, 5) == {"status": "pass"}
    assert with_reruns(run, "c", {"status": "unsupported"}, 5) == {"status": "unsupported"}


def test_a_flaky_baseline_entry_accepts_any_outcome():
    entries = {"c": Expectation("c", "flaky", "intermittent on this driver")}
    for status in ("pass", "fail", "flaky", "crash"):
        verdict = evaluate([{"case": "c", "status": status}], entries, {"c"})
        assert verdict.exit_code == 0 and not verdict.fixes, status
    assert evaluate([{"case": "c", "status": "flaky"}], None).exit_code == 1
