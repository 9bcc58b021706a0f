"""onnxruntime with its graph optimizer on and off over the pattern and model cases (issue 29): the committed list of
every case whose verdict differs is what compare-reports writes from the committed reports."""

from __future__ import annotations

import json
import re
from pathlib import Path

from onnx_conformance.harness import compare_reports
from tests.conftest import REPO

ALL, OFF = Path("reports/onnxruntime"), Path("reports/onnxruntime/optimizer-off")
LISTED = REPO / "reports/onnxruntime/optimizer-differences.md"
ARGS = [str(ALL), str(OFF), "--form", "pattern", "--form", "model", "--each-declined"]


def _report(root: Path, name: str, options: dict, records: list[dict]) -> Path:
    d = root / name
    d.mkdir()
    (d / "run.json").write_text(json.dumps({"backend": {"name": "rt", "version": "1.0", "options": options}}))
    (d / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return d


def _rec(case: str, form: str | None, status: str, detail: str = "") -> dict:
    r = {"case": case, "op": "Pad+Pool" if form else "Abs", "since_version": None if form else 13, "dtype": "float",
         "status": status, "detail": detail, "max_abs_err": None}
    return dict(r, form=form) if form else r


def test_one_backends_two_runs_compared_over_the_graph_cases_each_case_listed(tmp_path, capsys):
    on = _report(tmp_path, "on", {}, [_rec("t_pattern_wrong", "pattern", "fail", "got -4.0 expected 0.0"),
                                      _rec("t_pattern_same", "pattern", "pass"),
                                      _rec("t_pattern_declined", "pattern", "unsupported", "no kernel"),
                                      _rec("t_node", None, "fail", "node only")])
    off = _report(tmp_path, "off", {"graph_optimization_level": "disable"},
                  [_rec("t_pattern_wrong", "pattern", "pass"), _rec("t_pattern_same", "pattern", "pass"),
                   _rec("t_pattern_declined", "pattern", "pass"), _rec("t_node", None, "pass")])
    assert compare_reports.main([str(on), str(off), "--form", "pattern", "--each-declined"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Where backends disagree: rt 1.0, rt 1.0 graph_optimization_level=disable\n")
    assert f"Written by `compare-reports {on} {off} --form pattern --each-declined`." in out
    assert "Cases in every report: 3.\nCases that differ: 2. Answered differently: 1." in out
    assert "### Pad+Pool float (1)" in out  # a graph has no operator version: none shown
    assert "| `t_pattern_wrong` | fail: got -4.0 expected 0.0 | pass |" in out
    assert "| `t_pattern_declined` | unsupported: no kernel | pass |" in out  # each case, not a count
    assert "t_node" not in out and "t_pattern_same" not in out


def test_the_committed_list_is_what_compare_reports_writes_from_the_committed_reports(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    assert compare_reports.main(ARGS) == 0
    written = capsys.readouterr().out
    assert written == LISTED.read_text(encoding="utf-8"), (
        f"{LISTED.relative_to(REPO)} is stale: compare-reports {' '.join(ARGS)} --out {LISTED.relative_to(REPO)}")
    corpus = json.loads((REPO / "cases/index.json").read_text(encoding="utf-8"))["cases"]
    named = re.findall(r"^\| `(test_\w+)` \|", written, re.M)
    assert named and all(corpus[c].get("form") in ("pattern", "model") for c in named)
    run = json.loads((REPO / OFF / "run.json").read_text(encoding="utf-8"))
    assert run["backend"]["options"] == {"graph_optimization_level": "disable"} and run["complete"]
