"""Grading against the baseline, case by case: pytest's outcome for each result, as the gate (harness/expectations.py) sees it."""

from __future__ import annotations

from onnx_conformance.harness import expectations as baseline
from onnx_conformance.harness.results import new_result
from onnx_conformance.harness.statuses import ANY_OUTCOME_ENTRIES, DECLINED, NOT_RUN_ENTRIES, PASS, SUCCESS, graded


class Grader:
    """The baseline's entries (None: no expectations file) and the run's --update-expectations,
    --allow-fixes and --strict. `expectations` may be replaced as the run ends (--update-expectations)."""

    def __init__(self, expectations: dict[str, baseline.Expectation] | None, *, updating: bool,
                 allow_fixes: bool, strict: bool):
        self.expectations = expectations
        self.updating = updating
        self.allow_fixes = allow_fixes
        self.strict = strict
        self.accepted: frozenset | None = None  # statuses a case with no baseline entry may have

    def grade(self, result: dict) -> tuple[str, str | None, dict | None]:
        """pytest's outcome for a case's result, as the gate sees it: ("passed", None, None);
        ("skipped" or "xfailed", the reason, None); or ("failed", None, the result to report).
        A status its baseline entry expects is an expected failure (no FAILED block); a pass the
        baseline does not expect fails as a strict XPASS unless --allow-fixes; only regressions fail."""
        status = graded(result)  # an order-dependent case: the status it got alone
        entry = (self.expectations or {}).get(result["case"])
        # --update-expectations rewrites the baseline from this run: every outcome is the expected one.
        expected = self.updating or (entry is not None and (status == entry.status
                                                            or entry.status in ANY_OUTCOME_ENTRIES))
        if not expected and entry is not None and baseline.is_fix(status, entry):
            if self.allow_fixes:
                return "passed", None, None
            what = "passed" if status == PASS else f"{status} ({result.get('detail') or ''})"
            return "failed", None, dict(result, detail=(
                f"XPASS(strict): {what}, but the baseline expects {entry.status} ({entry.reason}); "
                f"--allow-fixes accepts it, --update-expectations "
                f"{'removes the entry' if status == PASS else 'records it'}"))
        if self.accepted is None:
            self.accepted = baseline.accepted(self.expectations, self.strict)
        # a pass, or a warn the run accepts, is a pass to pytest (JUnit's status property keeps the warn)
        if status in SUCCESS or (entry is None and status in self.accepted and status not in DECLINED):
            return "passed", None, None
        if status in DECLINED and (expected or (entry is None and status in self.accepted)):
            return "skipped", f"{status}: {result.get('detail') or ''}", None
        if expected:
            why = entry.reason if entry is not None and entry.reason else result.get("detail") or ""
            return "xfailed", f"{status}, as the baseline expects: {why}", None
        return "failed", None, result

    def listed_skip(self, case) -> dict | None:
        """The result of a case its baseline entry says not to run (a `skip` entry), else None."""
        entry = (self.expectations or {}).get(case.name)
        if entry is not None and entry.status in NOT_RUN_ENTRIES:
            return new_result(case, status=entry.status, seconds=0.0,
                              detail=entry.reason or "listed as skip in the expectations")
        return None


def failure_text(result: dict, reproduce: str) -> str:
    """A regression as the terminal and junit.xml show it: what, then how to run it again."""
    version = result.get("since_version") or result.get("opset")
    op = result.get("op")
    where = " ".join(str(x) for x in (f"{op}-{version}" if version else op, result.get("dtype"),
                                      result.get("example")) if x)
    said = result.get("stderr")  # the backend's last lines on an error, crash or timeout
    said = "".join(f"\n  {line}" for line in said.splitlines()) if said else ""
    said = f"\nwhat the backend wrote last (stdout, stderr):{said}" if said else ""
    return f"{where}: {result['status']}: {result.get('detail')}{said}\nreproduce: {reproduce}"
