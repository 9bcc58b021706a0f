"""The baseline gate: a committed list of known non-passing cases decides the exit code.

The file (deqp-runner style) has one line per case, `case_name,status,reason`; `#` starts a
comment line. `status` is one of the status words; `skip` entries are not run at all (a case
known to hang or to take the machine down); a `flaky` entry accepts whatever the case does. An
`order-dependent` case is graded by the status it got alone (statuses.graded), so no entry names that status.
The reason is free text and may hold commas.

Exit codes of run-conformance:
    0  nothing regressed: every case has its expected status, or (no entry) passed, was
       skipped, warned (not with --strict) or, with no expectations file, unsupported; with
       --allow-fixes also when an expected failure now passes or only warns
    1  regressions: a status differs from the entry (an unexpected pass counts unless
       --allow-fixes); without an expectations file, any fail, error, crash or timeout
    2  usage or setup error (unknown backend, bad option, unreadable corpus or expectations
       file, reports that could not be written), or the run was interrupted before it finished
    3  nothing ran: no case was selected, or every case was skipped or unsupported
Entries naming cases that are not in the corpus are reported as stale; they do not fail the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from onnx_conformance.harness import statuses
from onnx_conformance.harness.statuses import BY_WORD, PASS, STATUSES

OK, REGRESSED, SETUP_ERROR, NOTHING_RAN = 0, 1, 2, 3
HEADER = "# case,status,reason  (run-conformance --update-expectations; harness/expectations.py)"


class ExpectationsError(Exception):
    """The expectations file cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class Expectation:
    case: str
    status: str
    reason: str = ""


def load(path: Path) -> dict[str, Expectation]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ExpectationsError(f"cannot read expectations {path}: {e.strerror or e}") from e
    entries: dict[str, Expectation] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(",", 2)]
        if len(parts) < 2 or not parts[0]:
            raise ExpectationsError(
                f"{path}:{number}: expected 'case_name,status,reason', got {line!r}")
        case, status = parts[0], parts[1]
        if status not in STATUSES:
            raise ExpectationsError(
                f"{path}:{number}: status {status!r} is not one of {', '.join(STATUSES)}")
        if BY_WORD[status].graded_alone:
            raise ExpectationsError(
                f"{path}:{number}: {status!r} is never an entry: the gate grades such a case by its status "
                f"alone (its result's 'alone'); list that status")
        if case in entries:
            raise ExpectationsError(f"{path}:{number}: {case} is listed twice")
        entries[case] = Expectation(case, status, parts[2] if len(parts) > 2 else "")
    return entries


def dump(entries: dict[str, Expectation]) -> str:
    """Sorted and free of run-to-run noise, so a re-baseline diff shows only real changes."""
    lines = [HEADER]
    for case in sorted(entries):
        e = entries[case]
        reason = " ".join(e.reason.split())
        lines.append(f"{e.case},{e.status},{reason}" if reason else f"{e.case},{e.status}")
    return "\n".join(lines) + "\n"


def updated(results: list[dict], previous: dict[str, Expectation],
            corpus: set[str] | None) -> dict[str, Expectation]:
    """Entries for this run's non-passing cases; entries of cases this run did not select stay
    (a `-k` run re-baselines only what it ran), entries of cases gone from the corpus go. A `flaky`
    entry is a person's judgement that one run cannot overturn (deqp-runner's flakes list): it stays."""
    ran = {r["case"] for r in results}
    entries = {c: e for c, e in previous.items()
               if (c not in ran or _judged(e)) and (corpus is None or c in corpus)}
    for r in results:
        status = statuses.graded(r)  # an order-dependent case: the status it got alone
        if status != PASS and not _judged(entries.get(r["case"])):
            entries[r["case"]] = Expectation(r["case"], status, r.get("detail") or "")
    return entries


