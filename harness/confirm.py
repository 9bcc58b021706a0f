"""--confirm: a failing result is run again in a fresh executor; a status that differs there is `order-dependent`, naming the case it ran after.

A backend's process can carry one case's damage into the next (FINDINGS OV-13), so a status a case
gets after other cases in its executor is not yet the case's own. Which results are confirmed, and
why that is enough at what cost: README "Verdicts that do not depend on order". In short, MODES:
`unexpected` (default): against a baseline, each fail, error, crash or timeout its entry does not
expect (what the gate would fail on); with none, each crash. `all`: every fail, error, crash and
timeout. `off`. A case its executor's process ran first ran alone already: never run again.
"""

from __future__ import annotations

from typing import Callable

from onnx_conformance.harness.executor import BackendUnavailable
from onnx_conformance.harness.statuses import (ACCEPTED_AGAINST_A_BASELINE, CONFIRMED_UNASKED, CRASH, FLAKY,
                                               ORDER_DEPENDENT, RERUN, TIMEOUT, entry_accepts)

UNEXPECTED, ALL, OFF = "unexpected", "all", "off"
MODES = (UNEXPECTED, ALL, OFF)
# In the default mode a run confirms at most this many: a release that regresses by the thousand is
# not slowed by an hour of fresh executors; the rest stand as they came (the gate fails on them all
# the same) and the run says how many.
LIMIT = 500


class Confirmer:
    """One run's confirmations. `fresh` makes an executor not yet started (the run's backend, options
    and limits); `cases` finds a case by name; `entries` is the baseline (None: no baseline)."""

    def __init__(self, mode: str, fresh: Callable, cases: dict, entries: dict | None):
        self.mode = mode
        self.fresh = fresh
        self.cases = cases
        self.entries = entries
        self.confirmed = 0  # cases run again
        self.changed = 0  # ... whose status changed
        self.over_limit = 0  # not run again: LIMIT reached
        self.inconclusive: list[str] = []  # a fresh executor that did not start: the result stands
        self.named: dict[tuple, str] = {}  # {executor process: the case named as damaging it}

    def wanted(self, result: dict) -> bool:
        """Whether the mode asks for this result to be confirmed (where something ran before it)."""
        status = result["status"]
        if self.mode == OFF or status not in RERUN:
            return False
        if self.mode == ALL:
            return True
        if self.entries is None:
            return status in CONFIRMED_UNASKED
        entry = self.entries.get(result["case"])
        if entry is None:
            return status not in ACCEPTED_AGAINST_A_BASELINE
        return not entry_accepts(entry.status, status)

    def check(self, case, result: dict, earlier) -> dict:
        """`result` confirmed, or what a fresh executor shows instead. `earlier`: the cases its
        executor's process ran before it (an executor.Earlier), None where it ran first.

        The case runs alone; the same status confirms it. Another: the case before it, then it, in a
        fresh executor, and where that does not bring the status back, a case named already in the same
        process (one damaging case fails every case after it). Not bisected further: each probe would
        replay up to thousands of cases."""
        if earlier is None or not self.wanted(result):
            return result
        if self.mode != ALL and self.confirmed >= LIMIT:
            self.over_limit += 1
            return result
        self.confirmed += 1
        alone = self._in_fresh([case])
        if alone is None:
            return result
        alone = alone[-1]
        if alone["status"] == result["status"]:
            return result
        self.changed += 1
        count, first, previous, process = earlier
        replayed, culprit = False, None
        for name in dict.fromkeys([previous, self.named.get(process)]):
            before = self.cases.get(name) if name else None
            again = self._in_fresh([before, case]) if before is not None else None
            # The case before it must have left that executor alive, or the case ran alone again.
            tried = again is not None and again[0]["status"] not in (CRASH, TIMEOUT)
            replayed = replayed or (tried and name == previous)
            if tried and again[1]["status"] == result["status"]:
                culprit = name
                self.named[process] = name
                break
        return _outcome(result, alone, count, first, previous, culprit, replayed)

    def _in_fresh(self, cases: list) -> list[dict] | None:
        """Each case's result, in order, in one fresh executor; None when it could not start."""
        executor = self.fresh()
        try:
            try:
                executor.start()
            except BackendUnavailable as e:
                self.inconclusive.append(f"{cases[-1].name}: {e}")
                return None
            return [executor.run(c) for c in cases]
        finally:
            executor.close()

    def lines(self) -> list[str]:
        """What the run's summary says of its confirmations, where there is something to say."""
        out = []
        if self.confirmed:
            out.append(f"confirm: {self.confirmed} failing case(s) run again in a fresh executor, "
                       f"{self.changed} with another status there")
        if self.over_limit:
            out.append(f"confirm: {self.over_limit} more not run again (the first {LIMIT} were): "
                       f"their statuses stand as they came")
        for said in self.inconclusive[:3]:
            out.append(f"confirm: no fresh executor, the status stands: {said}")
        return out


def _outcome(first: dict, alone: dict, count: int, earliest: str, previous: str, culprit: str | None,
             replayed: bool) -> dict:
    """The case's result once its status alone differs: `order-dependent`, or `flaky` where the
    same order (the one case before it, then it) did not give the first status again."""
    was, now = first["status"], alone["status"]
    said = f": {first['detail']}" if first.get("detail") else ""
    also = f"; alone: {alone['detail']}" if alone.get("detail") else ""
    if culprit == previous:
        where = f"{was} after {previous} (again after it alone in a fresh executor), {now} alone"
        return dict(first, status=ORDER_DEPENDENT, alone=now, after=previous, detail=where + said + also)
    if culprit is not None:
        where = (f"{was} after {culprit}, {count} cases before it in its executor (again after it alone in a fresh "
                 f"executor), {now} alone")
        return dict(first, status=ORDER_DEPENDENT, alone=now, after=culprit, detail=where + said + also)
    if count == 1 and replayed:
        return dict(first, status=FLAKY, detail=f"attempts: {was} after {previous}, {now} alone, "
                                                f"not {was} again after {previous}; first attempt {was}{said}")
    why = (f"not {was} again after {previous} alone in a fresh executor" if replayed else
           f"not tried again after {previous} alone: a fresh executor did not outlive it")
    cases = f"{previous}" if count == 1 else f"the {count} cases before it in its executor ({earliest} to {previous})"
    return dict(first, status=ORDER_DEPENDENT, alone=now, detail=f"{was} after {cases} ({why}), {now} alone"
                                                                  + said + also)
