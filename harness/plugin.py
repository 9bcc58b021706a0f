"""pytest plugin: pytest's hooks wired to the run's parts; every case directory is a test item, each result recorded as it finishes.

The parts: items.py (the corpus as collectors and items), run.py (the run's lifecycle: corpus, shard, resume,
executors, run.json, what the run leaves at its end), grading.py (each result's pytest outcome against the
baseline), fastpath.py (every shortcut into pytest's internals, none under --plain-pytest). Here: the session's
state between hooks, what pytest's reports say back (results.jsonl), and the terminal's summary.
"""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path

import pytest

from onnx_conformance import harness
from onnx_conformance.harness import expectations as baseline
from onnx_conformance.harness import commands, options
from onnx_conformance.harness.fastpath import FastPath, lean_protocol, one_after_another, side_by_side
from onnx_conformance.harness.items import PLUGIN_NAME, PROPERTY, CaseItem, Corpus
from onnx_conformance.harness.reports import gate_advice, terminal_summary
from onnx_conformance.harness.results import RESULTS, new_result
from onnx_conformance.harness.run import Run, SetupError, shown
from onnx_conformance.harness.statuses import CRASH, ERROR
from onnx_conformance.harness.verdict import one_line

VERDICT = pytest.StashKey["baseline.Verdict | None"]()
# The command-line options that may select or order the items otherwise than collection does.
SELECTING = ("keyword", "markexpr", "lf", "failedfirst", "newfirst", "stepwise", "stepwise_skip", "deselect")
# Those of them that select, as run.json's `selection` names them.
PICKING = {"keyword": "keyword", "markexpr": "markexpr", "lf": "last_failed", "deselect": "deselect"}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "ONNX backend conformance (see run-conformance --help)")
    options.add_to_pytest(group)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """--conformance-list-backends and --conformance-check-adapter: a command instead of a run."""
    if not commands.wanted(lambda dest: config.getoption("conformance_" + dest)):
        return None
    try:
        settings = options.from_pytest(config)
    except options.OptionError as e:
        raise pytest.UsageError(str(e)) from None
    return commands.run(settings)


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
    """Session state between pytest's hooks: the run (harness/run.py), the fast path, and which reports were recorded."""

    def __init__(self, config: pytest.Config):
        self.config = config
        try:
            settings = options.from_pytest(config)
        except options.OptionError as e:
            raise pytest.UsageError(str(e)) from None
        # Under xdist only the controller records (as pytest's stepwise.py does).
        self.is_worker = hasattr(config, "workerinput")
        self.run = run = Run(settings, is_worker=self.is_worker)
        # What the items (harness/items.py) and the fast path call per case, bound once: the hot path's lookups.
        self.execute = run.execute
        self.grade = run.grade
        self.failure_text = run.failure_text
        self._sigterm = None if self.is_worker else _interrupt_on_sigterm()
        self.recorded: set[str] = set()
        self.folded = False  # a first run's FAILED blocks and lines left out of the terminal (_fold_failures)
        self.answered: dict[str, dict] = {}  # node id -> result, from runtest to its call report
        # The shortcuts into pytest's internals and the interpreter (harness/fastpath.py), unless --plain-pytest.
        self.fast = None if settings.plain_pytest else FastPath(run, config, PLUGIN_NAME)
        if self.fast is not None:
            self.fast.gc_pause()

    def _xdist(self) -> bool:
        return self.config.pluginmanager.hasplugin("dsession")

    # -- session ---------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)  # before xdist starts workers, so a bad backend stops early
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        config = self.config
        try:
            self.run.start(listing=config.getoption("collectonly"), xdist=self._xdist(),
                           plan_early=self._in_collection_order(),
                           told_done=config.workerinput.get("conformance_done", ()) if self.is_worker else (),
                           argv=config.invocation_params.args, picked=self._picked())
        except SetupError as e:
            raise pytest.UsageError(str(e)) from None

    def _in_collection_order(self) -> bool:
        """Whether pytest will run the corpus's cases as collection yields them, so the executors may start
        on them before it has its items: not when the command line may select or order them otherwise
        (-k, -m, --lf, --ff, --sw, --deselect, node ids), nor under xdist (then they start once pytest has its items)."""
        config, option = self.config, self.config.option
        if self._xdist() or any(getattr(option, name, None) for name in SELECTING):
            return False
        return all(Path(arg.split("::")[0]).resolve() == self.run.root for arg in config.args)

    def _picked(self) -> dict:
        """What pytest's own options select, for run.json: -k, -m, --lf, --deselect and node ids (the
        arguments other than the corpus itself), as given."""
        option = self.config.option
        picked = {name: getattr(option, dest, None) for dest, name in PICKING.items()}
        picked["node_ids"] = [shown(arg) for arg in self.config.args if Path(arg).resolve() != self.run.root]
        return picked

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:
        # Workers must collect the same items, so they are told, not left to read a file the
        # controller is appending to, which cases an interrupted run already finished.
        node.workerinput["conformance_done"] = sorted(self.run.done)

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        run = self.run
        backend = run.run_info.get("backend", {"name": run.backend, "version": "(not loaded)"})
        return [
            f"conformance: backend {backend.get('name')} {backend.get('version')}, "
            f"harness {harness.__version__}, timeout {run.timeout:g} s, "
            f"{run.workers} executor{'s' if run.workers != 1 else ''}",
            f"conformance: {len(run.cases)} cases in {run.root}"
            + (f", {len(run.done)} already recorded ({run.flag('resume')})" if run.done else ""),
            f"conformance: results -> {run.report_dir / RESULTS}",
        ]

    # -- collection ------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_collect_directory(self, path: Path, parent: pytest.Collector):
        if path == self.run.root:
            return Corpus.from_parent(parent, path=path)
        return None

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list) -> None:
        done = self.run.done
        if not done:
            return
        keep, drop = [], []
        for item in items:
            (drop if isinstance(item, CaseItem) and item.name in done else keep).append(item)
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
        if self.is_worker or self._xdist() or self.config.getoption("collectonly"):
            return None  # under xdist each worker runs its items one by one, as they are sent
        if session.testsfailed and not self.config.option.continue_on_collection_errors:
            return None  # pytest's own loop stops the run, and says why
        self.run.plan([item.case for item in session.items if isinstance(item, CaseItem)])
        if self.fast is None:
            return None  # pytest's own loop
        return self.fast.run_items(session, lambda item: isinstance(item, CaseItem))

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
        log = self.run.log
        if log is None or report.nodeid in self.recorded:
            return
        name = report.nodeid.rsplit("::", 1)[-1]
        kept = self.answered.pop(report.nodeid, None) if report.when == "call" else None
        carried = None if kept is not None else \
            next((v for k, v in report.user_properties if k == PROPERTY), None)
        cases = self.run.cases
        if kept is not None:
            result = kept
        elif carried is not None and report.when == "call":
            result = new_result(cases.get(name, {"name": name}), **json.loads(carried))
        elif report.failed and report.when != "teardown":
            # No result came back: the item broke outside the executor (an xdist worker died,
            # a harness bug in setup). Record it all the same, so no case silently vanishes.
            lines = [ln for ln in (report.longreprtext or "").splitlines() if ln.strip()]
            status = CRASH if report.when == "???" else ERROR
            result = new_result(cases.get(name, {"name": name}), status=status,
                                stage=None, detail=one_line(lines[-1] if lines else "no detail"),
                                seconds=report.duration)
        else:
            return
        self.recorded.add(report.nodeid)
        log.append(result)

    # -- the end ---------------------------------------------------------------------------

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.fast is not None:
            self.fast.gc_run_ends()
        run = self.run
        run.stop_executors()
        if run.log is None:
            return
        complete = exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED,
                                  pytest.ExitCode.NO_TESTS_COLLECTED)
        try:
            run.finish(complete, side_by_side if self.fast is not None else one_after_another)
        finally:
            if run.verdict is not None:
                session.exitstatus = run.verdict.exit_code
            self.config.stash[VERDICT] = run.verdict
        self.folded = self._fold_failures()

    def _fold_failures(self) -> bool:
        """A first run (no baseline) of a backend being brought up fails by the thousand: a FAILED block
        and line for each would bury the summary, so pytest's terminal leaves them out, unless -v, -r or
        --tb asks for them (results.jsonl, junit.xml and the matrices hold every one; the closing line
        still counts them). Not when anything else failed (a collection error): its block is shown."""
        config, run = self.config, self.run
        terminal = config.pluginmanager.get_plugin("terminalreporter")
        if run.verdict is None or run.expectations_path or terminal is None or self.is_worker:
            return False
        option = config.option
        if config.get_verbosity() > 0 or option.reportchars != "fE" or option.tbstyle != "auto":
            return False  # asked for: pytest's defaults are -r fE and --tb auto
        stats = getattr(terminal, "stats", {})
        if stats.get("error") or not isinstance(getattr(terminal, "reportchars", None), str):
            return False
        option.tbstyle = "no"  # the FAILURES section
        terminal.reportchars = terminal.reportchars.replace("f", "")  # the short summary's FAILED lines
        return True

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.fast is not None:
            self.fast.gc_restore()
        if self._sigterm is not None:
            signal.signal(signal.SIGTERM, self._sigterm)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        run = self.run
        if run.log is None:
            return
        tr = terminalreporter
        tr.section("conformance")
        for line in terminal_summary(run.results):
            tr.write_line(line)
        for line in run.warnings:
            tr.write_line(line, yellow=True)
        if run.verdict is not None:
            for line in run.verdict.lines(regressions=not self.folded):
                tr.write_line(line, red=not line.startswith("STALE"),
                              yellow=line.startswith("STALE"))
            for line in gate_advice(run.verdict, first_run=not run.expectations_path, folded=self.folded,
                                    report_dir=shown(run.report_dir), baseline_command=run.baseline_command()):
                tr.write_line(line, yellow=True)
            word = "OK" if run.verdict.exit_code == baseline.OK else "FAILED"
            tr.write_line(f"conformance gate: {word} (exit code {run.verdict.exit_code}); "
                          f"results in {run.report_dir}", bold=True)
        else:
            tr.write_line(f"conformance: run did not finish; resume with {run.flag('resume')} "
                          f"(results so far in {run.report_dir / RESULTS})", red=True)
