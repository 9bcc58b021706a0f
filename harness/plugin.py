"""pytest plugin: every case directory is a test item; each result is recorded as it finishes."""

from __future__ import annotations

import gc
import json
import os
import shlex
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from _pytest._code import ExceptionInfo
from _pytest.reports import TestReport

from onnx_conformance import harness
from onnx_conformance.harness import expectations as baseline
from onnx_conformance.harness import safety
from onnx_conformance.harness import shard
from onnx_conformance.harness.corpus import Case, CorpusError, read_corpus
from onnx_conformance.harness.dispatch import Dispatch
from onnx_conformance.harness.executor import BackendUnavailable, Executor, describe_exit, one_line
from onnx_conformance.harness.expectations import ExpectationsError
from onnx_conformance.harness.junit import JUNIT, Testcase, write_junit
from onnx_conformance.harness.reports import terminal_summary, write_matrices
from onnx_conformance.harness.rerun import with_reruns
from onnx_conformance.harness.results import (RESULTS, RUN, ResultsLog, counts, new_result, now,
                             platform_info, read_json, report_dir_for, write_json)

PLUGIN_NAME = "conformance"
# The user_property that carries a result from an xdist worker to the controller (junit.xml,
# written from the results, carries a case's status only: harness/junit.py).
PROPERTY = "conformance"
# What the controller cannot rebuild from its own copy of the corpus, so the only fields carried.
CARRIED = ("status", "stage", "detail", "max_abs_err", "max_rel_err", "max_ulp", "mismatches",
           "first_bad_index", "seconds")
VERDICT = pytest.StashKey["baseline.Verdict | None"]()
# Written only when a run ends; removed when one starts, so none outlives the run it describes.
STALE_REPORTS = ("matrix.json", "matrix.md", "matrix.html", JUNIT)
# The outcomes pytest only counts unless asked to show them (the -r characters that list each one):
# a case with one of them skips pytest's per-item reporting (Conformance.pytest_runtestloop).
QUIET = {"passed": "pP", "skipped": "s", "xfailed": "x"}
# The plugins that hear every item's report; for a quiet outcome the run does their part itself
# (counts it for the terminal's summary, drops it from --lf's failures). Any other listener (a
# --junitxml of the user's, a reporting plugin) gets every report, as pytest sends them.
LISTENERS = frozenset({"terminalreporter", "lfplugin", "session", "logging-plugin", PLUGIN_NAME})


def pytest_addoption(parser: pytest.Parser) -> None:
    # Prefixed so the plugin never collides with another plugin's --timeout or --backend.
    group = parser.getgroup("conformance", "ONNX backend conformance (see run-conformance --help)")
    group.addoption("--conformance-cases", metavar="DIR",
                    help="corpus directory; any folder below it holding model.onnx is a case")
    group.addoption("--conformance-backend", default="onnxruntime", metavar="NAME")
    group.addoption("--conformance-backend-option", action="append", default=[],
                    metavar="KEY=VALUE")
    group.addoption("--conformance-report-dir", metavar="DIR")
    group.addoption("--conformance-timeout", type=float, default=60.0, metavar="SECONDS")
    group.addoption("--conformance-expectations", metavar="FILE")
    group.addoption("--conformance-update-expectations", action="store_true")
    group.addoption("--conformance-allow-fixes", action="store_true")
    group.addoption("--conformance-strict", action="store_true")
    group.addoption("--conformance-resume", action="store_true")
    group.addoption("--conformance-memory-limit", default="4G", metavar="SIZE")
    group.addoption("--conformance-op", action="append", default=[], metavar="NAME")
    group.addoption("--conformance-shard", metavar="K/N")
    group.addoption("--conformance-shard-durations", metavar="RESULTS_JSONL")
    group.addoption("--conformance-rerun-failures", type=int, default=0, metavar="N")
    group.addoption("--conformance-workers", default="1", metavar="N")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("conformance_cases"):
        config.pluginmanager.register(Conformance(config), PLUGIN_NAME)


