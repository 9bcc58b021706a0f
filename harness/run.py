"""The run's lifecycle, apart from pytest: which cases run (corpus, shard, --op, --resume), the executors from launch to close, run.json, and what the run leaves when it ends.

The plugin (harness/plugin.py) calls it from pytest's hooks: `start` at the session's start, `plan` once pytest has
its items, `execute` for each case, `stop_executors` and `finish` at the end. What it says to the user names each
option as the user gave it (Settings.flag): run-conformance's flag, or the plugin's --conformance-* one.
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path
from typing import Callable

from onnx_conformance import harness
from onnx_conformance.harness import expectations as baseline
from onnx_conformance.harness import opset_ceiling, options, shard
from onnx_conformance.harness.confirm import OFF, Confirmer
from onnx_conformance.harness.corpus import Case, CorpusError, read_corpus
from onnx_conformance.harness.dispatch import Dispatch
from onnx_conformance.harness.executor import BackendUnavailable, Executor
from onnx_conformance.harness.expectations import ExpectationsError
from onnx_conformance.harness.fastpath import JobFailed, one_after_another
from onnx_conformance.harness.grading import Grader, failure_text
from onnx_conformance.harness.items import collected_groups, group_of
from onnx_conformance.harness.junit import JUNIT, Testcase, write_junit
from onnx_conformance.harness.reports import write_matrices
from onnx_conformance.harness.rerun import with_reruns
from onnx_conformance.harness.results import (RESULTS, RUN, ResultsLog, counts, now, platform_info, read_json,
                                              report_dir_for, write_json)
from onnx_conformance.harness.statuses import CRASH, TIMEOUT

# Written only when a run ends; removed when one starts, so none outlives the run it describes.
STALE_REPORTS = ("matrix.json", "matrix.md", "matrix.html", JUNIT)


class SetupError(Exception):
    """A run that cannot start (its corpus, baseline, shard, --op, --resume or backend); one line for the user."""


class Run:
    """One process's part of a run: the corpus, its executors, and (controller only) the results log and run.json."""

    def __init__(self, settings: options.Settings, *, is_worker: bool):
        self.settings = settings
        self.flag = settings.flag  # an option as the user gave it, for what the run says
        self.root = Path(settings.cases).resolve()
        self.backend = settings.backend
        self.options = settings.backend_option
        self.timeout = settings.timeout
        self.report_dir = Path(settings.report_dir) if settings.report_dir else report_dir_for(self.backend)
        self.expectations_path = settings.expectations
        self.is_worker = is_worker  # an xdist worker: runs its items, records nothing
        self.memory_limit = settings.memory_limit
        self.opset = settings.opset  # --opset N; None: the backend's maximum (harness/opset_ceiling.py)
        self.ceiling: int | None = None  # the opset a case above it runs at, once the backend said its maximum
        self.cases: dict[str, Case] = {}
        self.expectations: dict[str, baseline.Expectation] | None = None
        self.executor: Executor | None = None
        self.launched: list[Executor] = []  # started at the run's start, before the corpus is read
        self.log: ResultsLog | None = None
        self.run_info: dict = {}
        self.done: set[str] = set()  # cases an earlier, interrupted run already recorded
        self.results: list[dict] = []
        self.verdict: baseline.Verdict | None = None
        self.warnings: list[str] = []
        self.reruns = settings.rerun_failures
        self.confirmer: Confirmer | None = None  # --confirm, once the baseline is read
        self.shard = settings.shard
        self.selected: set[str] | None = None  # this shard's cases; None = every case
        self.picked: dict = {}  # what pytest's own options select (-k, -m, node ids, ...), for run.json
        self.planned: list[str] | None = None  # the cases this run selected (items), once known
        self.ops: set[str] = set(settings.op)  # only these operators' cases; empty = all
        self.workers = settings.workers
        self.dispatch: Dispatch | None = None
        # Grading against the baseline (harness/grading.py), its methods bound here: the hot path's lookups.
        self.grader = Grader(None, updating=settings.update_expectations, allow_fixes=settings.allow_fixes,
                             strict=settings.strict)
        self.grade = self.grader.grade
        self.listed_skip = self.grader.listed_skip
        self.started = time.time()

    # -- the start -------------------------------------------------------------------------

    def start(self, *, listing: bool, xdist: bool, plan_early: bool, told_done=(), argv=(),
              picked: dict | None = None) -> None:
        """Launch the executors, read the corpus and baseline, and (controller) open the results log and
        write run.json. `listing`: only the cases are listed (--collect-only), nothing runs; `xdist`: this
        is xdist's controller, whose workers run the cases; `plan_early`: the run will be every case of
        this shard and --op in collection order, so the executors may start on them now; `told_done`: a
        worker's cases the controller found recorded (--resume); `argv`: the command line, for run.json;
        `picked`: what pytest's own options select ({"keyword": -k, "node_ids": [...], ...}), for run.json."""
        self.picked = {k: v for k, v in (picked or {}).items() if v}
        # The executors load the backend while the corpus is read (the first one's handshake says
        # whether the backend loads at all).
        if not self.is_worker and not listing:
            count = 1 if xdist else self.workers
            self.launched = [self._new_executor() for _ in range(count)]
            try:
                for executor in self.launched:
                    executor.launch()
            except BackendUnavailable as e:
                self._close_launched()
                raise SetupError(str(e)) from None
        try:
            self._start(listing, xdist, plan_early, told_done, argv)
        except BaseException:
            self._close_launched()
            raise

    def _close_launched(self) -> None:
        for executor in self.launched:
            executor.close()
        self.launched = []

    def _start(self, listing: bool, xdist: bool, plan_early: bool, told_done, argv) -> None:
        try:
            corpus = read_corpus(self.root)
            self.cases = {c.name: c for c in corpus.cases}
        except CorpusError as e:
            raise SetupError(str(e)) from None
        if self.shard is not None:
            self._select_shard()
        unknown = sorted(self.ops - {c.op for c in self.cases.values()})
        if unknown:
            raise SetupError(f"{self.flag('op')} {unknown[0]}: no case of that operator in {self.root}")
        if self.expectations_path:
            path = Path(self.expectations_path)
            update = self.settings.update_expectations
            try:
                self.expectations = {} if update and not path.exists() else baseline.load(path)
                self.grader.expectations = self.expectations
            except ExpectationsError as e:
                raise SetupError(str(e)) from None
        if self.settings.confirm != OFF:
            # A baseline that --update-expectations is about to write for the first time expects nothing yet.
            writing_new = self.settings.update_expectations and not Path(self.expectations_path).exists()
            self.confirmer = Confirmer(self.settings.confirm, lambda: self._new_executor(remember=False),
                                       self.cases, None if writing_new else self.expectations)
        if self.is_worker:
            self.done = set(told_done)
            return
        if listing:
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
            raise SetupError(str(e)) from None
        self.report_dir.mkdir(parents=True, exist_ok=True)
        for stale in STALE_REPORTS:  # a killed run must not sit beside an older run's reports
            (self.report_dir / stale).unlink(missing_ok=True)
        self.log = ResultsLog(self.report_dir / RESULTS, resume=resume)
        self.done = {r["case"] for r in self.log.prior}
        if xdist:
            # xdist workers run the cases with executors of their own; this one only proved
            # that the backend loads.
            self._close_launched()
            self.executor = None
            self.confirmer = None  # the workers confirm their own cases, and record nothing
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
            "argv": [shown(a) for a in argv],
            "rerun_failures": self.reruns,
            "confirm": {"mode": self.settings.confirm},
        }
        maximum = info.get("opset_maximum")
        top = opset_ceiling.ceiling(maximum, self.opset)
        self.ceiling = top.opset if top is not None else None
        # The ceiling cases above it ran at: the backend's declared maximum, or --opset below it.
        self.run_info["opset"] = {"ceiling": self.ceiling, "backend_maximum": maximum, "requested": self.opset}
        # What was selected, as the arguments that selected it; how many cases and their names' digest
        # come when the run ends (selection_record), not the names: a shard's run.json stays small.
        self.run_info["selection"] = self._selection_args()
        if self.selected is not None:
            # What merge-reports checks: every shard split the same corpus, each case once.
            k, n = self.shard
            self.run_info["shard"] = {"index": k, "total": n,
                                      "corpus_names_sha256": shard.names_sha256(self.cases)}
        write_json(self.report_dir / RUN, self.run_info)
        if plan_early:
            # The executors start on the cases while pytest builds its items, fed from a thread
            # until plan() hands them the run's own list (should it differ).
            groups = collected_groups(self)
            plan = [case for group in sorted(groups) for case in groups[group]
                    if case.name not in self.done and self.listed_skip(case) is None]
            self.dispatch = Dispatch(plan, self.workers, self._new_executor, spare=self.launched,
                                     reruns=self.reruns, idle=self.log.idle)
            self.dispatch.work_ahead()
            self.launched, self.executor = [], None

    def _selection_args(self) -> dict:
        """The options that chose this run's cases, as given: --op, --shard, and pytest's own (-k, -m, node ids)."""
        args: dict = {}
        if self.ops:
            args["op"] = sorted(self.ops)
        if self.shard is not None:
            args["shard"] = "{}/{}".format(*self.shard)
        return {**args, **self.picked}

    def selected_names(self) -> set[str] | None:
        """The names of the cases this run selected (those an interrupted run recorded included), or None
        where this process never saw them (an xdist controller with -k: its workers collect)."""
        names = self.planned
        if names is None and not self.picked:  # (xdist) what every worker collects: the shard's, the --op's
            names = [case.name for group in collected_groups(self).values() for case in group]
        return None if names is None else set(names) | self.done

    def selection_record(self, names: set[str] | None) -> dict:
        """run.json's `selection`: its arguments, then how many cases it holds and the sha256 of their
        names (shard.names_sha256), None where not known, or where no option chose them: sorting a
        whole corpus's names (~0.1 s) would tell no more than the corpus index's sha256."""
        args = self._selection_args()
        return {**args, "cases": None if names is None else len(names),
                "names_sha256": shard.names_sha256(names) if names is not None and args else None}

    def _select_shard(self) -> None:
        durations_path = self.settings.shard_durations
        try:
            durations = shard.read_durations(durations_path) if durations_path else None
        except shard.ShardError as e:
            raise SetupError(options.respelled(str(e), options.BY_DEST["shard_durations"],
                                               self.flag("shard_durations"))) from None
        k, n = self.shard
        self.selected = shard.select({c.name: c.path for c in self.cases.values()}, k, n, durations)

    def _check_resumable(self, previous: dict, index_hash: str | None) -> None:
        resume = self.flag("resume")
        was = previous.get("backend", {}).get("requested")
        if was != self.backend:
            raise SetupError(f"cannot {resume}: {self.report_dir} holds a run of backend "
                             f"{was!r}, not {self.backend!r}")
        was_shard = previous.get("shard") or {}
        if (was_shard.get("index"), was_shard.get("total")) != (self.shard or (None, None)):
            raise SetupError(f"cannot {resume}: {self.report_dir} holds a run of a "
                             f"different {self.flag('shard')}; start a fresh run")
        if (previous.get("opset") or {}).get("requested") != self.opset:
            raise SetupError(f"cannot {resume}: {self.report_dir} holds a run at another "
                             f"{self.flag('opset')}; start a fresh run")
        old_hash = previous.get("corpus", {}).get("index_sha256")
        if old_hash != index_hash:
            raise SetupError(
                f"cannot {resume}: the corpus index changed since the run in {self.report_dir} "
                f"({old_hash} != {index_hash}); start a fresh run")

    # -- running ---------------------------------------------------------------------------

    def plan(self, cases: list[Case]) -> None:
        """This process's cases, in run order, handed to the executors before the first one is asked for:
        the plan made at the start replanned to them, or one made now."""
        self.planned = [case.name for case in cases]
        cases = [case for case in cases if self.listed_skip(case) is None]
        if self.dispatch is not None:  # planned at the start: now the run's own list and order
            self.dispatch.stop_working_ahead()
            self.dispatch.replan(cases)
        else:
            # the one that proved the backend loads, and the others launched beside it
            started = self.launched or [self.executor]
            self.launched, self.executor = [], None
            self.dispatch = Dispatch(cases, self.workers, self._new_executor, spare=started,
                                     reruns=self.reruns, idle=self.log.idle if self.log else None)

    def execute(self, case: Case) -> dict:
        """The case's result: from the executors working ahead, else run here and now (under xdist)."""
        skipped = self.listed_skip(case)
        if skipped is not None:
            return skipped
        result = self.dispatch.result(case) if self.dispatch is not None else None
        if result is None:
            if self.executor is None:
                self.executor = self._new_executor()
            executor = self.executor
            result = with_reruns(executor.run, case, executor.run(case), self.reruns)
        if result["status"] in (CRASH, TIMEOUT) and self.ceiling is not None and (case.opset or 0) > self.ceiling \
                and case.domain in opset_ceiling.AI_ONNX:
            # answered by the executor, not the child that ran it: a case above the ceiling that got as far
            # as running had passed the rule, so it ran at the ceiling
            result["ran_opset"] = self.ceiling
        if self.confirmer is not None:
            executors = self.dispatch.executors if self.dispatch is not None else [self.executor]
            earlier = next(filter(None, (e.earlier_than(case.name) for e in executors)), None)
            result = self.confirmer.check(case, result, earlier)
        detail = result.get("detail")
        if detail and case.path in detail:
            # A backend quoting the model's path names no checkout in a report. Only the case's
            # own path is shortened: a safety reason quoting a location outside it stays verbatim.
            result["detail"] = detail.replace(case.path, shown(case.path))
        return result

    def _new_executor(self, remember: bool = True) -> Executor:
        """An executor, not yet started; `remember`: it keeps what ran before each failing case, for --confirm."""
        options = self.options if self.opset is None else {**self.options, opset_ceiling.OPTION: str(self.opset)}
        executor = Executor(self.backend, options, self.timeout, memory_limit=self.memory_limit)
        executor.remember = remember and self.settings.confirm != OFF
        return executor

    def failure_text(self, result: dict) -> str:
        return failure_text(result, self.reproduce(result["case"]))

    def command(self, *more: str) -> str:
        """A run-conformance command for this run's backend, corpus, limits and selection, then `more`."""
        words = ["run-conformance", "--backend", self.backend]
        for key, value in self.options.items():
            words += ["--backend-option", f"{key}={value}"]
        words += ["--cases", shown(self.root)]
        if self.opset is not None:
            words += ["--opset", str(self.opset)]
        if self.workers > 1:
            words += ["-n", str(self.workers)]
        for dest, value in (("timeout", self.timeout), ("memory_limit", self.memory_limit)):
            option = options.BY_DEST[dest]
            if value != option.check(option.default):  # what decides a timeout or a crash, where not the default
                words += [option.flag, f"{value:g}" if isinstance(value, float) else str(value or 0)]
        for op in sorted(self.ops):
            words += ["--op", op]
        if self.shard is not None:
            words += ["--shard", "{}/{}".format(*self.shard)]
            if self.settings.shard_durations:
                words += ["--shard-durations", shown(self.settings.shard_durations)]
        for key, flag in (("keyword", "-k"), ("markexpr", "-m")):
            if self.picked.get(key):
                words += [flag, self.picked[key]]
        words += self.picked.get("node_ids", [])
        return " ".join(shlex.quote(str(w)) for w in [*words, *more])

    def baseline_command(self) -> str:
        """The command that writes the baseline from a run like this one: into its expectations file, or
        for a first run into one in the report directory."""
        path = self.expectations_path or self.report_dir / "expectations.txt"
        return self.command("--expectations", shown(path), "--update-expectations")

    def reproduce(self, name: str) -> str:
        words = ["run-conformance", "--backend", self.backend, "--cases", str(self.root)]
        for key, value in self.options.items():
            words += ["--backend-option", f"{key}={value}"]
        if self.opset is not None:
            words += ["--opset", str(self.opset)]
        words += ["-k", name]
        return " ".join(shlex.quote(w) for w in words)

    # -- the end ---------------------------------------------------------------------------

    def stop_executors(self) -> None:
        if self.dispatch is not None:
            self.dispatch.close()
            self.dispatch = None
        if self.executor is not None:
            self.executor.close()
            self.executor = None
        self._close_launched()

    def finish(self, complete: bool, jobs: Callable[..., None] = one_after_another) -> None:
        """The run has ended (controller, its log open): `complete` when it ran to its end, not stopped (then
        the gate's verdict and the exit code, and --update-expectations rewrites the baseline). Writes
        junit.xml and the matrices (by `jobs`: fastpath's side_by_side, or one_after_another) and run.json."""
        self.results = self.log.all()
        self.log.close()
        if self.confirmer is not None:
            self.warnings += self.confirmer.lines()
            self.run_info["confirm"].update(confirmed=self.confirmer.confirmed, changed=self.confirmer.changed,
                                            over_limit=self.confirmer.over_limit)
        if complete:
            if self.settings.update_expectations:
                entries = baseline.updated(self.results, self.expectations or {}, set(self.cases))
                Path(self.expectations_path).write_text(baseline.dump(entries), encoding="utf-8")
                self.expectations = self.grader.expectations = entries
                self.warnings.append(
                    f"expectations: wrote {len(entries)} entries to {self.expectations_path}")
            self.verdict = baseline.evaluate(
                self.results, self.expectations, set(self.cases),
                allow_fixes=self.settings.allow_fixes, strict=self.settings.strict)
        names = self.selected_names()
        self.run_info["selection"] = self.selection_record(names)
        if complete and names is not None and len(self.results) < len(names):
            # complete: every selected case recorded, not so where -x or --maxfail stopped the run
            complete = names <= {r["case"] for r in self.results}
        self.run_info.update(finished=now(), complete=complete, counts=counts(self.results),
                             exit_code=self.verdict.exit_code if self.verdict else None)
        if "opset" in self.run_info:
            self.run_info["opset"]["cases_lowered"] = sum(1 for r in self.results if r.get("ran_opset"))
        if self.verdict is not None:
            self.run_info["gate"] = {"regressions": self.verdict.regressions,
                                     "fixes": self.verdict.fixes, "stale": self.verdict.stale}
        try:
            # junit.xml here, the matrices in the copy: the one that takes longer runs where no
            # page of what it reads is copied on its first write.
            jobs(lambda: write_matrices(self.results, self.run_info, self.report_dir), self._write_junit)
        except Exception as e:
            # results.jsonl is safe on disk, but a CI job must not go green without its reports.
            said = str(e) if isinstance(e, JobFailed) else f"{type(e).__name__}: {e}"
            self.warnings.append(f"reports: could not write junit.xml or the matrices: {said}")
            if self.verdict is not None and self.verdict.exit_code == baseline.OK:
                self.verdict.exit_code = baseline.SETUP_ERROR
                self.run_info["exit_code"] = baseline.SETUP_ERROR
        write_json(self.report_dir / RUN, self.run_info)

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
