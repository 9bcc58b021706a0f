"""reports/index.html in headless Chromium: its size, time to the first table, time to open the largest family.

Writes the page from a reports directory into a temporary folder (never into reports/), then loads it
--runs times in one headless Chromium, alternating with a peer: the largest per-backend matrix.html
(one backend's static table, the page a reader opened before this one). Per load: time from navigation
start to the page's first table (the page sets body.dataset.readyMs) against the peer's load event;
then the time to open the largest family and to apply the "some backend failing" filter, each
measured from the click to the next frame after it. Medians are printed, and the ratio to the peer.

    python bench/bench_scoreboard_page.py [--reports reports] [--runs 7] [--screenshot reports/scoreboard.png]

--screenshot also saves a 1400x900 picture of the page: every family, one of them open down to a type
whose cell is under 100%, and that cell's cases listed (the README's picture).
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from onnx_conformance.harness import scoreboard_data, scoreboard_page
from onnx_conformance.harness.scoreboard import BACKENDS

# Clicks something, then reports the milliseconds until the frame after the page has drawn it.
TIMED_CLICK = """
const [el, done] = arguments;
const t0 = performance.now();
el.click();
requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0), 0));
"""
TIMED_CHANGE = """
const [el, value, done] = arguments;
const t0 = performance.now();
el.value = value;
el.dispatchEvent(new Event("change", {bubbles: true}));
requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0), 0));
"""


def browser(width: int = 1400, height: int = 900):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not chromedriver:
        sys.exit("bench_scoreboard_page: no chromium/chromedriver installed: apt-get install chromium chromium-driver")
    options = Options()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                f"--window-size={width},{height}", "--enable-precise-memory-info"):
        options.add_argument(arg)
    return webdriver.Chrome(options=options, service=Service(chromedriver))


def wait_ready(driver, timeout: float = 60) -> float:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ms = driver.execute_script("return document.body && document.body.dataset.readyMs")
        if ms:
            return float(ms)
        time.sleep(0.01)
    raise TimeoutError("the page never set body.dataset.readyMs")


def largest_family(driver):
    rows = driver.find_elements("css selector", "#board > tbody > tr.l0")
    return max(rows, key=lambda r: int(r.get_attribute("data-n")))


def measure_page(driver, url: str) -> dict:
    driver.get(url)
    ready = wait_ready(driver)
    family = largest_family(driver)
    name = family.find_element("css selector", ".lbl").text
    expand = driver.execute_async_script(TIMED_CLICK, family.find_element("css selector", "th"))
    rows = len(driver.find_elements("css selector", "#board > tbody > tr"))
    failing = driver.execute_async_script(TIMED_CHANGE, driver.find_element("id", "f-status"), "failing")
    heap = driver.execute_script("return performance.memory ? performance.memory.usedJSHeapSize : null")
    return {"ready_ms": ready, "expand_ms": expand, "family": name, "rows_after_expand": rows,
            "filter_ms": failing, "heap_bytes": heap}


def measure_peer(driver, url: str) -> float:
    driver.get(url)  # returns after the load event
    return float(driver.execute_script(
        "const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd;"))


def screenshot(driver, url: str, out: Path) -> None:
    """One family open down to a type whose cell fails, and that cell's cases listed."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    driver.get(url)
    wait_ready(driver)
    failing = 'td[class^="h"]:not(.h100)'  # a cell whose pass share is under 100%
    families = [r for r in driver.find_elements("css selector", "#board > tbody > tr.l0")
                if r.find_elements("css selector", failing)]
    # the family most backends ran, the smallest of those: every column has something to show
    best = min(families, key=lambda r: (len(r.find_elements("css selector", "td.none, td.declined")),
                                        int(r.get_attribute("data-n"))))
    key = best.get_attribute("data-key")
    best.find_element("css selector", "th").click()
    for level in ("l1", "l2"):
        rows = driver.find_elements("css selector", f'#board > tbody > tr.{level}[data-key^="{key}/"]')
        row = next(r for r in rows if r.find_elements("css selector", failing))
        key = row.get_attribute("data-key")
        row.find_element("css selector", "th").click()
    leaf = next(r for r in driver.find_elements("css selector", f'#board > tbody > tr.l3[data-key^="{key}/"]')
                if r.find_elements("css selector", failing))
    leaf.find_element("css selector", failing).click()
    driver.execute_script("document.querySelector('nav').scrollIntoView()")
    driver.save_screenshot(str(out))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reports", type=Path, default=Path("reports"))
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--screenshot", type=Path, help="save a 1400x900 PNG of the page here")
    a = p.parse_args(argv)
    found = {d.name for d in a.reports.iterdir() if d.is_dir()}
    names = [n for n in BACKENDS if n in found] + sorted(found - set(BACKENDS))
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "index.html"
        started = time.perf_counter()
        data = scoreboard_data.page_data(scoreboard_data.load_reports(a.reports, names))
        text = scoreboard_page.render_page(data)
        render_s = time.perf_counter() - started
        page.write_text(text, encoding="utf-8")
        raw = page.read_bytes()
        results = sum(len(b["status"]) - b["status"].count(scoreboard_data.NOT_RUN) for b in data["backends"])
        matrices = [a.reports / n / "matrix.html" for n in names if (a.reports / n / "matrix.html").is_file()]
        peer = max(matrices, key=lambda m: m.stat().st_size) if matrices else None
        print(f"page: {len(raw)} bytes ({len(gzip.compress(raw, 9, mtime=0))} gzipped), "
              f"{len(data['backends'])} backends, {len(data['pre'])} cases, {results} results; written in {render_s:.1f} s")
        if peer:
            print(f"peer: {peer} ({peer.stat().st_size} bytes)")
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
        driver = browser()
        try:
            measure_page(driver, page.as_uri())  # warm-up: not counted
            pages, peers = [], []
            for _ in range(a.runs):
                pages.append(measure_page(driver, page.as_uri()))
                if peer:
                    peers.append(measure_peer(driver, peer.resolve().as_uri()))
            if a.screenshot:
                screenshot(driver, page.as_uri(), a.screenshot)
                print(f"screenshot: {a.screenshot}")
        finally:
            driver.quit()
    med = {k: statistics.median(r[k] for r in pages) for k in ("ready_ms", "expand_ms", "filter_ms")}
    spread = {k: (min(r[k] for r in pages), max(r[k] for r in pages)) for k in med}
    print(f"runs: {a.runs} (median, [min-max])")
    print(f"first table:        {med['ready_ms']:8.1f} ms  [{spread['ready_ms'][0]:.0f}-{spread['ready_ms'][1]:.0f}]")
    print(f"open largest family {med['expand_ms']:8.1f} ms  [{spread['expand_ms'][0]:.0f}-{spread['expand_ms'][1]:.0f}]"
          f"  ({pages[0]['family']}: {pages[0]['rows_after_expand']} rows in the table after)")
    print(f"filter 'failing':   {med['filter_ms']:8.1f} ms  [{spread['filter_ms'][0]:.0f}-{spread['filter_ms'][1]:.0f}]")
    if pages[0]["heap_bytes"]:
        print(f"JS heap after:      {statistics.median(r['heap_bytes'] for r in pages) / 2**20:8.1f} MiB")
    if peers:
        p_med = statistics.median(peers)
        ratio = statistics.median(r["ready_ms"] / q for r, q in zip(pages, peers))
        print(f"peer load event:    {p_med:8.1f} ms  [{min(peers):.0f}-{max(peers):.0f}]  ({peer.parent.name}/matrix.html)")
        print(f"first table / peer: {ratio:.2f}x (median of per-pair ratios)")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
