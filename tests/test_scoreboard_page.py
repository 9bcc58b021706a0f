"""reports/index.html: its data encoding (plain), and what a person sees in it (headless Chromium via selenium)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from onnx_conformance.harness import scoreboard_data, scoreboard_page
from onnx_conformance.harness.results import FIELDS, pack_results, write_json
from onnx_conformance.harness.statuses import COLOUR

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


def make_reports(root, order=1, cases=CASES, versions=None):
    """reports/<backend>/{results.jsonl, run.json} for BACKENDS (or `versions`' names); `order` -1 writes the
    records reversed."""
    versions = versions or {name: f"{name}-1.0" for name in BACKENDS}
    for name in versions:
        report = root / name
        report.mkdir(parents=True, exist_ok=True)
        lines = []
        for (case, op, since, dtype), statuses in cases.items():
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
            "backend": {"name": name, "requested": name, "version": versions[name], "options": {}},
            "corpus": {"cases": len(cases), "index_sha256": "ab" * 32, "path": "cases"},
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


def test_heat_scale_rises_in_lightness_with_readable_text():
    scale = scoreboard_page.heat_scale()
    shade = [scoreboard_page.relative_luminance(list(rgb(bg))) for bg, _ in scale]
    assert len(scale) == 101 and all(a < b for a, b in zip(shade, shade[1:]))
    for (bg, fg), y in zip(scale, shade):
        on = scoreboard_page.relative_luminance(list(rgb(fg)))
        assert (max(y, on) + 0.05) / (min(y, on) + 0.05) >= 4.5, (bg, fg)  # WCAG AA for text


def test_pass_share_counts_warn_and_leaves_declined_apart():
    # warn misses only values the spec does not promise at the type's precision: the backend did what it asks
    assert scoreboard_data.COUNTS_AS_PASS == ("pass", "warn")
    counts = {"pass": 3, "warn": 1, "fail": 2, "crash": 1, "unsupported": 4, "skip": 1, "not-a-status": 1}
    assert scoreboard_data.share(counts) == (4, 8, 13)  # passing, run, with a result


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
    yield from loaded(browser, scoreboard_page.write_index(make_reports(tmp_path), list(BACKENDS)))


def loaded(browser, out):
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
    assert [h.split("\n")[:2] for h in heads[1:]] == [[b, f"{b}-1.0"] for b in BACKENDS]
    assert "INCOMPLETE" in heads[3] and "INCOMPLETE" not in heads[1]
    tip = page.find_element("css selector", '#board > thead th[data-b="0"]').get_attribute("title")
    assert "corpus index " + "ab" * 32 in tip
    assert [r.split("\n")[0] for r in rows(page)] == ["▸Element-wise math 6", "▸Activations 2", "▸Reduce 1"]
    # Element-wise math for alpha: 5 of 6 run pass, the worst is a fail
    td = cell(page, "Element-wise math", "alpha")
    assert td.text == "83%" and "worst: fail" in td.get_attribute("title")
    # gamma passes the 4 it ran and declined 1 of its 5: 100%, its declined share apart
    td = cell(page, "Element-wise math", "gamma")
    assert td.text == "100%" and "ran 4 of 5" in td.get_attribute("title")
    assert td.find_elements("css selector", ".cov")
    assert cell(page, "Reduce", "gamma").text == "–"
    totals = page.find_element("id", "totals").text.replace("\n", " ")
    assert "alpha alpha-1.0 2026-01-01 00:01 index abababababab · complete 9 of 9 77.7% 100.0%" in totals
    assert "gamma gamma-1.0 2026-01-01 00:01 index abababababab · INCOMPLETE 7 of 9 100.0% 57.1%" in totals


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
    from selenium.webdriver.support.ui import Select

    Select(page.find_element("id", "f-status")).select_by_value("failing")
    assert [r.split("\n")[0] for r in rows(page)] == ["▸Element-wise math 1", "▸Activations 1"]
    assert cell(page, "Element-wise math", "beta").text == "100%"
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


# -- eight backends, read at a glance -----------------------------------------------------------

# the real backends' names and versions as long as theirs: the widths a laptop screen must hold
EIGHT = {
    "onnxruntime": "1.31.1", "reference": "1.23.2", "openvino": "2026.4.1-22982-e213a147257-releases/2026/4",
    "tract": "0.23.9", "torch": "torch 2.13.0+cpu, onnx2torch 1.5.15",
    "iree": "iree-base-compiler 3.13.0rc20261016, iree-base-runtime 3.13.0rc20261016",
    "opencv": "opencv-python-headless 4.12.0.88", "tinygrad": "0.11.0",
}
# per backend, the statuses of Abs-13's four cases: what its Element-wise math cell must show
ABS = {
    "onnxruntime": "pass pass pass pass",  # 100%
    "reference": "pass pass fail fail",  # 50%
    "openvino": "fail fail fail error",  # 0%, worst error
    "tract": "unsupported unsupported unsupported unsupported",  # ran none: coverage, not failure
    "torch": "pass pass pass crash",  # 75%, marked
    "iree": "pass warn pass warn",  # warn counts as passing: 100%
    "opencv": "pass pass unsupported unsupported",  # 100% of half
    "tinygrad": "error error error error",  # 0%
}
EIGHT_CASES = {(f"test_abs_{x}_opset13_float", "Abs", 13, "float"): {b: ABS[b].split()[k] for b in EIGHT}
               for k, x in enumerate("abcd")}
# the widest family label there is
EIGHT_CASES[("test_if_a_opset16_float", "If", 16, "float")] = dict.fromkeys(EIGHT, "pass")


@pytest.fixture
def eight(browser, tmp_path):
    yield from loaded(browser, scoreboard_page.write_index(
        make_reports(tmp_path, cases=EIGHT_CASES, versions=EIGHT), list(EIGHT)))


def rgb(colour: str) -> tuple[int, ...]:
    if colour.startswith("#"):
        return tuple(int(colour[k:k + 2], 16) for k in (1, 3, 5))
    return tuple(int(float(x)) for x in re.findall(r"[\d.]+", colour)[:3])


def test_eight_backends_read_at_a_glance(eight):
    fits_a_laptop(eight)
    tds = {b: row(eight, "Element-wise math").find_element("css selector", f'td[data-b="{k}"]')
           for k, b in enumerate(EIGHT)}
    assert {b: td.text for b, td in tds.items()} == {
        "onnxruntime": "100%", "reference": "50%", "openvino": "0%", "tract": "–", "torch": "75%", "iree": "100%",
        "opencv": "100%", "tinygrad": "0%"}
    style = {b: eight.execute_script("const s = getComputedStyle(arguments[0]); "
                                     "return [s.backgroundColor, s.backgroundImage];", td) for b, td in tds.items()}
    shade = {b: scoreboard_page.relative_luminance(list(rgb(bg))) for b, (bg, _) in style.items()}
    # the share orders the colours by lightness; warn counts as passing; 0% is 0% whatever failed
    assert shade["onnxruntime"] > shade["torch"] > shade["reference"] > shade["openvino"]
    assert style["iree"] == style["opencv"] == style["onnxruntime"]
    assert style["openvino"] == style["tinygrad"]
    # a backend that declined every case is hatched grey: no colour of the scale, nor of a failing status
    bg, image = style["tract"]
    assert "repeating-linear-gradient" in image and shade["tract"] > shade["reference"]
    heat = {rgb(h) for h, _ in scoreboard_page.heat_scale()}
    failing = {rgb(COLOUR[s][0]) for s in scoreboard_data.FAILING}
    assert rgb(bg) not in heat | failing
    # what it declined is drawn apart from what it ran: a strip as wide as the share declined
    assert not tds["onnxruntime"].find_elements("css selector", ".cov")
    strip = tds["opencv"].find_element("css selector", ".cov")
    assert abs(strip.size["width"] / tds["opencv"].size["width"] - 0.5) < 0.05
    # the worst status: named on hover, and marked where the run itself went wrong
    title = {b: td.get_attribute("title") for b, td in tds.items()}
    assert "worst: fail" in title["reference"] and "worst: error" in title["openvino"]
    assert "worst: crash" in title["torch"] and "1 crash, 3 pass" in title["torch"]
    assert "ran none of 4: all declined, worst: unsupported" in title["tract"]
    assert "ran 2 of 4 (coverage 50%)" in title["opencv"]
    assert "4 of 4 run pass or warn (100%), worst: warn" in title["iree"]
    mark = tds["torch"].find_element("css selector", ".mk").value_of_css_property("background-color")
    assert rgb(mark) == rgb(COLOUR["crash"][0])
    assert not [b for b, td in tds.items() if b != "torch" and td.find_elements("css selector", ".mk")]
    # ... and in the leaf's case list, worst first; a family open and a case list shown, it still fits
    for label in ("Element-wise math", "Abs", "Abs-13"):
        row(eight, label).find_element("css selector", "th").click()
    eight.find_element("css selector", '#board tr.l3 > td[data-b="4"]').click()
    first = eight.find_element("css selector", "#board tr.cases table.list > tbody > tr > td")
    assert first.text == "crash" and rgb(first.value_of_css_property("background-color")) == rgb(COLOUR["crash"][0])
    fits_a_laptop(eight)


def fits_a_laptop(driver):
    """No scrolling sideways in a window 1400 or 1366 pixels wide."""
    try:
        for width in (1400, 1366):
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": width, "height": 768, "deviceScaleFactor": 1, "mobile": False})
            scroll, inner = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
            assert inner == width and scroll <= inner, (width, scroll)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
