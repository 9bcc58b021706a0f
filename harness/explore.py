"""explore-cases: search beyond the fixed corpus for the inputs where a backend breaks, and write each find as a case run-conformance runs.

For each operator version selected, hypothesis draws nodes from the version's family strategies
(harness/strategies/): a type binding, an opset, inputs and attributes; the operator's semantics
gives the expected outputs (a draw the spec rejects or leaves undefined is discarded); the backend
runs the model in the executors run-conformance uses, so a crash or a hang is that input's verdict
and the search goes on (harness/explore_verdicts.py). A `fail`, `error`, `crash` or `timeout` is
shrunk by hypothesis to a minimal input and written to --out as a case in the standard layout, with
an index entry carrying its status, detail and the command that runs it again
(harness/explore_cases.py). With --against, a find is where two backends disagree. The progress
line and the summary are harness/explore_report.py's.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import sys
import threading
import time
from pathlib import Path

from onnx_conformance.harness import explore_report
from onnx_conformance.harness.explore_cases import Discarded, FindsFolder, FolderError, build, command
from onnx_conformance.harness.explore_units import (AllDeclined, Candidate, Found, Stop, Unit, first_found,
                                                     found_class, pairs_of)

FIRST_ROUND = 4  # draws each operator version has in the first round: a budget reaches every version
CHUNK = 25  # the most draws one version has in a round; rounds double from FIRST_ROUND up to it
DEFAULT_BUDGET = 60.0
DEFAULT_TIMEOUT = 10.0  # seconds an input may run: a hang is shrunk too, one timeout per attempt
STORAGE = "HYPOTHESIS_STORAGE_DIRECTORY"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="explore-cases", description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", default="onnxruntime", metavar="NAME", help="the backend to explore (as run-conformance names it)")
    p.add_argument("--backend-option", action="append", default=[], metavar="KEY=VALUE",
                   help="passed to the backend's adapter (repeatable)")
    p.add_argument("--against", metavar="OTHER", help="differential mode: a find is where OTHER disagrees")
    p.add_argument("--against-option", action="append", default=[], metavar="KEY=VALUE",
                   help="passed to OTHER's adapter (repeatable)")
    p.add_argument("--op", action="append", default=[], metavar="OP[-VERSION]",
                   help="an operator, or one version of it (Add-14); repeatable; default: every one with a strategy")
    p.add_argument("--dtype", action="append", default=[], metavar="TYPE", help="only these element types (the binding's primary one)")
    p.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help=f"seconds to search (default {DEFAULT_BUDGET:g}; none with --max-examples alone)")
    p.add_argument("--max-examples", type=int, default=None, metavar="N",
                   help="draws per operator version, then stop: the same seed then gives the same finds on any machine")
    p.add_argument("--max-finds", type=int, default=None, metavar="N", help="stop after N finds")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="the search's seed (default 0)")
    p.add_argument("--out", type=Path, metavar="DIR", help="where finds are written (default reports/<backend>/explore)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"seconds one input may run (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--list", action="store_true",
                   help="print the operators with strategies, why the others have none, and how many, and exit")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    a = p.parse_args(argv)
    if a.list:
        return _list()
    try:
        explorer = Explorer(a)
    except UsageError as e:
        print(f"explore-cases: {e}", file=sys.stderr)
        return 2
    return explorer.run()


class UsageError(Exception):
    """One line for the user; exit 2."""


def _options(pairs: list[str], flag: str) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise UsageError(f"{flag} {pair!r}: expected KEY=VALUE")
        out[key] = value
    return out


def _list() -> int:
    from onnx_conformance.harness.strategies import coverage, covered

    for family, ops in covered().items():
        print(f"{family} ({len(ops)}): {', '.join(ops)}")
    c = coverage()
    for what, why in c.missing:
        print(f"no strategy: {what}: {why}")
    print(f"{c.covered_operators} of {c.operators} operators and {c.covered_versions} of {c.versions} versions "
          "have strategies" + (f" (not counted: {c.deprecated} deprecated versions, which onnx's checker refuses)"
                               if c.deprecated else ""))
    return 0


def round_size(rounds: int) -> int:
    """Draws in a version's round `rounds` (0 first): FIRST_ROUND, doubling up to CHUNK."""
    return min(CHUNK, FIRST_ROUND << min(rounds, 8))


