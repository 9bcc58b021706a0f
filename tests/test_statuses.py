"""The status table: each status one row, and a new row all that a new status needs in the reports, gate and page."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from onnx_conformance.harness import statuses


def test_the_vocabulary_and_its_views():
    assert statuses.STATUSES == ("pass", "warn", "fail", "unsupported", "error", "crash", "timeout", "flaky",
                                 "order-dependent", "skip")
    assert statuses.SEVERITY == ("crash", "timeout", "flaky", "order-dependent", "error", "fail", "warn", "unsupported",
                                 "skip", "pass")
    assert statuses.FAILING == ("crash", "timeout", "flaky", "order-dependent", "error", "fail")
    assert statuses.DECLINED == ("unsupported", "skip")
    assert statuses.RERUN == {"fail", "error", "crash", "timeout"}
    assert statuses.UNFINISHED == {"error", "crash", "timeout"}  # JUnit's <error>, the rest of FAILING <failure>
    assert statuses.CONFIRMED_UNASKED == {"crash"} and statuses.GRADED_ALONE == {"order-dependent"}  # --confirm
    assert statuses.accepted(first_run=True) == {"pass", "warn", "unsupported", "skip"}
    assert statuses.accepted(first_run=False) == {"pass", "warn", "skip"}
    assert statuses.accepted(first_run=False, strict=True) == {"pass", "skip"}
    assert list(statuses.MARK) == list(statuses.COLOUR) == list(statuses.CODES) == list(statuses.SEVERITY)


def test_fixes_and_entries():
    assert statuses.is_fix("pass", "fail") and statuses.is_fix("pass", "crash") and statuses.is_fix("warn", "fail")
    assert not statuses.is_fix("warn", "crash") and not statuses.is_fix("fail", "warn")
    assert statuses.entry_accepts("flaky", "pass") and statuses.entry_accepts("fail", "fail")
    assert not statuses.entry_accepts("fail", "crash")


# A status no module knows of, added as a row of the table's source, then used by every reader.
NEW_ROW = '    Status("hang", 0.5, "🧊", ("#123456", "#ffffff"), "h", failing=True, rerun=True),\n'
PROBE = textwrap.dedent('''
    import importlib.util, json, sys
    import onnx_conformance.harness
    spec = importlib.util.find_spec("onnx_conformance.harness.statuses")
    source = spec.loader.get_source(spec.name)
    marker = "\\n)\\n\\nBY_WORD"
    assert source.count(marker) == 1
    source = source.replace(marker, "\\n" + NEW_ROW.rstrip("\\n") + marker)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    exec(compile(source, spec.origin, "exec"), module.__dict__)

    import tempfile, pathlib
    from onnx_conformance.harness import (expectations, matrix_html, matrix_markdown, reports, rerun, results,
                                          scoreboard_data)
    from onnx_conformance.harness.compare_reports import answered_differently
    from onnx_conformance.harness.matrix import build_matrix

    def result(case, status):
        return {"case": case, "op": "Abs", "domain": "", "opset": 13, "since_version": 13, "dtype": "float",
                "status": status, "stage": "run", "detail": "no answer, no crash", "seconds": 0.0}

    out = {}
    rs = [result("test_a", "hang"), result("test_b", "pass")]
    path = pathlib.Path(tempfile.mkdtemp()) / "expectations.txt"
    path.write_text("test_a,hang,known to hang\\n", encoding="utf-8")
    entries = expectations.load(path)
    out["listed"] = expectations.evaluate(rs, entries, {"test_a", "test_b"}).exit_code
    out["unlisted"] = expectations.evaluate(rs, {}, {"test_a", "test_b"}).exit_code
    out["first_run"] = expectations.evaluate(rs, None).exit_code
    out["counts"] = results.counts(rs)["hang"]
    out["summary"] = reports.terminal_summary(rs)
    matrix = build_matrix(rs, {"complete": True})
    out["markdown"] = "🧊" in matrix_markdown.render_markdown(matrix)
    out["html"] = ".s-hang{background:#123456" in matrix_html.render_html(matrix)
    data = scoreboard_data.page_data([{"name": "x", "results": {r["case"]: r for r in rs}, "run": {}},
                                      {"name": "y", "results": {"test_a": result("test_a", "pass")}, "run": {}}])
    out["page"] = [data["statuses"], data["codes"], data["failing"], data["backends"][0]["status"]]
    out["disagrees"] = answered_differently({"results": {"x": {"status": "hang"}, "y": {"status": "pass"}},
                                             "differs_in": "status"})
    tries = []
    out["rerun"] = rerun.with_reruns(lambda c: tries.append(c) or result(c, "pass"), "test_a", rs[0], 2)["status"]
    print(json.dumps(out))
''')


def test_a_new_status_is_one_row():
    """The reports, the gate, compare-reports, the page and --rerun-failures take a new status from
    its row alone (what decides that a case has it is the executor's, or an adapter's, business)."""
    done = subprocess.run([sys.executable, "-c", f"NEW_ROW = {NEW_ROW!r}\n" + PROBE],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    import json

    out = json.loads(done.stdout)
    assert out["listed"] == 0 and out["unlisted"] == 1 and out["first_run"] == 1  # failing: a regression
    assert out["counts"] == 1
    assert out["summary"][0].startswith("conformance: 1 hang, 1 pass") and "hang" in out["summary"][1]
    assert out["markdown"] and out["html"]
    page_statuses, codes, failing, status = out["page"]
    assert page_statuses[:2] == ["crash", "hang"] and codes[:2] == "ch" and "hang" in failing
    assert status == "hp"
    assert out["disagrees"] is True
    assert out["rerun"] == "flaky"