def _interrupt_on_sigterm():
    """SIGTERM (a CI job cancelled) stops the run as Ctrl-C does: every result so far kept,
    run.json marked incomplete, executors and workers shut down. Returns the old handler."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, signal.default_int_handler)


def parse_backend_options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise pytest.UsageError(f"--backend-option wants KEY=VALUE, got {pair!r}")
        options[key] = value
    return options


def parse_workers(text: str) -> int:
    """-n: a positive number of executor processes, or 'auto' for one per CPU core."""
    if text == "auto":
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 0 or str(n) != text.strip():
        raise pytest.UsageError(f"-n wants a number of executor processes or 'auto', got {text!r}")
    return max(1, n)  # 0, as xdist spells "no workers": the one executor


class CaseFailed(Exception):
    def __init__(self, result: dict):
        super().__init__(result.get("detail"))
        self.result = result


class Conformance:
    """Session state: the corpus, this process's executor, and (controller only) the results log."""

    def __init__(self, config: pytest.Config):
        self.config = config
        opt = config.getoption
        self.root = Path(opt("conformance_cases")).resolve()
        self.backend = opt("conformance_backend")
        self.options = parse_backend_options(opt("conformance_backend_option"))
        self.timeout = opt("conformance_timeout")
        if not self.timeout > 0:
            raise pytest.UsageError(f"--timeout must be positive, got {self.timeout:g}")
        report_dir = opt("conformance_report_dir")
        self.report_dir = Path(report_dir) if report_dir else report_dir_for(self.backend)
        self.expectations_path = opt("conformance_expectations")
        if opt("conformance_update_expectations") and not self.expectations_path:
            raise pytest.UsageError("--update-expectations needs --expectations FILE")
        # Under xdist only the controller records (as pytest's stepwise.py does).
        self.is_worker = hasattr(config, "workerinput")
        try:
            self.memory_limit = safety.parse_size(opt("conformance_memory_limit"))
        except ValueError as e:
            raise pytest.UsageError(f"--memory-limit: {e}") from None
        self._sigterm = None if self.is_worker else _interrupt_on_sigterm()
        self.cases: dict[str, Case] = {}
        self.expectations: dict[str, baseline.Expectation] | None = None
        self.executor: Executor | None = None
        self.launched: list[Executor] = []  # started at sessionstart, before the corpus is read
        self.log: ResultsLog | None = None
        self.run_info: dict = {}
        self.done: set[str] = set()  # cases an earlier, interrupted run already recorded
        self.recorded: set[str] = set()
        self.answered: dict[str, dict] = {}  # node id -> result, from runtest to its call report
        self.item_hook = None  # the hook relay every case item uses (CaseItem.ihook)
        self.results: list[dict] = []
        self.verdict: baseline.Verdict | None = None
        self.warnings: list[str] = []
        self.reruns = opt("conformance_rerun_failures") or 0
        if self.reruns < 0:
            raise pytest.UsageError(f"--rerun-failures must be 0 or more, got {self.reruns}")
        try:
            self.shard = shard.parse(opt("conformance_shard")) if opt("conformance_shard") else None
        except shard.ShardError as e:
            raise pytest.UsageError(str(e)) from None
        self.selected: set[str] | None = None  # this shard's cases; None = every case
        self.ops: set[str] = set(opt("conformance_op") or ())  # only these operators' cases; empty = all
        self.workers = parse_workers(opt("conformance_workers"))
        self.dispatch: Dispatch | None = None
        # The lean reporting of quiet outcomes (pytest_runtestloop): the terminal reporter, --lf's
        # failures, the operator whose line the terminal shows, and a report standing in for each
        # quiet outcome in the terminal's counts (the first case with that outcome, reported in full).
        self.terminal = None
        self.lastfailed: dict = {}
        self.lastfailed_keys: dict = {}
        self.shown_group = None
        self.stand_in: dict[str, pytest.TestReport] = {}
        self.accepted: frozenset | None = None  # statuses a case with no baseline entry may have
        self.updating = opt("conformance_update_expectations")  # grade() reads these per case
        self.allow_fixes = opt("conformance_allow_fixes")
        self.started = time.time()
        # No automatic garbage collection while the corpus is read and pytest builds its items: the
        # heap only grows then (millions of objects), and each full collection walks all of it
        # again (a dozen of them, 2.7 s of a whole-corpus run's 5 s before its first item, and the
        # work-ahead thread waiting on the lock all the while). pytest_runtestloop freezes what
        # was built and turns collection back on; pytest_unconfigure leaves it as it found it.
        self.gc_was_enabled = gc.isenabled()
        self.gc_thresholds = gc.get_threshold()
        gc.disable()

    # -- session ---------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)  # before xdist starts workers, so a bad backend stops early
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # The executors load the backend while the corpus is read (the first one's handshake says
        # whether the backend loads at all).
        if not self.is_worker and not self.config.getoption("collectonly"):
            count = 1 if self.config.pluginmanager.hasplugin("dsession") else self.workers
            self.launched = [self._new_executor() for _ in range(count)]
            try:
                for executor in self.launched:
                    executor.launch()
            except BackendUnavailable as e:
                self._close_launched()
                raise pytest.UsageError(str(e)) from None
        try:
            self._sessionstart()
        except BaseException:
            self._close_launched()
            raise

    def _close_launched(self) -> None:
        for executor in self.launched:
            executor.close()
        self.launched = []

    def _sessionstart(self) -> None:
        try:
            corpus = read_corpus(self.root)
            self.cases = {c.name: c for c in corpus.cases}
        except CorpusError as e:
            raise pytest.UsageError(str(e)) from None
        if self.shard is not None:
            self._select_shard()
        unknown = sorted(self.ops - {c.op for c in self.cases.values()})
        if unknown:
            raise pytest.UsageError(f"--op {unknown[0]}: no case of that operator in {self.root}")
        if self.expectations_path:
            path = Path(self.expectations_path)
            update = self.config.getoption("conformance_update_expectations")
            try:
                self.expectations = {} if update and not path.exists() else baseline.load(path)
            except ExpectationsError as e:
                raise pytest.UsageError(str(e)) from None
        if self.is_worker:
            self.done = set(self.config.workerinput.get("conformance_done", ()))
            return
        if self.config.getoption("collectonly"):
            return  # listing cases runs nothing, so it must not start a fresh results file

        resume = self.config.getoption("conformance_resume")
        index_hash = corpus.index_sha256
        previous = read_json(self.report_dir / RUN) if resume else None
        if previous:
            self._check_resumable(previous, index_hash)
        self.executor = self.launched[0]
        try:
            info = self.executor.start()
        except BackendUnavailable as e:
            raise pytest.UsageError(str(e)) from None
        self.report_dir.mkdir(parents=True, exist_ok=True)
        for stale in STALE_REPORTS:  # a killed run must not sit beside an older run's reports
            (self.report_dir / stale).unlink(missing_ok=True)
        self.log = ResultsLog(self.report_dir / RESULTS, resume=resume)
        self.done = {r["case"] for r in self.log.prior}
        if self.config.pluginmanager.hasplugin("dsession"):
            # xdist workers run the cases with executors of their own; this one only proved
            # that the backend loads.
            self._close_launched()
            self.executor = None
        started = now()
        self.run_info = {
            "backend": {"requested": self.backend, "name": info["name"],
                        "version": info["version"], "options": self.options},
            "harness_version": harness.__version__,
            "corpus": {"path": shown(self.root), "index_sha256": index_hash,
                       "cases": len(self.cases)},
            "platform": platform_info(),
            "python": sys.version.split()[0],
            "started": (previous or {}).get("started", started),
            "resumed": [*(previous or {}).get("resumed", []), started] if previous else [],
            "finished": None,
            "complete": False,
            "timeout_seconds": self.timeout,
            "memory_limit_bytes": self.memory_limit,
            "expectations": shown(self.expectations_path) if self.expectations_path else None,
            "counts": counts(self.log.prior),
            "exit_code": None,
            "argv": [shown(a) for a in self.config.invocation_params.args],
            "rerun_failures": self.reruns,
        }
        if self.selected is not None:
            # What merge-reports checks: every shard split the same corpus, each case once.
            k, n = self.shard
            self.run_info["shard"] = {"index": k, "total": n,
                                      "corpus_names_sha256": shard.names_sha256(self.cases),
                                      "corpus_cases": sorted(self.cases),
                                      "cases": sorted(self.selected)}
        write_json(self.report_dir / RUN, self.run_info)
        plan = self._early_plan()
        if plan is not None:
            # The executors start on the cases while pytest builds its items, fed from a thread
            # until pytest_runtestloop hands them the run's own list (should it differ).
            self.dispatch = Dispatch(plan, self.workers, self._new_executor, spare=self.launched,
                                     reruns=self.reruns, idle=self.log.idle)
            self.dispatch.work_ahead()
            self.launched, self.executor = [], None

    def _early_plan(self) -> list[Case] | None:
        """The cases pytest will run, in its order, as collection will yield them; None when the
        command line may select or order them otherwise (-k, -m, --lf, --ff, --sw, --deselect, node
        ids), or under xdist: then the executors start once pytest has its items."""
        config, option = self.config, self.config.option
        if config.pluginmanager.hasplugin("dsession") or any(getattr(option, name, None) for name in (
                "keyword", "markexpr", "lf", "failedfirst", "newfirst", "stepwise", "stepwise_skip", "deselect")):
            return None
        if any(Path(arg.split("::")[0]).resolve() != self.root for arg in config.args):
            return None
        groups = _collected_groups(self)
        return [case for group in sorted(groups) for case in groups[group]
                if case.name not in self.done and self._listed_skip(case) is None]

    def _select_shard(self) -> None:
        durations_path = self.config.getoption("conformance_shard_durations")
        try:
            durations = shard.read_durations(durations_path) if durations_path else None
        except shard.ShardError as e:
            raise pytest.UsageError(str(e)) from None
        k, n = self.shard
        self.selected = shard.select({c.name: c.path for c in self.cases.values()}, k, n, durations)

    def _check_resumable(self, previous: dict, index_hash: str | None) -> None:
        was = previous.get("backend", {}).get("requested")
        if was != self.backend:
            raise pytest.UsageError(f"cannot --resume: {self.report_dir} holds a run of backend "
                                    f"{was!r}, not {self.backend!r}")
        was_shard = previous.get("shard") or {}
        if (was_shard.get("index"), was_shard.get("total")) != (self.shard or (None, None)):
            raise pytest.UsageError(f"cannot --resume: {self.report_dir} holds a run of a "
                                    f"different --shard; start a fresh run")
        old_hash = previous.get("corpus", {}).get("index_sha256")
        if old_hash != index_hash:
            raise pytest.UsageError(
                f"cannot --resume: the corpus index changed since the run in {self.report_dir} "
                f"({old_hash} != {index_hash}); start a fresh run")

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:
        # Workers must collect the same items, so they are told, not left to read a file the
        # controller is appending to, which cases an interrupted run already finished.
        node.workerinput["conformance_done"] = sorted(self.done)

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        backend = self.run_info.get("backend", {"name": self.backend, "version": "(not loaded)"})
        return [
            f"conformance: backend {backend.get('name')} {backend.get('version')}, "
            f"harness {harness.__version__}, timeout {self.timeout:g} s, "
            f"{self.workers} executor{'s' if self.workers != 1 else ''}",
            f"conformance: {len(self.cases)} cases in {self.root}"
            + (f", {len(self.done)} already recorded (--resume)" if self.done else ""),
            f"conformance: results -> {self.report_dir / RESULTS}",
        ]

    # -- collection ------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_collect_directory(self, path: Path, parent: pytest.Collector):
        if path == self.root:
            return Corpus.from_parent(parent, path=path)
        return None

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list) -> None:
        if not self.done:
            return
        keep, drop = [], []
        for item in items:
            (drop if isinstance(item, CaseItem) and item.name in self.done else keep).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    # -- running ---------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool | None:
        """Hand this process's cases, in run order, to the executors before the first item runs;
        then run the items as pytest's own loop does, except that a case whose outcome pytest would
        only count (QUIET) is counted here, without pytest's per-item reporting."""
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
        if self.is_worker or self.config.pluginmanager.hasplugin("dsession") \
                or self.config.getoption("collectonly"):
            return None  # under xdist each worker runs its items one by one, as they are sent
        if session.testsfailed and not self.config.option.continue_on_collection_errors:
            return None  # pytest's own loop stops the run, and says why
        cases = [item.case for item in session.items
                 if isinstance(item, CaseItem) and self._listed_skip(item.case) is None]
        if self.dispatch is not None:  # planned at sessionstart: now the run's own list and order
            self.dispatch.stop_working_ahead()
            self.dispatch.replan(cases)
        else:
            # the one that proved the backend loads, and the others launched beside it
            started = self.launched or [self.executor]
            self.launched, self.executor = [], None
            self.dispatch = Dispatch(cases, self.workers, self._new_executor, spare=started,
                                     reruns=self.reruns, idle=self.log.idle if self.log else None)
        quiet = self._quiet_outcomes()
        items = session.items
        for i, item in enumerate(items):
            if quiet and isinstance(item, CaseItem):
                result = self.execute(item.case)
                outcome = self.grade(result)[0]
                if outcome in quiet and outcome in self.stand_in:
                    self._count_quietly(item, result, outcome)
                    continue
                item.ran = result  # graded again, and reported, by pytest's protocol below
            nextitem = items[i + 1] if i + 1 < len(items) else None
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            if session.shouldfail:
                raise session.Failed(session.shouldfail)
            if session.shouldstop:
                raise session.Interrupted(session.shouldstop)
        return True

    def _quiet_outcomes(self) -> frozenset:
        """The outcomes this run may count without pytest's per-item reporting: none under -v
        (a line per case), none the -r characters ask to list, none when a plugin other than
        LISTENERS hears reports (it gets every one), none when live logging is on."""
        config = self.config
        if config.get_verbosity() > 0 or config.getini("log_cli") or config.getoption("log_cli_level", None):
            return frozenset()
        for hook in ("pytest_runtest_logstart", "pytest_runtest_logreport", "pytest_runtest_logfinish"):
            if any(impl.plugin_name not in LISTENERS for impl in getattr(config.hook, hook).get_hookimpls()):
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

    def _count_quietly(self, item: CaseItem, result: dict, outcome: str) -> None:
        """What pytest's reporting of this item would have done that anyone sees: the results log,
        the terminal's count (and the operator's line, as its log-start would write it), --lf's
        forgetting a case that no longer fails. junit.xml is written from the results at the end."""
        self.log.append(result)
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

    def execute(self, case: Case) -> dict:
        """The case's result: from the executors working ahead, else run here and now (under xdist)."""
        skipped = self._listed_skip(case)
        if skipped is not None:
            return skipped
        result = self.dispatch.result(case) if self.dispatch is not None else None
        if result is None:
            if self.executor is None:
                self.executor = self._new_executor()
            executor = self.executor
            result = with_reruns(executor.run, case, executor.run(case), self.reruns)
        detail = result.get("detail")
        if detail and case.path in detail:
            # A backend quoting the model's path names no checkout in a report. Only the case's
            # own path is shortened: a safety reason quoting a location outside it stays verbatim.
            result["detail"] = detail.replace(case.path, shown(case.path))
        return result

    def grade(self, result: dict) -> tuple[str, str | None, dict | None]:
        """pytest's outcome for a case's result, as the gate sees it: ("passed", None, None);
        ("skipped" or "xfailed", the reason, None); or ("failed", None, the result to report).
        A status its baseline entry expects is an expected failure (no FAILED block); a pass the
        baseline does not expect fails as a strict XPASS unless --allow-fixes; only regressions fail."""
        status = result["status"]
        entry = (self.expectations or {}).get(result["case"])
        # --update-expectations rewrites the baseline from this run: every outcome is the expected one.
        expected = self.updating or (entry is not None and (status == entry.status or entry.status == "flaky"))
        if not expected and entry is not None and baseline.is_fix(status, entry):
            if self.allow_fixes:
                return "passed", None, None
            what = "passed" if status == "pass" else f"{status} ({result.get('detail') or ''})"
            return "failed", None, dict(result, detail=(
                f"XPASS(strict): {what}, but the baseline expects {entry.status} ({entry.reason}); "
                f"--allow-fixes accepts it, --update-expectations "
                f"{'removes the entry' if status == 'pass' else 'records it'}"))
        if self.accepted is None:
            self.accepted = baseline.accepted(self.expectations, self.config.getoption("conformance_strict"))
        # a pass, or a warn the run accepts, is a pass to pytest (JUnit's status property keeps the warn)
        if status == "pass" or (status == "warn" and entry is None and status in self.accepted):
            return "passed", None, None
        if status in ("unsupported", "skip") and (expected or (entry is None and status in self.accepted)):
            return "skipped", f"{status}: {result.get('detail') or ''}", None
        if expected:
            why = entry.reason if entry is not None and entry.reason else result.get("detail") or ""
            return "xfailed", f"{status}, as the baseline expects: {why}", None
        return "failed", None, result

    def failure_text(self, result: dict) -> str:
        """A regression as the terminal and junit.xml show it: what, then how to run it again."""
        version = result.get("since_version") or result.get("opset")
        op = result.get("op")
        where = " ".join(str(x) for x in (f"{op}-{version}" if version else op, result.get("dtype"),
                                          result.get("example")) if x)
        return f"{where}: {result['status']}: {result.get('detail')}\nreproduce: {self.reproduce(result['case'])}"

    def _write_junit(self) -> None:
        """junit.xml from every result of the run (a resumed run's earlier ones too)."""
        root = str(self.root) + os.sep
        rows = []
        named: dict[tuple, str] = {}  # each operator's classname, made once
        keyed = []
        for r in self.results:
            where = (r.get("op"), r.get("domain"))
            group = named.get(where) or named.setdefault(where, _group(*where))
            keyed.append((group, r["case"], r))
        keyed.sort(key=lambda k: (k[0], k[1]))
        for group, _, r in keyed:
            outcome, message, failure = self.grade(r)
            text = None
            if outcome == "failed":
                text = self.failure_text(failure)
                message = text.splitlines()[0]
            elif outcome == "skipped":
                case = self.cases.get(r["case"])
                path = case.path if case is not None else root + r["case"]
                text = f"{path}:0: {message}"
            rows.append(Testcase(group, r["case"], r.get("seconds"), r["status"], outcome, message, text))
        write_junit(self.report_dir / JUNIT, rows, self.started, time.time() - self.started)

    def _listed_skip(self, case: Case) -> dict | None:
        entry = (self.expectations or {}).get(case.name)
        if entry is not None and entry.status == "skip":
            return new_result(case, status="skip", seconds=0.0,
                              detail=entry.reason or "listed as skip in the expectations")
        return None

    def _new_executor(self) -> Executor:
        return Executor(self.backend, self.options, self.timeout, memory_limit=self.memory_limit)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem) -> bool | None:
        """A case item's protocol, lean: a case has no fixtures, so no setup or teardown phase runs;
        its one call report, then the teardown report that closes its record (junitxml writes the
        test case then), go through pytest's own logreport hooks, as the default protocol's do.
        pytest's default costs about a millisecond a case in hooks; a run has tens of thousands."""
        if not isinstance(item, CaseItem):
            return None
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
        status = getattr(item, "status", "pass")
        props = [("status", status)] if status != "pass" else []
        ihook.pytest_runtest_logreport(report=TestReport(item.nodeid, item.location, {}, "passed", None,
                                                         "teardown", [], 0.0, stop, stop, props))
        ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport, config: pytest.Config):
        """No progress letter for what the gate accepts: tens of thousands of dots would bury the few
        letters that matter. Each operator's line remains; an F still marks a regression; -v shows all."""
        if config.get_verbosity() > 0 or report.when != "call":
            return None
        if report.passed:
            return "passed", "", "PASSED"
        if report.skipped:
            return ("xfailed", "", "XFAIL") if hasattr(report, "wasxfail") else ("skipped", "", "SKIPPED")
        return None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":  # the first of each outcome stands in for the quiet ones after it
            self.stand_in.setdefault("xfailed" if hasattr(report, "wasxfail") else report.outcome, report)
        if self.log is None or report.nodeid in self.recorded:
            return
        name = report.nodeid.rsplit("::", 1)[-1]
        kept = self.answered.pop(report.nodeid, None) if report.when == "call" else None
        carried = None if kept is not None else \
            next((v for k, v in report.user_properties if k == PROPERTY), None)
        if kept is not None:
            result = kept
        elif carried is not None and report.when == "call":
            result = new_result(self.cases.get(name, {"name": name}), **json.loads(carried))
        elif report.failed and report.when != "teardown":
            # No result came back: the item broke outside the executor (an xdist worker died,
            # a harness bug in setup). Record it all the same, so no case silently vanishes.
            lines = [ln for ln in (report.longreprtext or "").splitlines() if ln.strip()]
            status = "crash" if report.when == "???" else "error"
            result = new_result(self.cases.get(name, {"name": name}), status=status,
                                stage=None, detail=one_line(lines[-1] if lines else "no detail"),
                                seconds=report.duration)
        else:
            return
        self.recorded.add(report.nodeid)
        self.log.append(result)

    # -- the end ---------------------------------------------------------------------------

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        # No collection while the reports below only build, and none of what the run built in
        # the collections pytest forces as it shuts down (~0.4 s): it is frozen, results and all
        # (pytest_unconfigure turns collection back on; where cli.main unfreezes, what the run
        # left for a full collection is found then).
        gc.disable()
        gc.set_threshold(*self.gc_thresholds)
        gc.freeze()
        if self.dispatch is not None:
            self.dispatch.close()
            self.dispatch = None
        if self.executor is not None:
            self.executor.close()
            self.executor = None
        self._close_launched()
        if self.log is None:
            return
        self.results = self.log.all()
        self.log.close()
        finished = exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED,
                                  pytest.ExitCode.NO_TESTS_COLLECTED)
        if finished:
            if self.config.getoption("conformance_update_expectations"):
                entries = baseline.updated(self.results, self.expectations or {}, set(self.cases))
                Path(self.expectations_path).write_text(baseline.dump(entries), encoding="utf-8")
                self.expectations = entries
                self.warnings.append(
                    f"expectations: wrote {len(entries)} entries to {self.expectations_path}")
            self.verdict = baseline.evaluate(
                self.results, self.expectations, set(self.cases),
                allow_fixes=self.config.getoption("conformance_allow_fixes"),
                strict=self.config.getoption("conformance_strict"))
            session.exitstatus = self.verdict.exit_code
        self.config.stash[VERDICT] = self.verdict
        self.run_info.update(finished=now(), complete=finished, counts=counts(self.results),
                             exit_code=self.verdict.exit_code if self.verdict else None)
        if self.verdict is not None:
            self.run_info["gate"] = {"regressions": self.verdict.regressions,
                                     "fixes": self.verdict.fixes, "stale": self.verdict.stale}
        try:
            # junit.xml here, the matrices in the copy: the one that takes longer runs where no
            # page of what it reads is copied on its first write.
            _side_by_side(lambda: write_matrices(self.results, self.run_info, self.report_dir), self._write_junit)
        except Exception as e:
            # results.jsonl is safe on disk, but a CI job must not go green without its reports.
            said = str(e) if isinstance(e, JobFailed) else f"{type(e).__name__}: {e}"
            self.warnings.append(f"reports: could not write junit.xml or the matrices: {said}")
            if self.verdict is not None and self.verdict.exit_code == baseline.OK:
                self.verdict.exit_code = session.exitstatus = baseline.SETUP_ERROR
                self.run_info["exit_code"] = baseline.SETUP_ERROR
        write_json(self.report_dir / RUN, self.run_info)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        gc.set_threshold(*self.gc_thresholds)
        if self.gc_was_enabled:
            gc.enable()
        if self._sigterm is not None:
            signal.signal(signal.SIGTERM, self._sigterm)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.log is None:
            return
        tr = terminalreporter
        tr.section("conformance")
        for line in terminal_summary(self.results):
            tr.write_line(line)
        for line in self.warnings:
            tr.write_line(line, yellow=True)
        if self.verdict is not None:
            for line in self.verdict.lines():
                tr.write_line(line, red=not line.startswith("STALE"),
                              yellow=line.startswith("STALE"))
            word = "OK" if self.verdict.exit_code == baseline.OK else "FAILED"
            tr.write_line(f"conformance gate: {word} (exit code {self.verdict.exit_code}); "
                          f"results in {self.report_dir}", bold=True)
        else:
            tr.write_line(f"conformance: run did not finish; resume with --resume "
                          f"(results so far in {self.report_dir / RESULTS})", red=True)

    def reproduce(self, name: str) -> str:
        words = ["run-conformance", "--backend", self.backend, "--cases", str(self.root)]
        for key, value in self.options.items():
            words += ["--backend-option", f"{key}={value}"]
        words += ["-k", name]
        return " ".join(shlex.quote(w) for w in words)


