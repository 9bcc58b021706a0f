"""What an explore-cases search keeps: each operator version's tally (Unit), each interesting draw
(Candidate), and the exceptions that carry a find or a stop out of hypothesis's run."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from onnx_conformance.harness.explore_cases import Probe

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
    pairs: int = 0  # the (opset, type binding) pairs its draws can take: all declined, the version leaves
    first_problem: str | None = None  # a strategy's own error, shown in the summary

    @property
    def label(self) -> str:
        return f"{self.op.name}-{self.v.since_version}"

    @property
    def all_declined(self) -> bool:
        return 0 < self.pairs <= len(self.declined)


@dataclass
class Candidate:
    """A drawn case that is interesting: the probe, the verdict, and what it is an instance of."""

    unit: Unit
    probe: Probe
    verdict: object  # explore_verdicts.Verdict: its key is what kind of find this is
    shrunk: bool = True
    seen: tuple = ()  # (inputs run, seconds) when the search first met this kind of find
    resumed: tuple = ()  # (inputs run, seconds) when its shrinking began, where it waited for the first round's end
    done: tuple = ()  # (inputs run, seconds) when it was written, shrunk


class Found(Exception):
    """Raised inside hypothesis's test function for an interesting draw; a subclass per key, so
    hypothesis tells a crash from a wrong value."""

    def __init__(self, candidate: Candidate):
        super().__init__(candidate.verdict.key)
        self.candidate = candidate


class Stop(BaseException):
    """The budget is spent, or Ctrl-C asked the search to stop: leaves hypothesis's run at once (a
    BaseException, so not a failure)."""


class AllDeclined(BaseException):
    """The backend declined every (opset, type binding) pair of the version: nothing left to draw."""


_FOUND: dict[str, type] = {}


def found_class(key: str) -> type:
    if key not in _FOUND:
        _FOUND[key] = type(f"Found_{''.join(c if c.isalnum() else '_' for c in key)}", (Found,), {})
    return _FOUND[key]


def first_found(e: BaseException) -> Candidate | None:
    """The find an exception hypothesis raised carries: its own, a group's first, or its cause's."""
    if isinstance(e, Found):
        return e.candidate
    for inner in getattr(e, "exceptions", ()) or ():
        found = first_found(inner)
        if found is not None:
            return found
    cause = e.__cause__ or e.__context__
    return first_found(cause) if cause is not None and cause is not e else None


def pairs_of(op, v, dtypes: set) -> int:
    """How many (opset, type binding) pairs v's draws can take: its opsets times every combination of
    the types its free parameters allow (a tied one follows the parameter it is drawn from:
    strategies/bindings.py), the primary one's within --dtype."""
    from onnx_conformance.harness.strategies.bindings import ties

    n = len(v.opsets)
    params = v.type_params
    primary = op.primary_param(v) if params else None
    tied = ties(v)
    for p, allowed in params.items():
        if p not in tied:
            n *= len([a for a in allowed if p != primary or not dtypes or a in dtypes])
    return n
