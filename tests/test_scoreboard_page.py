"""reports/index.html: its data encoding (plain), and what a person sees in it (headless Chromium via selenium)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from onnx_conformance.harness import scoreboard_data, scoreboard_page
from onnx_conformance.harness.results import FIELDS, pack_results, write_json

# (case, op, since_version, dtype) -> status per backend; a missing backend did not run the case
CASES = {
    ("test_abs_a_opset13_float", "Abs", 13, "float"): {"alpha": "pass", "beta": "pass", "gamma": "pass"},
    ("test_abs_b_opset13_float", "Abs", 13, "float"): {"alpha": "pass", "beta": "pass", "gamma": "pass"},
    ("test_abs_c_opset13_float", "Abs", 13, "float"): {"alpha": "pass", "beta": "pass", "gamma": "pass"},
    # the planted disagreement: alpha fails where beta passes (gamma declines)
    ("test_abs_x_opset13_int32", "Abs", 13, "int32"): {"alpha": "fail", "beta": "pass", "gamma": "unsupported"},
    ("test_abs_w_opset13_int32", "Abs", 13, "int32"): {"alpha": "pass", "beta": "pass", "gamma": "pass"},
    ("test_abs_z_opset6_float", "Abs", 6, "float"): {"alpha": "pass", "beta": "pass"},
    # all that answer err: failing, but no disagreement
    ("test_relu_e_opset14_float", "Relu", 14, "float"): {"alpha": "error", "beta": "error", "gamma": "unsupported"},
    ("test_relu_f_opset14_float", "Relu", 14, "float"): {"alpha": "pass", "beta": "pass", "gamma": "unsupported"},
    ("test_reduce_sum_k_opset13_double", "ReduceSum", 13, "double"): {"alpha": "pass", "beta": "pass"},
}
DETAIL = {
    ("alpha", "test_abs_x_opset13_int32"): ("compare", "output 0: 1 of 4 values differ; max abs err 3 at index (2,)"),
    ("gamma", "test_abs_x_opset13_int32"): ("load", "no kernel for Abs int32"),
    ("alpha", "test_relu_e_opset14_float"): ("run", "RuntimeError: alpha cannot <run> this"),
    ("beta", "test_relu_e_opset14_float"): ("run", "ValueError: beta cannot either"),
    ("gamma", "test_relu_e_opset14_float"): ("load", "Relu is not implemented"),
    ("gamma", "test_relu_f_opset14_float"): ("load", "Relu is not implemented"),
}
BACKENDS = ("alpha", "beta", "gamma")


def make_reports(root, order=1):
    """reports/<backend>/{results.jsonl, run.json} for BACKENDS; `order` -1 writes the records reversed."""
    for name in BACKENDS:
        report = root / name
        report.mkdir(parents=True, exist_ok=True)
        lines = []
        for (case, op, since, dtype), statuses in CASES.items():
            if name not in statuses:
                continue
            record = dict.fromkeys(FIELDS)
            stage, detail = DETAIL.get((name, case), (None, None))
            record.update(case=case, op=op, domain="", opset=since, since_version=since, dtype=dtype,
                          types={"T": dtype}, example=case.split("_")[2], kind="expect-output",
                          status=statuses[name], stage=stage, detail=detail, seconds=0.01)
            lines.append(json.dumps(record) + "\n")
        (report / "results.jsonl").write_text("".join(lines[::order]), encoding="utf-8")
        write_json(report / "run.json", {
            "backend": {"name": name, "requested": name, "version": f"{name}-1.0", "options": {}},
            "corpus": {"cases": 9, "index_sha256": "ab" * 32, "path": "cases"},
            "complete": name != "gamma",
            "started": "2026-01-01T00:00:00+00:00", "finished": "2026-01-01T00:01:00+00:00",
        })
    return root


def embedded(page: str) -> dict:
    blob = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1)
    return json.loads(blob)


# -- the encoding, without a browser ------------------------------------------------------------


def test_encoding_round_trips_every_case_status_and_detail(tmp_path):
    make_reports(tmp_path)
    data = embedded(scoreboard_page.render_index(tmp_path, list(BACKENDS)))
    cases = scoreboard_data.decode_cases(data)
    assert {c["case"] for c in cases} == {key[0] for key in CASES}
    families = {"Abs": "Element-wise math", "Relu": "Activations", "ReduceSum": "Reduce"}
    for c in cases:
        key = next(k for k in CASES if k[0] == c["case"])
        assert (c["op"], c["since_version"], c["dtype"]) == key[1:]
        assert c["family"] == families[c["op"]]
    # families in harness/families.py's order; within one, operator, then version, then type
    assert [c["family"] for c in cases] == sorted((c["family"] for c in cases),
                                                  key=["Element-wise math", "Activations", "Reduce"].index)
    abs_versions = [c["since_version"] for c in cases if c["op"] == "Abs"]
    assert abs_versions == sorted(abs_versions)

    code = dict(zip(data["codes"], data["statuses"]))
    for b in data["backends"]:
        assert len(b["status"]) == len(cases)
        k, notes = 0, {}
        for i in range(0, len(b["notes"]), 3):
            k += b["notes"][i]
            notes[cases[k]["case"]] = (data["strings"][b["notes"][i + 1]], data["strings"][b["notes"][i + 2]])
        for c, ch in zip(cases, b["status"]):
            key = next(k for k in CASES if k[0] == c["case"])
            want = CASES[key].get(b["name"])
            assert (code.get(ch) if ch != data["not_run"] else None) == want, (b["name"], c["case"])
            if want not in (None, "pass"):
                assert notes[c["case"]] == DETAIL.get((b["name"], c["case"]), ("", ""))
        assert set(notes) == {key[0] for key, s in CASES.items() if s.get(b["name"]) not in (None, "pass")}
    # the same detail text is stored once for every backend that reports it
    assert len(data["strings"]) == len(set(data["strings"]))
    assert data["strings"].count("Relu is not implemented") == 1


def test_disagreement_is_the_planted_one_only(tmp_path):
    make_reports(tmp_path)
    data = embedded(scoreboard_page.render_index(tmp_path, list(BACKENDS)))
    cases = scoreboard_data.decode_cases(data)
    assert [cases[k]["case"] for k in data["disagree"]] == ["test_abs_x_opset13_int32"]


def test_same_reports_same_bytes_whatever_the_record_order_or_compression(tmp_path):
    first = scoreboard_page.write_index(make_reports(tmp_path / "a"), list(BACKENDS)).read_bytes()
    again = scoreboard_page.write_index(tmp_path / "a", list(BACKENDS)).read_bytes()
    reversed_ = scoreboard_page.write_index(make_reports(tmp_path / "b", order=-1), list(BACKENDS)).read_bytes()
    assert first == again == reversed_
    for name in BACKENDS:  # the committed scoreboard keeps results.jsonl.gz only
        pack_results(tmp_path / "b" / name / "results.jsonl")
        (tmp_path / "b" / name / "results.jsonl").unlink()
    assert scoreboard_page.write_index(tmp_path / "b", list(BACKENDS)).read_bytes() == first


def test_names_without_results_are_left_out(tmp_path):
    make_reports(tmp_path)
    (tmp_path / "delta").mkdir()
    data = embedded(scoreboard_page.render_index(tmp_path, ["beta", "delta", "nowhere", "alpha"]))
    assert [b["name"] for b in data["backends"]] == ["beta", "alpha"]


def test_bad_reports_give_one_line_naming_the_file(tmp_path, capsys):
    make_reports(tmp_path)
    (tmp_path / "beta" / "run.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(scoreboard_data.PageError, match=r"beta[/\\]run\.json: not a JSON object"):
        scoreboard_page.render_index(tmp_path, list(BACKENDS))
    make_reports(tmp_path)
    (tmp_path / "gamma" / "results.jsonl").write_text('{"case": "test_x", "status": null}\n', encoding="utf-8")
    assert scoreboard_page.main(["--reports", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and re.search(r"gamma[/\\]results\.jsonl: record 1 \(test_x\) has no status", err)
    assert scoreboard_page.main(["--reports", str(tmp_path / "missing")]) == 2
    assert "missing: no such directory" in capsys.readouterr().err


def test_main_writes_the_page(tmp_path, capsys):
    make_reports(tmp_path)
    assert scoreboard_page.main(["--reports", str(tmp_path), "--out", str(tmp_path / "page.html")]) == 0
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert [b["name"] for b in embedded(page)["backends"]] == ["alpha", "beta", "gamma"]
    # one file: nothing to fetch, not even from this machine
    assert not re.search(r'\s(src|href)=|https?://|@import|url\(', page.replace(
        'http-equiv="Content-Security-Policy"', ""))


# -- in a real browser --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed: pip install -e '.[test]'")
    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not chromedriver:
        pytest.skip("no chromium/chromedriver installed: apt-get install chromium chromium-driver")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,900"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(chromedriver))
    yield driver
    driver.quit()


@pytest.fixture
def page(browser, tmp_path):
    """The synthetic reports' index.html, loaded; afterwards, no request left file:// and no script error."""
    out = scoreboard_page.write_index(make_reports(tmp_path), list(BACKENDS))
    browser.get_log("performance")
    browser.get_log("browser")
    browser.get(out.as_uri())
    assert browser.execute_script("return document.body.dataset.ready") == "1"
    yield browser
    requests = [json.loads(e["message"])["message"] for e in browser.get_log("performance")]
    urls = [m["params"]["request"]["url"] for m in requests if m["method"] == "Network.requestWillBeSent"]
    assert urls and all(u.startswith("file://") for u in urls), urls
    problems = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert not problems, problems


