"""update-scoreboard --splice: a backend's committed report brought up to date by re-running a selection.

A change to a few operators' cases (a sharper example, a new pattern family) or to how some cases run
needs their verdicts re-recorded, not the whole corpus re-run (tract takes 40 minutes, IREE 47). The
selection runs into a report directory of its own against the committed baseline with
--update-expectations (which re-baselines only the cases it ran, and drops entries of cases the corpus no
longer has); its records then replace the committed ones of the same cases in results.jsonl.gz, the
records of cases gone from the corpus go, and run.json says what was spliced when. A report that does
not then hold a record for every case of the corpus says `complete: false`, as a stopped run would.
"""

from __future__ import annotations

import json
from pathlib import Path

from onnx_conformance.harness.results import RESULTS, RUN, counts, now, pack_results, read_json, read_results, write_json


class SpliceError(Exception):
    """The selection's report cannot be spliced into the committed one (one line, naming the file)."""


def splice(report: Path, fresh: Path, corpus: Path) -> dict:
    """Splice the records of the run in `fresh` into the committed report in `report` (results.jsonl.gz
    and run.json), against the corpus at `corpus`; returns the new run.json."""
    run, fresh_run = read_json(report / RUN), read_json(fresh / RUN)
    if run is None or fresh_run is None:
        missing = report / RUN if run is None else fresh / RUN
        raise SpliceError(f"{missing}: missing or not JSON: nothing to splice {'into' if run is None else 'from'}")
    ours, theirs = run.get("backend") or {}, fresh_run.get("backend") or {}
    for key in ("name", "version", "options"):
        if ours.get(key) != theirs.get(key):
            raise SpliceError(f"{fresh / RUN}: backend {key} {theirs.get(key)!r} is not the committed report's "
                              f"{ours.get(key)!r}: run the whole corpus instead")
    if not fresh_run.get("complete"):
        raise SpliceError(f"{fresh / RUN}: the selection's run did not finish: nothing spliced")
    try:
        names = set(json.loads((corpus / "index.json").read_text(encoding="utf-8"))["cases"])
    except (OSError, ValueError, KeyError) as e:
        raise SpliceError(f"{corpus / 'index.json'}: cannot read the corpus's case names ({e})") from None
    new, _ = read_results(fresh / RESULTS)
    ran = {r["case"] for r in new}
    old, _ = read_results(report / RESULTS)
    merged = [r for r in old if r["case"] not in ran and r["case"] in names] + new
    plain = report / RESULTS
    plain.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in merged), encoding="utf-8")
    pack_results(plain)
    recorded = {r["case"] for r in merged}
    spliced = {"finished": fresh_run.get("finished") or now(), "cases": len(new),
               "selection": fresh_run.get("selection"), "dropped_gone": sum(1 for r in old if r["case"] not in names)}
    run.update(corpus=fresh_run.get("corpus"), counts=counts(merged), complete=names <= recorded,
               spliced=[*run.get("spliced", []), spliced])
    write_json(report / RUN, run)
    return run
