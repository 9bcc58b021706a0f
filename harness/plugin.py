"""pytest plugin: every case directory is a test item; each result is recorded as it finishes."""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from onnx_conformance import harness
from onnx_conformance.harness import expectations as baseline
from onnx_conformance.harness import options
from onnx_conformance.harness import shard
from onnx_conformance.harness.corpus import Case, CorpusError, read_corpus
from onnx_conformance.harness.dispatch import Dispatch
from onnx_conformance.harness.executor import BackendUnavailable, Executor
from onnx_conformance.harness.expectations import ExpectationsError
from onnx_conformance.harness.fastpath import FastPath, JobFailed, lean_protocol, one_after_another, side_by_side
from onnx_conformance.harness.grading import Grader, failure_text
from onnx_conformance.harness.items import PLUGIN_NAME, PROPERTY, CaseItem, Corpus, collected_groups, group_of
from onnx_conformance.harness.junit import JUNIT, Testcase, write_junit
from onnx_conformance.harness.reports import terminal_summary, write_matrices
from onnx_conformance.harness.rerun import with_reruns
from onnx_conformance.harness.results import (RESULTS, RUN, ResultsLog, counts, new_result, now,
                             platform_info, read_json, report_dir_for, write_json)
from onnx_conformance.harness.statuses import CRASH, ERROR
from onnx_conformance.harness.verdict import one_line

VERDICT = pytest.StashKey["baseline.Verdict | None"]()
# Written only when a run ends; removed when one starts, so none outlives the run it describes.
STALE_REPORTS = ("matrix.json", "matrix.md", "matrix.html", JUNIT)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "ONNX backend conformance (see run-conformance --help)")
    options.add_to_pytest(group)


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("conformance_cases"):
        config.pluginmanager.register(Conformance(config), PLUGIN_NAME)


def _interrupt_on_sigterm():
    """SIGTERM (a CI job cancelled) stops the run as Ctrl-C does: every result so far kept,
    run.json marked incomplete, executors and workers shut down. Returns the old handler."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, signal.default_int_handler)


class Conformance:
    """Session state: the corpus, this process's executor, and (controller only) the results log."""

    def __init__(self, config: pytest.Config):
        self.config = config
        try:
            settings = self.settings = options.from_pytest(config)
        except options.OptionError as e:
            raise pytest.UsageError(str(e)) from None
        self.root = Path(settings.cases).resolve()
        self.backend = settings.backend
        self.options = settings.backend_option
        self.timeout = settings.timeout
        self.report_dir = Path(settings.report_dir) if settings.report_dir else report_dir_for(self.backend)
        self.expectations_path = settings.expectations
        # Under xdist only the controller records (as pytest's stepwise.py does).
        self.is_worker = hasattr(config, "workerinput")
        self.memory_limit = settings.memory_limit
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
        self.results: list[dict] = []
        self.verdict: baseline.Verdict | None = None
        self.warnings: list[str] = []
        self.reruns = settings.rerun_failures
        self.shard = settings.shard
        self.selected: set[str] | None = None  # this shard's cases; None = every case
        self.ops: set[str] = set(settings.op)  # only these operators' cases; empty = all
        self.workers = settings.workers
        self.dispatch: Dispatch | None = None
        # Grading against the baseline (harness/grading.py), its methods bound here: the hot path's lookups.
        self.grader = Grader(None, updating=settings.update_expectations, allow_fixes=settings.allow_fixes,
                             strict=settings.strict)
        self.grade = self.grader.grade
        self._listed_skip = self.grader.listed_skip
        self.started = time.time()
        # The shortcuts into pytest's internals and the interpreter (harness/fastpath.py), unless --plain-pytest.
        self.fast = None if settings.plain_pytest else FastPath(self, PLUGIN_NAME)
        if self.fast is not None:
            self.fast.gc_pause()

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
            update = self.settings.update_expectations
            try:
                self.expectations = {} if update and not path.exists() else baseline.load(path)
                self.grader.expectations = self.expectations
            except ExpectationsError as e:
                raise pytest.UsageError(str(e)) from None
        if self.is_worker:
            self.done = set(self.config.workerinput.get("conformance_done", ()))
            return
        if self.config.getoption("collectonly"):
            return  # listing cases runs nothing, so it must not start a fresh results file

        resume = self.settings.resume
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
        groups = collected_groups(self)
        return [case for group in sorted(groups) for case in groups[group]
                if case.name not in self.done and self._listed_skip(case) is None]

    def _select_shard(self) -> None:
        durations_path = self.settings.shard_durations
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
        then run the items: by pytest's own loop, or by the fast path's (FastPath.run_items)."""
        if self.fast is not None:
            self.fast.gc_run_starts()
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
        if self.fast is None:
            return None  # pytest's own loop
        return self.fast.run_items(session, lambda item: isinstance(item, CaseItem))

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

    def failure_text(self, result: dict) -> str:
        return failure_text(result, self.reproduce(result["case"]))

    def _write_junit(self) -> None:
        """junit.xml from every result of the run (a resumed run's earlier ones too)."""
        root = str(self.root) + os.sep
        rows = []
        named: dict[tuple, str] = {}  # each operator's classname, made once
        keyed = []
        for r in self.results:
            where = (r.get("op"), r.get("domain"))
            group = named.get(where) or named.setdefault(where, group_of(*where))
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

    def _new_executor(self) -> Executor:
        return Executor(self.backend, self.options, self.timeout, memory_limit=self.memory_limit)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem) -> bool | None:
        if self.fast is None or not isinstance(item, CaseItem):
            return None  # pytest's own protocol
        return lean_protocol(item)

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
        if report.when == "call" and self.fast is not None:
            self.fast.heard(report)
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
            status = CRASH if report.when == "???" else ERROR
            result = new_result(self.cases.get(name, {"name": name}), status=status,
                                stage=None, detail=one_line(lines[-1] if lines else "no detail"),
                                seconds=report.duration)
        else:
            return
        self.recorded.add(report.nodeid)
        self.log.append(result)

    # -- the end ---------------------------------------------------------------------------

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.fast is not None:
            self.fast.gc_run_ends()
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
            if self.settings.update_expectations:
                entries = baseline.updated(self.results, self.expectations or {}, set(self.cases))
                Path(self.expectations_path).write_text(baseline.dump(entries), encoding="utf-8")
                self.expectations = self.grader.expectations = entries
                self.warnings.append(
                    f"expectations: wrote {len(entries)} entries to {self.expectations_path}")
            self.verdict = baseline.evaluate(
                self.results, self.expectations, set(self.cases),
                allow_fixes=self.settings.allow_fixes, strict=self.settings.strict)
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
            (side_by_side if self.fast is not None else one_after_another)(
                lambda: write_matrices(self.results, self.run_info, self.report_dir), self._write_junit)
        except Exception as e:
            # results.jsonl is safe on disk, but a CI job must not go green without its reports.
            said = str(e) if isinstance(e, JobFailed) else f"{type(e).__name__}: {e}"
            self.warnings.append(f"reports: could not write junit.xml or the matrices: {said}")
            if self.verdict is not None and self.verdict.exit_code == baseline.OK:
                self.verdict.exit_code = session.exitstatus = baseline.SETUP_ERROR
                self.run_info["exit_code"] = baseline.SETUP_ERROR
        write_json(self.report_dir / RUN, self.run_info)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.fast is not None:
            self.fast.gc_restore()
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
