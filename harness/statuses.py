"""Every status a case can have, one row each with its facts: the table the reports, the gate, the page and the executor read.

A new status is a new row: results.jsonl, the expectations file, the matrices, the terminal summary,
junit.xml, the gate, compare-reports and the scoreboard page all take it from here (the executor, or
whatever else decides that a case has it, still has to say when).
"""

from __future__ import annotations

from typing import NamedTuple


class Status(NamedTuple):
    word: str  # the same in code, JSON, Markdown and HTML
    rank: float  # severity, lowest the worst: a matrix cell is shown as the worst status among its cases
    mark: str  # Markdown has no colour; one symbol per status stands in for it
    colour: tuple[str, str]  # HTML background, text
    code: str  # the scoreboard page's one character per case
    failing: bool = False  # a failure: listed with its reason in the terminal summary, matrices and page
    success: bool = False  # the case did what the corpus asks; a fix over any other entry
    improves: tuple[str, ...] = ()  # baseline entries this status does better than (a fix, not a regression)
    declined: bool = False  # the case was not attempted: a pytest skip, not a run, no disagreement
    rerun: bool = False  # --rerun-failures runs the case again
    first_run_ok: bool = False  # with no expectations file at all, passes the gate without an entry
    baseline_ok: bool = False  # against a baseline, passes the gate without an entry
    strict_fails: bool = False  # ... except under --strict
    entry_accepts_any: bool = False  # a baseline entry of this status accepts any outcome (a person's judgement)
    entry_not_run: bool = False  # a case whose baseline entry has this status is not run at all
    unfinished: bool = False  # the case did not run to an answer: JUnit's <error>, where a wrong answer is a <failure>
    # --confirm (harness/confirm.py): confirmed in a fresh executor even where no baseline says what to expect
    confirmed_unasked: bool = False
    graded_alone: bool = False  # the gate grades the case by its status in a fresh executor (the result's `alone`)


# In the vocabulary's order: run.json's counts and the expectations file's error message list them so.
TABLE: tuple[Status, ...] = (
    Status("pass", 8, "✅", ("#c8e6c9", "#000000"), "p", success=True,
           first_run_ok=True, baseline_ok=True),
    # dEQP's QualityWarning: wrong only at values the corpus marks as needing more intermediate
    # precision than the spec guarantees (an index entry's `quality`); see verdict._only_marked.
    Status("warn", 5, "⚠️", ("#ffe0b2", "#000000"), "w", improves=("fail",),
           first_run_ok=True, baseline_ok=True, strict_fails=True),
    Status("fail", 4, "❌", ("#ef9a9a", "#000000"), "f", failing=True, rerun=True),
    # With no baseline at all (a first run has nothing to lose) `unsupported` is accepted: the
    # backend said plainly it cannot. Against a baseline, which --update-expectations writes with
    # every non-passing case in it, a case with no entry must pass: `unsupported` there is a kernel
    # the release lost.
    Status("unsupported", 6, "➖", ("#fff3b0", "#000000"), "u", declined=True, first_run_ok=True),
    Status("error", 3, "❗", ("#c62828", "#ffffff"), "e", failing=True, rerun=True, unfinished=True),
    # A crash is OV-13's symptom of a process an earlier case corrupted, and it costs a fresh process anyway.
    Status("crash", 0, "💥", ("#6a1b9a", "#ffffff"), "c", failing=True, rerun=True, unfinished=True,
           confirmed_unasked=True),
    Status("timeout", 1, "⏱️", ("#e65100", "#ffffff"), "t", failing=True, rerun=True, unfinished=True),
    # --rerun-failures: a case whose status changed between attempts; never counted as `pass`.
    Status("flaky", 2, "🔀", ("#f9a825", "#000000"), "y", failing=True, entry_accepts_any=True),
    # --confirm: a case whose status in a fresh executor differs from the one it got after the cases
    # before it in its executor (which its detail and `after` name). The order is the run's (shards,
    # -n), not the case's: the gate grades the case by its status alone, and a baseline never lists it.
    Status("order-dependent", 2.5, "⛓️", ("#5d4037", "#ffffff"), "o", failing=True, graded_alone=True),
    # A case known to hang or to take the machine down, listed so in the baseline.
    Status("skip", 7, "⏭️", ("#e0e0e0", "#000000"), "s", declined=True, first_run_ok=True, baseline_ok=True,
           entry_not_run=True),
)

