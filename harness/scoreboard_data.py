"""The scoreboard page's data: every backend's report read and checked, and encoded into the compact,
deterministic form reports/index.html embeds (scoreboard_page.py draws it; decode_cases reads it back)."""

from __future__ import annotations

import os
from pathlib import Path

from onnx_conformance.harness import compare_reports
from onnx_conformance.harness.families import family_key, family_of
from onnx_conformance.harness.matrix import NO_DTYPE, column_key, one_line
from onnx_conformance.harness.results import RESULTS, RUN, read_json, read_results
# One character per status in a backend's status string (CODES); a case the backend did not run is NOT_RUN.
from onnx_conformance.harness.statuses import BY_WORD, CODES, DECLINED, ERROR, FAILING, PASS, SEVERITY, TABLE

NOT_RUN = "."
EXTRA_CODES = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # statuses outside the vocabulary, should a report hold any
DETAIL_LIMIT = 400  # characters of a result's one-line detail kept in the page
FORMAT = 1
# A cell's pass share counts, among the cases a backend ran (not declined), those the gate accepts against a
# baseline without an entry: `pass`, and `warn` (wrong only at values needing more precision than the spec
# promises, so the backend did what the spec asks).
COUNTS_AS_PASS = tuple(s.word for s in TABLE if s.baseline_ok and not s.declined)
# A cell whose worst status ranks below `error` carries a mark in that status's colour: the run went wrong
# (a crash, a hang, an outcome that changes between tries), not only the answer.
MARKED = tuple(s.word for s in TABLE if s.rank < BY_WORD[ERROR].rank)


class PageError(ValueError):
    """A report the page cannot be built from; the message names the file and the problem."""


# -- reading the reports ------------------------------------------------------------------------


def load_reports(reports_dir: Path, names: list[str]) -> list[dict]:
    """One entry per name with results: {"name", "run", "results": {case: record}}, in `names`' order."""
    reports_dir = Path(reports_dir)
    if not reports_dir.is_dir():
        raise PageError(f"{reports_dir}: no such directory")
    loaded = []
    for name in dict.fromkeys(names):
        report = reports_dir / name
        records, _ = read_results(report / RESULTS)
        if not records:
            continue
        where = report / RESULTS if (report / RESULTS).is_file() else report / (RESULTS + ".gz")
        by_case: dict[str, dict] = {}
        for k, r in enumerate(records, 1):
            if not isinstance(r.get("case"), str) or not r["case"]:
                raise PageError(f"{where}: record {k} has no case name")
            if not isinstance(r.get("status"), str) or not r["status"]:
                raise PageError(f"{where}: record {k} ({r['case']}) has no status")
            by_case[r["case"]] = r  # a resumed run's later record wins, as in results.ResultsLog.all
        run = read_json(report / RUN)
        if run is None and (report / RUN).exists():
            raise PageError(f"{report / RUN}: not a JSON object")
        if run is not None and not isinstance(run, dict):
            raise PageError(f"{report / RUN}: not a JSON object")
        loaded.append({"name": name, "run": run or {}, "results": by_case})
    return loaded


# -- the data the page carries ------------------------------------------------------------------


