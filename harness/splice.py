"""update-scoreboard --splice: a backend's committed report brought up to date by re-running a selection.

A change to a few operators' cases (a sharper example, a new pattern family) or to how some cases run
needs their verdicts re-recorded, not the whole corpus re-run (tract takes 40 minutes, IREE 47). The
selection (what follows `--`, or with --splice-new the cases the committed report has no record of, run
as a corpus of their own: subset()) runs into a report directory of its own against the committed baseline with
--update-expectations (which re-baselines only the cases it ran, and drops entries of cases the corpus no
longer has); its records then replace the committed ones of the same cases in results.jsonl.gz, the
records of cases gone from the corpus go, and run.json says what was spliced when. A report that does
not then hold a record for every case of the corpus says `complete: false`, as a stopped run would.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from onnx_conformance.harness.expectations import ExpectationsError, dump, load
from onnx_conformance.harness.results import RESULTS, RUN, counts, now, pack_results, read_json, read_results, write_json


BASELINE = "expectations.txt"


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
    index_bytes = _index_bytes(corpus)
    names = set(_index(corpus, index_bytes)["cases"])
    new, _ = read_results(fresh / RESULTS)
    ran = {r["case"] for r in new}
    old, _ = read_results(report / RESULTS)
    merged = [r for r in old if r["case"] not in ran and r["case"] in names] + new
    plain = report / RESULTS
    plain.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in merged), encoding="utf-8")
    pack_results(plain)
    # the baseline: the committed entries, but the rerun cases' from the run's copy, and none of a case gone
    try:
        committed, rerun = load(report / BASELINE), load(fresh / BASELINE)
    except ExpectationsError as e:
        raise SpliceError(str(e)) from None
    entries = {c: e for c, e in committed.items() if c not in ran and c in names}
    entries.update((c, e) for c, e in rerun.items() if c in ran)
    (report / BASELINE).write_text(dump(dict(sorted(entries.items()))), encoding="utf-8")
    recorded = {r["case"] for r in merged}
    spliced = {"finished": fresh_run.get("finished") or now(), "cases": len(new),
               "selection": fresh_run.get("selection"), "dropped_gone": sum(1 for r in old if r["case"] not in names)}
    identity = {"path": (run.get("corpus") or {}).get("path", str(corpus)),
                "index_sha256": hashlib.sha256(index_bytes).hexdigest(), "cases": len(names)}
    run.update(corpus=identity, counts=counts(merged), complete=names <= recorded,
               spliced=[*run.get("spliced", []), spliced])
    write_json(report / RUN, run)
    return run


def missing(report: Path, corpus: Path) -> list[str]:
    """The corpus's cases the committed report has no record of (new cases), in name order."""
    recorded = {r["case"] for r in read_results(report / RESULTS)[0]}
    return sorted(set(_index(corpus)["cases"]) - recorded)


def subset(corpus: Path, names: list[str], out: Path) -> Path:
    """A corpus at `out` of `names` alone: their index entries, and their folders hard-linked from `corpus`
    (the runner's safety checks refuse a case folder reached through a symlink out of its corpus)."""
    index = _index(corpus)
    if out.exists():
        shutil.rmtree(out)
    for name in names:
        entry = index["cases"][name]
        where = "graph" if entry.get("form") else "node"
        shutil.copytree(corpus / where / name, out / where / name, copy_function=os.link)
    small = dict(index, cases={n: index["cases"][n] for n in names})
    (out / "index.json").write_text(json.dumps(small, sort_keys=True) + "\n", encoding="utf-8")
    return out


def _index_bytes(corpus: Path) -> bytes:
    try:
        return (corpus / "index.json").read_bytes()
    except OSError as e:
        raise SpliceError(f"{corpus / 'index.json'}: cannot read the corpus's index ({e.strerror})") from None


def _index(corpus: Path, data: bytes | None = None) -> dict:
    try:
        return json.loads(data if data is not None else _index_bytes(corpus))
    except ValueError as e:
        raise SpliceError(f"{corpus / 'index.json'}: not JSON ({e})") from None