# ---------------------------------------------------------------------------------------------
# the search


class Explorer:
    def __init__(self, a: argparse.Namespace):
        self.backend = a.backend
        self.options = _options(a.backend_option, "--backend-option")
        self.against = a.against
        self.against_options = _options(a.against_option, "--against-option")
        if a.max_examples is not None and a.max_examples < 1:
            raise UsageError("--max-examples must be at least 1")
        if a.budget is not None and a.budget <= 0:
            raise UsageError("--budget must be positive")
        self.budget = a.budget if a.budget is not None else (None if a.max_examples else DEFAULT_BUDGET)
        self.max_examples = a.max_examples
        self.max_finds = a.max_finds
        self.seed = a.seed
        self.timeout = a.timeout
        self.quiet = a.quiet
        self.dtypes = set(a.dtype)
        self.out = a.out or Path("reports") / _safe(a.backend) / "explore"
        self.out_text = str(a.out) if a.out else str(self.out)
        self.units = self._units(a.op)
        if not self.units:
            raise UsageError("no operator version to explore (see --list)")
        try:
            self.folder = FindsFolder(self.out)
        except FolderError as e:
            raise UsageError(str(e)) from None
        self.memo: dict = {}  # case name (its files' hash) -> its Verdict: a replay answers the same
        self.known: set = set()  # (operator version, binding, key) already found: not found again
        self.finds: list[Candidate] = []
        self.deferred: list[tuple[Candidate, int]] = []  # finds of a budget's first round, to shrink after it
        self.stopping = False  # Ctrl-C asked the search to stop (_interrupted)
        self._at_once = False  # whether another Ctrl-C stops the search at once
        self.started = 0.0
        self.deadline: float | None = None
        self._last_progress = 0.0
        self._chunk_best: dict[str, Candidate] = {}

    # -- what to explore -------------------------------------------------------------------------

    def _units(self, selection: list[str]) -> list[Unit]:
        from onnx_conformance.generators.ops import all_operators
        from onnx_conformance.generators.spec import versions
        from onnx_conformance.harness.strategies import family_of

        operators = all_operators()
        wanted: list[tuple[str, int | None]] = []
        for item in selection:
            name, _, version = item.partition("-")
            if name not in operators:
                raise UsageError(f"--op {item}: no operator {name!r}")
            if version and not version.isdigit():
                raise UsageError(f"--op {item}: expected OP or OP-VERSION (Add-14)")
            wanted.append((name, int(version) if version else None))
        if not wanted:
            wanted = [(n, None) for n in sorted(operators)]
        units, refused = [], []
        for name, version in wanted:
            op = operators[name]
            chosen = [v for v in versions(name, op.domain) if not v.deprecated
                      and (version is None or v.since_version == version)]
            if version is not None and not chosen:
                raise UsageError(f"--op {name}-{version}: {name} has no version {version} "
                                 f"(it has {', '.join(str(v.since_version) for v in versions(name, op.domain))})")
            for v in chosen:
                family, why = family_of(op, v)
                if family is None:
                    if selection:
                        refused.append(f"{name}-{v.since_version}: {why}")
                    continue
                if self.dtypes and not self.dtypes & set(v.type_params.get(op.primary_param(v), ())):
                    continue
                units.append(Unit(op, v, family, pairs=pairs_of(op, v, self.dtypes)))
        if refused and not units:
            raise UsageError("nothing to explore: " + "; ".join(refused))
        self.refused = refused
        return units

    # -- running -----------------------------------------------------------------------------------

    def run(self) -> int:
        from onnx_conformance.harness.executor import BackendUnavailable
        from onnx_conformance.harness.explore_verdicts import Judge
        from onnx_conformance.harness.strategies.common import steady_draws

        self.judge = Judge(self.backend, self.options, self.against, self.against_options, self.timeout)
        # hypothesis keeps what it learns of the code it runs in a folder of the working directory; the
        # search keeps nothing between runs (no example database either): unless the user names one,
        # that folder is the scratch one, for this run only
        own_storage = STORAGE not in os.environ
        if own_storage:
            _hypothesis_home(self.judge.scratch / "hypothesis")
        code = 0
        try:
            try:
                self.info, self.other_info = self.judge.start()
            except BackendUnavailable as e:
                print(f"explore-cases: {e}", file=sys.stderr)
                return 2
            self.started = time.monotonic()
            self.deadline = None if self.budget is None else self.started + self.budget
            previous = self._catch_ctrl_c()
            try:
                try:
                    with steady_draws():
                        self._search()
                except KeyboardInterrupt:  # a second Ctrl-C: at once
                    self.stopping = True
                    self._keep_best(shrunk=False)
                self._at_once = False  # what was found is written first, whatever Ctrl-C comes now
                self._write_deferred()
            finally:
                if previous is not None:
                    signal.signal(signal.SIGINT, previous)
            self._progress(force=True, end=True)
            if self.stopping:
                print("explore-cases: stopped; the finds so far are kept", file=sys.stderr)
                code = 130
            explore_report.summary(self, interrupted=code == 130)
            return code or (1 if self.finds else 0)
        finally:
            if own_storage:
                _hypothesis_home(None)
            self.judge.close()

    def _catch_ctrl_c(self):
        """SIGINT, for the search, asks it to stop at its next safe point (_interrupted); the handler it
        replaces, to put back (None where it leaves SIGINT alone: not the main thread, or SIGINT ignored,
        as in a background job)."""
        previous = signal.getsignal(signal.SIGINT)
        if previous in (None, signal.SIG_IGN) or threading.current_thread() is not threading.main_thread():
            return None
        self._at_once = True
        signal.signal(signal.SIGINT, self._interrupted)
        return previous

    def _interrupted(self, signum, frame) -> None:
        """Ctrl-C: the first is recorded, and the search stops at the next draw or the next answer of the
        executor, the find being shrunk written as it stands; another stops it at once. Python's own
        KeyboardInterrupt is raised wherever the main thread is when the signal comes, and can be lost
        there: hypothesis times the garbage collector with a gc callback, and an exception raised in one
        is printed ("Exception ignored in") and dropped, so a Ctrl-C that came during a collection went
        unheard. A flag is never lost."""
        if self.stopping and self._at_once:
            raise KeyboardInterrupt
        self.stopping = True

    def _search(self) -> None:
        """Round robin over the operator versions in rounds that grow (round_size), until the budget is
        spent, Ctrl-C, or each version has had --max-examples draws: a budget reaches every version
        selected before any has more than FIRST_ROUND draws."""
        active = list(self.units)
        while active and not self._enough():
            for unit in list(active):
                if self._enough():
                    break  # the finds waiting to be shrunk are shrunk first
                size = round_size(unit.chunks)
                if self.max_examples is not None:
                    size = min(size, self.max_examples - unit.planned)
                if size <= 0:
                    active.remove(unit)
                    continue
                before = unit.ran
                unit.planned += size
                self._chunk(unit, size, unit.chunks, shrink=unit.chunks > 0 or self.budget is None)
                unit.chunks += 1
                if unit.all_declined or (unit.ran == before and size >= CHUNK):
                    # every pair declined; or a whole round declined, discarded or drawn before: nothing left
                    active.remove(unit)
            while self.deferred and not self._halted():
                # the first round met these and left them unshrunk, so that a budget reaches every version
                # (shrinking one takes dozens of inputs): that round again, the same draws, now shrunk
                candidate, size = self.deferred[0]
                self._chunk(candidate.unit, size, 0, shrink=True, met=candidate)
                self.deferred.pop(0)

    def _write_deferred(self) -> None:
        """The first round's finds the budget or Ctrl-C left no time to shrink, as they were met."""
        for c, _ in self.deferred:
            if (c.unit.label, tuple(c.probe.meta["types"].items()), c.verdict.key) not in self.known:
                c.shrunk = False
                self._write(c)
        self.deferred.clear()

    def _enough(self) -> bool:
        """--max-finds reached (counting the finds waiting to be shrunk), or _halted."""
        if self.max_finds is not None and len(self.finds) + len(self.deferred) >= self.max_finds:
            return True
        return self._halted()

    def _halted(self) -> bool:
        """The budget is spent or Ctrl-C came: no more inputs, not even to shrink."""
        return self.stopping or (self.deadline is not None and time.monotonic() >= self.deadline)

    def _clock(self) -> tuple[int, float]:
        return sum(u.ran for u in self.units), time.monotonic() - self.started

    def _chunk(self, unit: Unit, size: int, round_: int, shrink: bool = True, met: Candidate | None = None) -> None:
        """One hypothesis run of `size` draws on this operator version, seeded by (seed, version,
        round): a find ends it, shrunk, and is written; unshrunk, it waits in `deferred` (`met`: this is
        the run that met it, again, to shrink it)."""
        from hypothesis import HealthCheck, Phase, Verbosity, given, settings
        from hypothesis import seed as seeded
        from hypothesis import strategies as st

        digest = hashlib.sha256(f"{self.seed}|{unit.label}|{round_}".encode()).digest()
        self._chunk_best = {} if met is None else {met.verdict.key: met}  # met: when it was first met

        @settings(database=None, max_examples=size, deadline=None, derandomize=False,
                  phases=(Phase.generate, Phase.shrink) if shrink else (Phase.generate,),
                  suppress_health_check=list(HealthCheck),
                  report_multiple_bugs=False, verbosity=Verbosity.quiet, print_blob=False)
        @seeded(int.from_bytes(digest[:8], "little"))
        @given(st.data())
        def search(data):
            self._draw(unit, data)

        winner = None
        began = self._clock()
        try:
            search()
        except Found as f:
            winner = f.candidate
        except (Stop, AllDeclined):
            winner = self._latest()
            if winner is not None:
                winner.shrunk = False
        except Exception as e:  # noqa: BLE001 - hypothesis's own verdicts: flaky, unsatisfiable, a group
            from hypothesis.errors import Unsatisfiable

            winner = first_found(e) or self._latest()
            if winner is None and not isinstance(e, Unsatisfiable):
                self._problem(unit, e)  # the harness's own error, shown in the summary, never a find
        if winner is None and met is not None:
            winner = met  # not met again (a backend that answers otherwise now)
            winner.shrunk = False
        if winner is not None and met is not None:
            winner.resumed = began
        if winner is not None and not shrink:
            self.deferred.append((winner, size))
        elif winner is not None:
            self._write(winner)

    def _latest(self) -> Candidate | None:
        """The interesting draw seen last in this chunk: while shrinking, the smallest so far."""
        return next(reversed(self._chunk_best.values()), None) if self._chunk_best else None

    def _keep_best(self, shrunk: bool) -> None:
        winner = self._latest()
        if winner is not None and not any(f is winner for f in self.finds):
            winner.shrunk = shrunk
            self._write(winner)

    def _draw(self, unit: Unit, data) -> None:
        """hypothesis's test function: draw a node, build it, judge it (once per distinct case)."""
        from hypothesis import reject
        from hypothesis import strategies as st
        from hypothesis.errors import HypothesisException

        from onnx_conformance.harness.strategies.bindings import bindings

        op, v = unit.op, unit.v
        if self.stopping:
            raise Stop()  # Ctrl-C: not another draw (a draw that runs no input can take a tenth of a second)
        unit.examples += 1
        t = data.draw(bindings(op, v), label="types")
        if self.dtypes and t.dtype not in self.dtypes:
            reject()
        opset = data.draw(st.sampled_from(v.opsets), label="opset")
        binding = tuple(t.items())
        try:
            drawn = data.draw(unit.family.probes(op, v, t), label="node")
        except HypothesisException:
            raise
        except Exception as e:  # noqa: BLE001 - a strategy's own bug: counted and shown, never a find
            self._problem(unit, e)
            reject()
        if (opset, binding) in unit.declined:
            # only once the whole node is drawn: a replay must draw what it drew the first time, and the
            # pairs declined grow during the search
            reject()
        try:
            probe = build(op, v, unit.family, t, opset, drawn)
        except Discarded as e:
            unit.discarded[e.why] += 1
            reject()
        except Exception as e:  # noqa: BLE001 - the semantics or the family on a draw it was not written for
            self._problem(unit, e)
            reject()
        verdict = self.memo.get(probe.name)
        if verdict is None:
            if self._halted():
                raise Stop()
            verdict = self.judge.judge(probe)
            if self.stopping:
                # Ctrl-C came while it ran: a terminal's reaches the executor too, so this answer (a crash,
                # a backend that could not start) may be the Ctrl-C's, not the input's
                raise Stop()
            self.memo[probe.name] = verdict
            unit.ran += 1
            unit.statuses[verdict.result["status"]] += 1
            self._progress()
        if verdict.declined is not None:
            unit.declined.setdefault((opset, binding), verdict.declined)
            if unit.all_declined:
                raise AllDeclined()  # else hypothesis draws on, hundreds of draws rejected, to end its run
            return
        key = verdict.key
        if key is None or (unit.label, binding, key) in self.known:
            return
        first = self._chunk_best.pop(key, None)
        candidate = Candidate(unit, probe, verdict, seen=first.seen if first is not None else self._clock())
        self._chunk_best[key] = candidate
        raise found_class(key)(candidate)

    def _problem(self, unit: Unit, e: BaseException) -> None:
        unit.discarded["strategy error"] += 1
        if unit.first_problem is None:
            unit.first_problem = f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"

    # -- writing what was found -------------------------------------------------------------------

    def _write(self, c: Candidate) -> None:
        """The find, into --out (explore_cases.FindsFolder), unless the same case is there already."""
        c.done = self._clock()
        self.known.add((c.unit.label, tuple(c.probe.meta["types"].items()), c.verdict.key))
        self.finds.append(c)
        if c.probe.name not in self.folder:
            self.folder.add(c.probe, self.found_facts(c))
        self._progress(force=True)

    def found_facts(self, c: Candidate) -> dict:
        """The index entry's `found`: the verdicts, the commands that run the find again, both answers."""
        result, other = c.verdict.result, c.verdict.other
        facts = {"backend": self.backend, "status": result["status"], "stage": result["stage"],
                 "detail": result["detail"], "command": command(self.backend, self.options, self.out_text, c.probe.name),
                 "seed": self.seed, "shrunk": c.shrunk}
        if self.options:
            facts["backend_options"] = dict(self.options)
        if other is not None:
            facts["against"] = {"backend": self.against, "status": other["status"], "stage": other["stage"],
                                "detail": other["detail"],
                                "command": command(self.against, self.against_options, self.out_text, c.probe.name)}
            facts["disagreement"] = c.verdict.key
            if c.verdict.answers:
                facts["answers"] = c.verdict.answers
        return facts

    def _progress(self, force: bool = False, end: bool = False) -> None:
        if not self.quiet:
            explore_report.progress(self, force, end)

# ---------------------------------------------------------------------------------------------
# helpers


def _hypothesis_home(folder: Path | None) -> None:
    """hypothesis's folder for what it keeps (None: its default again, `.hypothesis/` of the working
    directory or HYPOTHESIS_STORAGE_DIRECTORY, resolved anew)."""
    from hypothesis import configuration

    if hasattr(configuration, "set_hypothesis_home_dir"):
        configuration.set_hypothesis_home_dir(folder)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


if __name__ == "__main__":
    sys.exit(main())