def rows(driver) -> list[str]:
    shown = driver.find_elements("css selector", "#board > tbody > tr[data-key]")
    return [r.find_element("css selector", "th").text for r in shown]


def row(driver, label: str):
    for r in driver.find_elements("css selector", "#board > tbody > tr[data-key]"):
        if r.find_element("css selector", ".lbl").text == label:
            return r
    raise AssertionError(f"no row {label!r} among {rows(driver)}")


def cell(driver, label: str, backend: str):
    k = BACKENDS.index(backend)
    return row(driver, label).find_element("css selector", f'td[data-b="{k}"]')


def choose(driver, select_id: str, text: str):
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", select_id)).select_by_visible_text(text)


def test_table_has_every_backend_and_families_only_until_opened(page):
    heads = [th.text for th in page.find_elements("css selector", "#board > thead th")]
    assert [h.split("\n")[0] for h in heads[1:]] == list(BACKENDS)
    assert "alpha-1.0" in heads[1] and "index abababababab" in heads[1] and "INCOMPLETE" in heads[3]
    assert [r.split("\n")[0] for r in rows(page)] == ["▸Element-wise math 6", "▸Activations 2", "▸Reduce 1"]
    # Element-wise math for alpha: 5 of 6 pass, the worst is a fail
    td = cell(page, "Element-wise math", "alpha")
    assert td.text == "5/6 83%" and "s-fail" in td.get_attribute("class")
    assert cell(page, "Element-wise math", "gamma").text == "4/5 80%"
    assert cell(page, "Reduce", "gamma").text == "–"
    totals = page.find_element("id", "totals").text
    assert "alpha alpha-1.0 abababababab 2026-01-01T00:01:00+00:00 yes 9 of 9" in totals
    assert "gamma gamma-1.0 abababababab 2026-01-01T00:01:00+00:00 NO 7 of 9" in totals