BY_WORD: dict[str, Status] = {s.word: s for s in TABLE}
STATUSES: tuple[str, ...] = tuple(BY_WORD)
# Worst first.
SEVERITY: tuple[str, ...] = tuple(s.word for s in sorted(TABLE, key=lambda s: s.rank))
FAILING: tuple[str, ...] = tuple(w for w in SEVERITY if BY_WORD[w].failing)
DECLINED: tuple[str, ...] = tuple(w for w in SEVERITY if BY_WORD[w].declined)
SUCCESS: frozenset[str] = frozenset(s.word for s in TABLE if s.success)
RERUN: frozenset[str] = frozenset(s.word for s in TABLE if s.rerun)
ANY_OUTCOME_ENTRIES: frozenset[str] = frozenset(s.word for s in TABLE if s.entry_accepts_any)
NOT_RUN_ENTRIES: frozenset[str] = frozenset(s.word for s in TABLE if s.entry_not_run)
UNFINISHED: frozenset[str] = frozenset(s.word for s in TABLE if s.unfinished)
CONFIRMED_UNASKED: frozenset[str] = frozenset(s.word for s in TABLE if s.confirmed_unasked)
GRADED_ALONE: frozenset[str] = frozenset(s.word for s in TABLE if s.graded_alone)
# The statuses a case with no baseline entry may have: with no expectations file, against one.
ACCEPTED: frozenset[str] = frozenset(s.word for s in TABLE if s.first_run_ok)
ACCEPTED_AGAINST_A_BASELINE: frozenset[str] = frozenset(s.word for s in TABLE if s.baseline_ok)
STRICT_FAILS: frozenset[str] = frozenset(s.word for s in TABLE if s.strict_fails)
MARK: dict[str, str] = {w: BY_WORD[w].mark for w in SEVERITY}
COLOUR: dict[str, tuple[str, str]] = {w: BY_WORD[w].colour for w in SEVERITY}
CODES: dict[str, str] = {w: BY_WORD[w].code for w in SEVERITY}

assert len(set(CODES.values())) == len(CODES), "each status needs its own page code"
assert len({s.rank for s in TABLE}) == len(TABLE), "each status needs its own rank"

# The words the runner itself decides, named so a reader can find every place that decides one.
PASS, WARN, FAIL, UNSUPPORTED, ERROR = "pass", "warn", "fail", "unsupported", "error"
CRASH, TIMEOUT, FLAKY, SKIP, ORDER_DEPENDENT = "crash", "timeout", "flaky", "skip", "order-dependent"
assert {PASS, WARN, FAIL, UNSUPPORTED, ERROR, CRASH, TIMEOUT, FLAKY, SKIP, ORDER_DEPENDENT} <= BY_WORD.keys()


def graded(result: dict) -> str:
    """The status the gate grades a result by: its own, or for an order-dependent case the one it got alone."""
    status = result["status"]
    return (result.get("alone") or status) if status in GRADED_ALONE else status


def is_fix(got: str, entry_status: str) -> bool:
    """`got` does better than a baseline entry of `entry_status` says: it passes, or it now misses
    only values the corpus marks."""
    row = BY_WORD.get(got)
    return row is not None and (row.success or entry_status in row.improves)


def entry_accepts(entry_status: str, got: str) -> bool:
    """A baseline entry of `entry_status` accepts a case that came back `got`."""
    return got == entry_status or entry_status in ANY_OUTCOME_ENTRIES


def accepted(first_run: bool, strict: bool = False) -> frozenset:
    """The statuses a case with no entry may have (first_run: no expectations file at all)."""
    ok = ACCEPTED if first_run else ACCEPTED_AGAINST_A_BASELINE
    return ok - STRICT_FAILS if strict else ok
