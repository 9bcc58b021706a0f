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
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from onnx_conformance.harness import explore_report
from onnx_conformance.harness.explore_cases import Discarded, FindsFolder, FolderError, Probe, build, command

CHUNK = 25  # examples hypothesis draws for one operator version before the next version's turn
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
    p.add_argument("--list", action="store_true", help="print the operators with strategies and exit")
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
    from onnx_conformance.harness.strategies import covered

    for family, ops in covered().items():
        print(f"{family} ({len(ops)}): {', '.join(ops)}")
    return 0


# ---------------------------------------------------------------------------------------------
# what the search keeps


@dataclass
class Unit:
    """One operator version being explored, and what its draws came to."""

    op: object
    v: object
    family: object
    examples: int = 0  # calls of the test function (draws and the shrinker's attempts)
    planned: int = 0  # draws asked of hypothesis so far (the chunks' max_examples)
    ran: int = 0  # inputs run on the backend
    chunks: int = 0
    discarded: Counter = field(default_factory=Counter)
    statuses: Counter = field(default_factory=Counter)
    declined: dict = field(default_factory=dict)  # (opset, binding) -> the backend's reason
    first_problem: str | None = None  # a strategy's own error, shown in the summary

    @property
    def label(self) -> str:
        return f"{self.op.name}-{self.v.since_version}"


@dataclass
class Candidate:
    """A drawn case that is interesting: the probe, the verdict, and what it is an instance of."""

    unit: Unit
    probe: Probe
    verdict: object  # explore_verdicts.Verdict: its key is what kind of find this is
    shrunk: bool = True
    seen: tuple = ()  # (inputs run, seconds) when the search first met this kind of find
    done: tuple = ()  # (inputs run, seconds) when it was written, shrunk


class Found(Exception):
    """Raised inside hypothesis's test function for an interesting draw; a subclass per key, so
    hypothesis tells a crash from a wrong value."""

    def __init__(self, candidate: Candidate):
        super().__init__(candidate.verdict.key)
        self.candidate = candidate


class OutOfTime(BaseException):
    """The budget is spent: leaves hypothesis's run at once (a BaseException, so not a failure)."""


_FOUND: dict[str, type] = {}


def found_class(key: str) -> type:
    if key not in _FOUND:
        _FOUND[key] = type(f"Found_{''.join(c if c.isalnum() else '_' for c in key)}", (Found,), {})
    return _FOUND[key]


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
                units.append(Unit(op, v, family))
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
            try:
                with steady_draws():
                    self._search()
            except KeyboardInterrupt:
                self._keep_best(shrunk=False)
                self._progress(force=True, end=True)
                print("explore-cases: stopped; the finds so far are kept", file=sys.stderr)
                code = 130
            else:
                self._progress(force=True, end=True)
            explore_report.summary(self, interrupted=code == 130)
            return code or (1 if self.finds else 0)
        finally:
            if own_storage:
                _hypothesis_home(None)
            self.judge.close()

    def _search(self) -> None:
        """Round robin over the operator versions, CHUNK draws at a time, until the budget is spent
        or each version has had --max-examples draws."""
        active = list(self.units)
        while active:
            for unit in list(active):
                if self._out_of_time():
                    return
                size = CHUNK if self.max_examples is None else min(CHUNK, self.max_examples - unit.planned)
                if size <= 0:
                    active.remove(unit)
                    continue
                before = unit.ran
                unit.planned += size
                self._chunk(unit, size)
                unit.chunks += 1
                if unit.ran == before and unit.chunks >= 2:
                    active.remove(unit)  # a whole round declined, discarded or drawn before: nothing left

    def _out_of_time(self) -> bool:
        if self.max_finds is not None and len(self.finds) >= self.max_finds:
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _clock(self) -> tuple[int, float]:
        return sum(u.ran for u in self.units), time.monotonic() - self.started

    def _chunk(self, unit: Unit, size: int) -> None:
        """One hypothesis run of `size` draws on this operator version, seeded by (seed, version,
        chunk): a find ends it, shrunk, and is written."""
        from hypothesis import HealthCheck, Phase, Verbosity, given, settings
        from hypothesis import seed as seeded
        from hypothesis import strategies as st

        digest = hashlib.sha256(f"{self.seed}|{unit.label}|{unit.chunks}".encode()).digest()
        self._chunk_best = {}

        @settings(database=None, max_examples=size, deadline=None, derandomize=False,
                  phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
                  report_multiple_bugs=False, verbosity=Verbosity.quiet, print_blob=False)
        @seeded(int.from_bytes(digest[:8], "little"))
        @given(st.data())
        def search(data):
            self._draw(unit, data)

        winner = None
        try:
            search()
        except Found as f:
            winner = f.candidate
        except OutOfTime:
            winner = self._latest()
            if winner is not None:
                winner.shrunk = False
        except Exception as e:  # noqa: BLE001 - hypothesis's own verdicts: flaky, unsatisfiable, a group
            from hypothesis.errors import Unsatisfiable

            winner = _first_found(e) or self._latest()
            if winner is None and not isinstance(e, Unsatisfiable):
                self._problem(unit, e)  # the harness's own error, shown in the summary, never a find
        if winner is not None:
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

        from onnx_conformance.harness.strategies.common import bindings

        op, v = unit.op, unit.v
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
            if self._out_of_time():
                raise OutOfTime()
            verdict = self.memo[probe.name] = self.judge.judge(probe)
            unit.ran += 1
            unit.statuses[verdict.result["status"]] += 1
            self._progress()
        if verdict.declined is not None:
            unit.declined.setdefault((opset, binding), verdict.declined)
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


def _first_found(e: BaseException) -> Candidate | None:
    if isinstance(e, Found):
        return e.candidate
    for inner in getattr(e, "exceptions", ()) or ():
        found = _first_found(inner)
        if found is not None:
            return found
    cause = e.__cause__ or e.__context__
    return _first_found(cause) if cause is not None and cause is not e else None


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
