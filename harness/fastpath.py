"""The run's shortcuts into pytest's internals and the interpreter, in one place: --plain-pytest turns every one off.

Each saves time per case or per run that a whole-corpus run (86,000 items) feels; none changes a
status, a report or the exit code (bench/same_verdicts.py over the corpus, with and without). Without
them the plugin (harness/plugin.py) is plain pytest: items built and run by pytest's own protocol,
reported by its own hooks. `python bench/bench_run.py --ours-args=--plain-pytest` shows what they buy.

- QUIET outcomes: a case whose pytest outcome is only counted (passed, skipped, xfailed, unless -v or -r asks
  to list it) is counted in the terminal reporter's stats and forgotten by --lf here, without pytest's
  per-item reporting (FastPath.run_items).
- The lean protocol: a case has no fixtures, so it gets one call report and the teardown report that closes
  its record, built here (lean_protocol), not pytest's setup/call/teardown with their hooks (~1 ms a case).
- Items: the operator's folder as every item's path and a location set directly (new_item; a pathlib.Path
  per case is most of what building the items costs), and one hook relay for all of them (item_hook).
- The garbage collector: off while the corpus is read and the items built, what was built frozen once
  the run starts, no full collections while the run only adds results it keeps (FastPath.gc_*).
- The reports at the end: junit.xml here, the matrices in a forked copy, side by side (side_by_side).
"""

from __future__ import annotations

import gc
import os
import threading
import time
from pathlib import Path

import pytest
from _pytest._code import ExceptionInfo
from _pytest.reports import TestReport

from onnx_conformance.harness.executor import describe_exit
from onnx_conformance.harness.statuses import PASS

# The outcomes pytest only counts unless asked to show them (the -r characters that list each one):
# a case with one of them skips pytest's per-item reporting (FastPath.run_items).
QUIET = {"passed": "pP", "skipped": "s", "xfailed": "x"}