def test_opening_a_family_shows_its_operators_and_versions(page):
    row(page, "Element-wise math").find_element("css selector", "th").click()
    assert [r.split(" ")[0] for r in rows(page)] == ["▾Element-wise", "▸Abs", "▸Activations", "▸Reduce"]
    row(page, "Abs").find_element("css selector", "th").click()
    assert "Abs-6" in rows(page)[2] and "Abs-13" in rows(page)[3]
    row(page, "Abs-13").find_element("css selector", "th").click()
    assert [r.lstrip("▸▾ ") for r in rows(page)[4:6]] == ["float 3", "int32 2"]
    row(page, "Element-wise math").find_element("css selector", "th").click()
    assert len(rows(page)) == 3


def test_filters_change_the_rows(page):
    choose(page, "f-status", "some backend failing (crash, timeout, flaky, error, fail)")
    assert [r.split("\n")[0] for r in rows(page)] == ["▸Element-wise math 1", "▸Activations 1"]
    assert cell(page, "Element-wise math", "beta").text == "1/1 100%"
    choose(page, "f-status", "every case")
    choose(page, "f-dtype", "int32")
    assert [r.split("\n")[0] for r in rows(page)] == ["▸Element-wise math 2"]
    choose(page, "f-dtype", "every type")
    choose(page, "f-family", "Reduce")
    assert [r.split("\n")[0] for r in rows(page)] == ["▸Reduce 1"]
    choose(page, "f-family", "every family")
    page.find_element("css selector", '#f-backends input[value="1"]').click()  # hide beta
    heads = [th.text.split("\n")[0] for th in page.find_elements("css selector", "#board > thead th")]
    assert heads[1:] == ["alpha", "gamma"]
    page.find_element("id", "f-op").send_keys("relu")
    assert [r.split("\n")[0] for r in rows(page)] == ["▸Activations 2"]