@dataclass
class Verdict:
    exit_code: int
    ran: int = 0
    regressions: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    note: str | None = None
    # {(the status the baseline expects, the status the case got): regressions}, most first
    changes: dict[tuple[str, str], int] = field(default_factory=dict)

    def one_change(self) -> tuple[str, str] | None:
        """(expected, got) when every regression is that same change of status (error -> unsupported
        after a change to an adapter's classify), else None."""
        return next(iter(self.changes)) if len(self.changes) == 1 else None

    def changes_text(self) -> str:
        """The regressions counted by change of status: '79 error -> unsupported, 2 pass -> fail'."""
        return ", ".join(f"{n} {was} -> {got}" for (was, got), n in self.changes.items())

    def lines(self, regressions: bool = True) -> list[str]:
        """The gate's findings, a line each (`regressions`: with a line per regression)."""
        out = [f"REGRESSION {line}" for line in self.regressions] if regressions else []
        out += [f"FIXED {line}" for line in self.fixes]
        out += [f"STALE {line}" for line in self.stale]
        if self.note:
            out.append(self.note)
        return out


def _judged(entry: Expectation | None) -> bool:
    """An entry no run overturns: one that accepts any outcome (a `flaky` entry)."""
    row = BY_WORD.get(entry.status) if entry is not None else None
    return row is not None and row.entry_accepts_any


def accepted(expectations: dict | None, strict: bool = False) -> frozenset:
    """The statuses a case with no entry may have (statuses.TABLE: first_run_ok, baseline_ok, strict_fails)."""
    return statuses.accepted(expectations is None, strict)


def is_fix(got: str, entry: Expectation) -> bool:
    """The case does better than its entry says: it passes, or it now misses only marked values."""
    return statuses.is_fix(got, entry.status)


def evaluate(results: list[dict], expectations: dict[str, Expectation] | None,
             corpus: set[str] | None = None, allow_fixes: bool = False, strict: bool = False) -> Verdict:
    """Compare each result with its entry (or 'pass' when there is none); pick the exit code."""
    verdict = Verdict(OK, ran=len(results))
    unlisted_ok = accepted(expectations, strict)
    changes: dict[tuple[str, str], int] = {}
    for r in sorted(results, key=lambda r: r["case"]):
        case, got, detail = r["case"], statuses.graded(r), r.get("detail")
        why = f" ({detail})" if detail else ""
        entry = expectations.get(case) if expectations is not None else None
        if entry is None:
            if got not in unlisted_ok:
                verdict.regressions.append(f"{case}: got {got}, expected pass{why}")
                changes[PASS, got] = changes.get((PASS, got), 0) + 1
        elif statuses.entry_accepts(entry.status, got):
            continue  # a flaky entry (deqp-runner's flakes list) accepts any outcome
        elif is_fix(got, entry):
            verdict.fixes.append(f"{case}: {'passed' if got == PASS else got}, expected {entry.status}"
                                 + (f" ({entry.reason})" if entry.reason else "")
                                 + "; remove the entry or run with --update-expectations")
        else:
            verdict.regressions.append(f"{case}: got {got}, expected {entry.status}{why}")
            changes[entry.status, got] = changes.get((entry.status, got), 0) + 1
    verdict.changes = dict(sorted(changes.items(), key=lambda kv: (-kv[1], kv[0])))
    if expectations is not None and corpus is not None:
        verdict.stale = [f"{c}: listed as {e.status} but no such case in the corpus"
                         for c, e in sorted(expectations.items()) if c not in corpus]

    if not results:
        verdict.exit_code, verdict.note = NOTHING_RAN, "NOTHING RAN: no case was selected"
    elif all(r["status"] in statuses.DECLINED for r in results):
        verdict.exit_code = NOTHING_RAN
        verdict.note = f"NOTHING RAN: all {len(results)} case(s) were skipped or unsupported"
    elif verdict.regressions or (verdict.fixes and not allow_fixes):
        verdict.exit_code = REGRESSED
    return verdict