def page_data(reports: list[dict]) -> dict:
    """The compact, deterministic form the page embeds.

    cases: every case any backend ran, once, ordered family > operator > version > type > name.
    `rows` cuts that order into runs of one (operator, version, type): [op index, version, type index,
    count], so a case's operator, version, type and family are its run's; `pre`/`mid`/`post` code each
    name against the previous one (leading characters shared, what differs, trailing characters shared).
    Per backend, `status` has one character per case (CODES; NOT_RUN where it did not run it) and
    `notes` holds, for each non-pass result, [case index minus the previous note's, stage, detail], the
    last two indices into one de-duplicated `strings` table shared by all backends.
    """
    facts: dict[str, dict] = {}
    for rep in reports:
        for case, r in rep["results"].items():
            facts.setdefault(case, r)
    extras = sorted({r["status"] for rep in reports for r in rep["results"].values()} - set(SEVERITY))
    if len(extras) > len(EXTRA_CODES):
        raise PageError(f"{len(extras)} statuses outside the vocabulary ({', '.join(extras[:5])}, ...)")
    statuses = [*extras, *SEVERITY]  # worst first, as matrix.rank orders them
    codes = {**CODES, **dict(zip(extras, EXTRA_CODES))}

    families: dict[str, int] = {}
    ops: dict[tuple[str, str], int] = {}
    dtypes: dict[str, int] = {}

    def key(case: str) -> tuple:
        r = facts[case]
        op, domain = r.get("op") or "(none)", r.get("domain") or ""
        since = r.get("since_version")
        since = since if isinstance(since, int) else None
        return (family_key(family_of(op, domain, r.get("form"))), op.lower(), op, domain, since is None, since or 0,
                column_key(r.get("dtype") or NO_DTYPE), case)

    order = sorted(facts, key=key)
    for name in sorted({family_of(facts[c].get("op") or "(none)", facts[c].get("domain") or "", facts[c].get("form"))
                        for c in order},
                       key=family_key):
        families[name] = len(families)
    for case in order:  # operators and types numbered in first-seen (that is, page) order
        r = facts[case]
        ops.setdefault((r.get("op") or "(none)", r.get("domain") or "", r.get("form")), len(ops))
        dtypes.setdefault(r.get("dtype") or NO_DTYPE, len(dtypes))

    rows: list[list] = []
    pre: list[int] = []
    mid: list[str] = []
    post: list[int] = []
    previous = ""
    for case in order:
        r = facts[case]
        since = r.get("since_version") if isinstance(r.get("since_version"), int) else None
        run = [ops[(r.get("op") or "(none)", r.get("domain") or "", r.get("form"))], since,
               dtypes[r.get("dtype") or NO_DTYPE]]
        if rows and rows[-1][:3] == run:
            rows[-1][3] += 1
        else:
            rows.append([*run, 1])
        head = len(os.path.commonprefix([previous, case]))
        tail = len(os.path.commonprefix([previous[head:][::-1], case[head:][::-1]]))
        pre.append(head)
        mid.append(case[head:len(case) - tail])
        post.append(tail)
        previous = case

    strings: dict[str, int] = {}

    def string(text) -> int:
        return strings.setdefault(text, len(strings))

    backends = []
    for rep in reports:
        results, run = rep["results"], rep["run"]
        status, notes, last = [], [], 0
        counts = dict.fromkeys(statuses, 0)
        for k, case in enumerate(order):
            r = results.get(case)
            if r is None:
                status.append(NOT_RUN)
                continue
            counts[r["status"]] += 1
            status.append(codes[r["status"]])
            if r["status"] != PASS:
                notes += [k - last, string(r.get("stage") or ""), string(one_line(r.get("detail"), DETAIL_LIMIT))]
                last = k
        backend = run.get("backend") if isinstance(run.get("backend"), dict) else {}
        corpus = run.get("corpus") if isinstance(run.get("corpus"), dict) else {}
        complete = run.get("complete")
        backends.append({
            "name": rep["name"],
            # what `run-conformance --backend` takes: the name the run was asked for (an entry point's
            # 'pkg.mod:Cls' is kept here; its report directory's name is a path-safe form of it)
            "command": str(backend.get("requested") or rep["name"]),
            "version": str(backend.get("version") or ""),
            "index_sha256": str(corpus.get("index_sha256") or ""),
            "corpus_cases": corpus.get("cases") if isinstance(corpus.get("cases"), int) else None,
            "complete": complete if isinstance(complete, bool) else None,
            "started": str(run.get("started") or ""),
            "finished": str(run.get("finished") or ""),
            "counts": counts,
            "status": "".join(status),
            "notes": notes,
        })

    position = {case: k for k, case in enumerate(order)}
    disagree, why, last = [], [], 0
    if len(reports) >= 2:
        rows_differ = compare_reports.disagreements([(rep["name"], rep["results"]) for rep in reports])
        for row in sorted((r for r in rows_differ if compare_reports.answered_differently(r)),
                          key=lambda r: position[r["case"]]):
            k = position[row["case"]]
            disagree.append(k - last)
            why.append("n" if row["differs_in"] == "numbers" else "s")
            last = k

    return {
        "format": FORMAT,
        "statuses": statuses,
        "codes": "".join(codes[s] for s in statuses),
        "classes": [status_class(s) for s in statuses],  # the CSS class (s-<class>) each status is drawn with
        "not_run": NOT_RUN,
        "failing": [s for s in statuses if s in FAILING or s in extras],
        "declined": list(DECLINED),
        "counts_as_pass": list(COUNTS_AS_PASS),
        "marked": list(MARKED),
        "families": list(families),
        "ops": [[op, domain, families[family_of(op, domain, form)]] for (op, domain, form) in ops],
        "dtypes": list(dtypes),
        "rows": rows,
        "pre": pre,
        "mid": mid,
        "post": post,
        "strings": list(strings),
        "backends": backends,
        "disagree": disagree,
        "disagree_why": "".join(why),
    }


def decode_cases(data: dict) -> list[dict]:
    """The case table back from page_data's encoding (what the page's script does), for checking it."""
    names, previous = [], ""
    for head, middle, tail in zip(data["pre"], data["mid"], data["post"]):
        previous = previous[:head] + middle + previous[len(previous) - tail:]
        names.append(previous)
    cases = []
    for op, since, dtype, count in data["rows"]:
        name, domain, family = data["ops"][op]
        for _ in range(count):
            cases.append({"case": names[len(cases)], "op": name, "domain": domain, "since_version": since,
                          "dtype": data["dtypes"][dtype], "family": data["families"][family]})
    return cases


def share(counts: dict) -> tuple[int, int, int]:
    """(cases counted as passing, cases run, cases with a result) from a count per status; a status
    outside the vocabulary counts as run and not passing."""
    recorded = sum(counts.values())
    ran = recorded - sum(n for s, n in counts.items() if s in DECLINED)
    return sum(n for s, n in counts.items() if s in COUNTS_AS_PASS), ran, recorded


def status_class(status: str) -> str:
    return status if status in SEVERITY else "other"