class FastPath:
    """The shortcuts' state for one run: `run` is its run.Run (which executes and grades each case, and
    holds the results log), `config` its pytest config, `plugin_name` the plugin's (one of the listeners)."""

    def __init__(self, run, config: pytest.Config, plugin_name: str):
        self.run = run
        self.config = config
        # The plugins that hear every item's report; for a quiet outcome the run does their part itself
        # (counts it for the terminal's summary, drops it from --lf's failures). Any other listener (a
        # --junitxml of the user's, a reporting plugin) gets every report, as pytest sends them.
        self.listeners = frozenset({"terminalreporter", "lfplugin", "session", "logging-plugin", plugin_name})
        # The terminal reporter, --lf's failures, the operator whose line the terminal shows, and a
        # report standing in for each quiet outcome in the terminal's counts (the first case with that
        # outcome, reported in full).
        self.terminal = None
        self.lastfailed: dict = {}
        self.lastfailed_keys: dict = {}
        self.shown_group = None
        self.stand_in: dict[str, pytest.TestReport] = {}
        self.hook_relay = None  # the one every case item uses (item_hook)
        self.gc_was_enabled = gc.isenabled()
        self.gc_thresholds = gc.get_threshold()

    # -- the garbage collector -------------------------------------------------------------

    def gc_pause(self) -> None:
        """No automatic garbage collection while the corpus is read and pytest builds its items: the
        heap only grows then (millions of objects), and each full collection walks all of it again (a
        dozen of them, 2.7 s of a whole-corpus run's 5 s before its first item, and the work-ahead
        thread waiting on the lock all the while). gc_run_starts freezes what was built and turns
        collection back on; gc_restore leaves it as it found it."""
        gc.disable()

    def gc_run_starts(self) -> None:
        # The items live until the run ends: the garbage collector need not walk them again on
        # every collection of the objects each case leaves behind (tens of thousands of items), nor
        # in the collections pytest forces as it shuts down (~1 s); cli.main unfreezes them once
        # pytest has returned, unless the process ends there (run-conformance).
        gc.freeze()
        if self.gc_was_enabled:
            # Young objects are collected as usual, but no full collection runs while the run only
            # adds results it keeps to the end: each would walk all of them again to find nothing
            # (a dozen, 1.9 s of the controller's 9 s in a whole-corpus run).
            young, middle, _ = self.gc_thresholds
            gc.set_threshold(young, middle, 2**31 - 1)
            gc.enable()

    def gc_run_ends(self) -> None:
        # No collection while the reports only build, and none of what the run built in the
        # collections pytest forces as it shuts down (~0.4 s): it is frozen, results and all
        # (gc_restore turns collection back on; where cli.main unfreezes, what the run left for a
        # full collection is found then).
        gc.disable()
        gc.set_threshold(*self.gc_thresholds)
        gc.freeze()

    def gc_restore(self) -> None:
        gc.set_threshold(*self.gc_thresholds)
        if self.gc_was_enabled:
            gc.enable()

    # -- running the items -----------------------------------------------------------------

    def run_items(self, session: pytest.Session, is_case) -> bool:
        """Run the items as pytest's own loop does, except that a case whose outcome pytest would
        only count (QUIET) is counted here, without pytest's per-item reporting."""
        run = self.run
        quiet = self._quiet_outcomes()
        items = session.items
        for i, item in enumerate(items):
            if quiet and is_case(item):
                result = run.execute(item.case)
                graded = run.grade(result)
                outcome = graded[0]
                if outcome in quiet and outcome in self.stand_in:
                    self._count_quietly(item, result, outcome)
                    continue
                item.ran = result, graded  # reported by pytest's protocol below
            nextitem = items[i + 1] if i + 1 < len(items) else None
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            if session.shouldfail:
                raise session.Failed(session.shouldfail)
            if session.shouldstop:
                raise session.Interrupted(session.shouldstop)
        return True

    def heard(self, report: pytest.TestReport) -> None:
        """A call report pytest's hooks carried: the first of each outcome stands in for the quiet ones after it."""
        self.stand_in.setdefault("xfailed" if hasattr(report, "wasxfail") else report.outcome, report)

    def _quiet_outcomes(self) -> frozenset:
        """The outcomes this run may count without pytest's per-item reporting: none under -v
        (a line per case), none the -r characters ask to list, none when a plugin other than
        the listeners hears reports (it gets every one), none when live logging is on."""
        config = self.config
        if config.get_verbosity() > 0 or config.getini("log_cli") or config.getoption("log_cli_level", None):
            return frozenset()
        for hook in ("pytest_runtest_logstart", "pytest_runtest_logreport", "pytest_runtest_logfinish"):
            if any(impl.plugin_name not in self.listeners for impl in getattr(config.hook, hook).get_hookimpls()):
                return frozenset()
        self.terminal = config.pluginmanager.get_plugin("terminalreporter")
        chars = getattr(self.terminal, "reportchars", "")
        if self.terminal is not None and not (isinstance(chars, str) and isinstance(getattr(self.terminal, "stats", None), dict)):
            return frozenset()  # not the terminal reporter this was written against
        lf = config.pluginmanager.get_plugin("lfplugin")
        if lf is not None:
            if not isinstance(getattr(lf, "lastfailed", None), dict):
                return frozenset()
            self.lastfailed = lf.lastfailed
            self.lastfailed_keys = {str(k): k for k in lf.lastfailed}  # node ids, as strings or NodeIds
        return frozenset(outcome for outcome, listed in QUIET.items() if not set(listed) & set(chars))

    def _count_quietly(self, item: pytest.Item, result: dict, outcome: str) -> None:
        """What pytest's reporting of this item would have done that anyone sees: the results log,
        the terminal's count (and the operator's line, as its log-start would write it), --lf's
        forgetting a case that no longer fails. junit.xml is written from the results at the end."""
        self.run.log.append(result)
        tr = self.terminal
        if tr is not None:
            if item.parent is not self.shown_group and tr.showfspath:
                tr.write_fspath_result(item.nodeid, "")
            self.shown_group = item.parent
            tr.stats[outcome].append(self.stand_in[outcome])
        if self.lastfailed_keys:
            key = self.lastfailed_keys.pop(item.nodeid, None)
            if key is not None:
                self.lastfailed.pop(key, None)

    def item_hook(self, item: pytest.Item):
        """The hooks for a case directory, looked up once: pytest never loads a conftest.py from
        inside the corpus (it does not collect those folders), so every case gets the same relay,
        and pytest's own lookup stats the folder each time (twice per case)."""
        if self.hook_relay is None:
            self.hook_relay = item.session.gethookproxy(item.path)
        return self.hook_relay