class Corpus(pytest.Directory):
    """The --cases directory: yields one collector per operator, so progress reads per operator."""

    def collect(self):
        state = self.config.pluginmanager.get_plugin(PLUGIN_NAME)
        groups = _collected_groups(state)
        for op in sorted(groups):
            group = OpGroup.from_parent(self, name=op, nodeid=op)
            group.cases = groups[op]
            yield group


class OpGroup(pytest.Collector):
    cases: list[Case]

    def collect(self):
        root = str(self.config.rootpath) + os.sep
        for case in self.cases:
            # The item's path is its operator's (the corpus folder): a pathlib.Path per case is
            # most of what building 86,000 items costs. Its location, what pytest shows and
            # records, names the case folder, relative to the rootdir where it lies inside it.
            item = CaseItem.from_parent(self, name=case.name, path=self.path)  # nodeid: Op::case
            item.case = case
            where = case.path[len(root):] if case.path.startswith(root) else case.path
            item.__dict__["location"] = (where, None, case.name)
            # `-k bfloat16` or `-k opset13` selects by fact even where the case name omits it.
            item.extra_keyword_matches.update(
                str(v) for v in (case.dtype, case.opset and f"opset{case.opset}", case.kind) if v)
            yield item


class CaseItem(pytest.Item):
    case: Case

    @property
    def ihook(self):
        """The hooks for a case directory, looked up once: pytest never loads a conftest.py from
        inside the corpus (it does not collect those folders), so every case gets the same relay,
        and pytest's own lookup stats the folder each time (twice per case)."""
        state = self.config.pluginmanager.get_plugin(PLUGIN_NAME)
        if state.item_hook is None:
            state.item_hook = self.session.gethookproxy(self.path)
        return state.item_hook

    def runtest(self) -> None:
        state = self.config.pluginmanager.get_plugin(PLUGIN_NAME)
        # run already when the run's own loop saw that its outcome is one pytest reports in full
        result = self.__dict__.pop("ran", None) or state.execute(self.case)
        if not state.is_worker:
            state.answered[self.nodeid] = result
        carried = {k: result[k] for k in CARRIED if result.get(k) is not None}
        self.user_properties.append((PROPERTY, json.dumps(carried, separators=(",", ":"))))
        self.status = result["status"]
        outcome, reason, failure = state.grade(result)
        if outcome == "failed":
            raise CaseFailed(failure)
        if outcome == "skipped":
            pytest.skip(reason)
        if outcome == "xfailed":
            pytest.xfail(reason)

    def repr_failure(self, excinfo, style=None):
        if excinfo.errisinstance(pytest.xfail.Exception):
            # An expected failure shows only its reason: pytest would otherwise render (and parse
            # the source of) every frame of a traceback nobody reads, ~0.2 s per xfailed case.
            return str(excinfo.value)
        if not isinstance(excinfo.value, CaseFailed):
            return super().repr_failure(excinfo, style)
        return self.config.pluginmanager.get_plugin(PLUGIN_NAME).failure_text(excinfo.value.result)

    def reportinfo(self):
        return Path(self.case.path), None, self.name


class JobFailed(Exception):
    """A job _side_by_side ran in a forked copy failed; the message is its exception, 'Type: words'."""


def _side_by_side(*jobs) -> None:
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


def _collected_groups(state: Conformance) -> dict[str, list[Case]]:
    """This run's cases by the collector they sit in (this shard's, these operators'), in corpus order."""
    groups: dict[str, list[Case]] = {}
    for case in state.cases.values():
        if state.selected is not None and case.name not in state.selected:
            continue  # another shard's case
        if state.ops and case.op not in state.ops:
            continue
        groups.setdefault(_group(case.op, case.domain), []).append(case)
    return groups


def _group(op: str | None, domain: str | None) -> str:
    """The collector a case's item sits in, and its junit classname: the operator, domain-qualified
    outside ai.onnx."""
    op = op or "unknown"
    return f"{domain}.{op}" if domain else op


def shown(path) -> str:
    """A path as the stamp records it: relative to the working directory when inside it, so a
    committed report says `cases`, not the checkout's absolute location."""
    text = str(path)
    cwd = os.getcwd()
    if text == cwd:
        return "."
    if text.startswith(cwd + os.sep):
        return text[len(cwd) + 1:]
    return text.replace(cwd + os.sep, "")