def test_clicking_a_failing_cell_lists_its_cases_with_detail_and_command(page):
    for label in ("Element-wise math", "Abs", "Abs-13"):
        row(page, label).find_element("css selector", "th").click()
    cell(page, "int32", "alpha").click()
    box = page.find_element("css selector", "#board tr.cases")
    lines = box.find_elements("css selector", "table.list > tbody > tr")
    assert len(lines) == 2
    first = lines[0].text  # worst first, though it sorts after the passing one by name
    assert "fail" in first and "test_abs_x_opset13_int32" in first and "compare" in first
    assert "output 0: 1 of 4 values differ; max abs err 3 at index (2,)" in first
    assert "run-conformance --backend alpha -k test_abs_x_opset13_int32" in first
    assert "s-fail" in lines[0].find_element("css selector", "td").get_attribute("class")
    assert "pass" in lines[1].text and "test_abs_w_opset13_int32" in lines[1].text
    # at version level too; another cell replaces the list; close removes it
    cell(page, "Abs-13", "gamma").click()
    text = page.find_element("css selector", "#board tr.cases").text
    assert "gamma · Abs-13: 5 cases" in text and "no kernel for Abs int32" in text
    page.find_element("css selector", "#board tr.cases button.close").click()
    assert not page.find_elements("css selector", "#board tr.cases")
    # from the keyboard: Enter on a focused cell opens it too
    from selenium.webdriver.common.keys import Keys

    cell(page, "int32", "alpha").send_keys(Keys.ENTER)
    assert "alpha · Abs-13 int32: 2 cases" in page.find_element("css selector", "#board tr.cases").text


def test_disagreements_view_lists_the_planted_one(page):
    tab = page.find_element("id", "tab-disagree")
    assert tab.text == "Disagreements (1)"
    tab.click()
    assert not page.find_element("id", "view-table").is_displayed()
    groups = page.find_elements("css selector", "#disagree .dgroup")
    assert [g.text for g in groups] == ["▸Abs Element-wise math · 1 cases"]
    groups[0].find_element("css selector", "h3").click()
    body = page.find_elements("css selector", "#disagree table.list > tbody > tr")
    assert len(body) == 1
    cells = [td.text.split("\n")[0] for td in body[0].find_elements("css selector", "td")]
    assert cells == ["test_abs_x_opset13_int32", "Abs-13", "int32", "fail", "pass", "unsupported"]
    assert "test_relu_e_opset14_float" not in page.find_element("id", "disagree").text