def lean_protocol(item) -> bool:
    """A case item's protocol, lean: a case has no fixtures, so no setup or teardown phase runs;
    its one call report, then the teardown report that closes its record (junitxml writes the
    test case then), go through pytest's own logreport hooks, as the default protocol's do.
    pytest's default costs about a millisecond a case in hooks; a run has tens of thousands."""
    ihook = item.ihook
    ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    start, began = time.time(), time.perf_counter()
    longrepr, wasxfail = None, None
    try:
        item.runtest()
        outcome = "passed"
    except (KeyboardInterrupt, pytest.exit.Exception):
        raise
    except pytest.xfail.Exception as e:
        outcome, wasxfail = "skipped", e.msg
        longrepr = (item.case.path, 0, f"XFailed: {e.msg}")
    except pytest.skip.Exception as e:
        outcome, longrepr = "skipped", (item.case.path, 0, f"Skipped: {e.msg}")
    except BaseException:
        outcome, longrepr = "failed", item.repr_failure(ExceptionInfo.from_current())
    stop, duration = time.time(), time.perf_counter() - began
    call = TestReport(item.nodeid, item.location, {}, outcome, longrepr, "call", [], duration,
                      start, stop, list(item.user_properties))
    if wasxfail is not None:
        call.wasxfail = wasxfail
    ihook.pytest_runtest_logreport(report=call)
    # junitxml writes a test case's properties from its teardown report: the harness's status
    # where it says more than pytest's outcome (warn is a pass to pytest; unsupported a skip)
    status = getattr(item, "status", PASS)
    props = [("status", status)] if status != PASS else []
    ihook.pytest_runtest_logreport(report=TestReport(item.nodeid, item.location, {}, "passed", None,
                                                     "teardown", [], 0.0, stop, stop, props))
    ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def new_item(cls, parent: pytest.Collector, case, root: str):
    """A case's item whose path is its operator's (the corpus folder): a pathlib.Path per case is
    most of what building 86,000 items costs. Its location, what pytest shows and records, names
    the case folder, relative to the rootdir (`root`, ending in a separator) where it lies inside it."""
    item = cls.from_parent(parent, name=case.name, path=parent.path)  # nodeid: Op::case
    where = case.path[len(root):] if case.path.startswith(root) else case.path
    item.__dict__["location"] = (where, None, case.name)
    return item


def plain_item(cls, parent: pytest.Collector, case, root: str):
    """new_item as pytest builds any item: its own path, its location pytest's to work out."""
    return cls.from_parent(parent, name=case.name, path=Path(case.path))


class JobFailed(Exception):
    """A job side_by_side ran in a forked copy failed; the message is its exception, 'Type: words'."""


def side_by_side(*jobs) -> None:
    """Run the jobs at once: each but the last in a forked copy of this process, the last here (a
    whole-corpus run's junit.xml and matrices take about half a second each, and the run has ended: the
    cores are free). One after the other where fork is not safe (not POSIX, or a thread running
    besides this one). The first job that failed raises here, with its own words."""
    forked = []
    if hasattr(os, "fork") and threading.active_count() == 1:
        for job in jobs[:-1]:
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the copy: do the job, say how it went, and leave without any clean-up
                os.close(read)
                code = 0
                try:
                    job()
                except BaseException as e:  # noqa: BLE001 - reported to the parent, word for word
                    os.write(write, f"{type(e).__name__}: {e}".encode("utf-8", "replace"))
                    code = 1
                os._exit(code)
            os.close(write)
            forked.append((pid, read))
        jobs = jobs[-1:]
    one_after_another(*jobs, forked=forked)


def one_after_another(*jobs, forked=()) -> None:
    """Run the jobs here, in turn (and collect what side_by_side forked); the first failure raises."""
    failure = None
    try:
        for job in jobs:
            job()
    except Exception as e:
        failure = e
    for pid, read in forked:
        with os.fdopen(read, "rb") as said:
            words = said.read().decode("utf-8", "replace")
        _, status = os.waitpid(pid, 0)
        if failure is None and (words or status):
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            failure = JobFailed(words or f"the process writing it {describe_exit(code)}")
    if failure is not None:
        raise failure
