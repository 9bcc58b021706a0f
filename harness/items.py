"""The corpus as pytest sees it: a collector per operator, an item per case, each item's outcome the run's grading of its result."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from onnx_conformance.harness.corpus import Case
from onnx_conformance.harness.fastpath import new_item, plain_item
from onnx_conformance.harness.results import OPTIONAL_MEASURED

PLUGIN_NAME = "conformance"
# The user_property that carries a result from an xdist worker to the controller (junit.xml,
# written from the results, carries a case's status only: harness/junit.py).
PROPERTY = "conformance"
# What the controller cannot rebuild from its own copy of the corpus, so the only fields carried.
CARRIED = ("status", "stage", "detail", "max_abs_err", "max_rel_err", "max_ulp", "mismatches",
           "first_bad_index", "seconds", *OPTIONAL_MEASURED)


class CaseFailed(Exception):
    def __init__(self, result: dict):
        super().__init__(result.get("detail"))
        self.result = result


class Corpus(pytest.Directory):
    """The --cases directory: yields one collector per operator, so progress reads per operator."""

    def collect(self):
        groups = collected_groups(self.config.pluginmanager.get_plugin(PLUGIN_NAME).run)
        for op in sorted(groups):
            group = OpGroup.from_parent(self, name=op, nodeid=op)
            group.cases = groups[op]
            yield group


class OpGroup(pytest.Collector):
    cases: list[Case]

    def collect(self):
        root = str(self.config.rootpath) + os.sep
        make = plain_item if self.config.pluginmanager.get_plugin(PLUGIN_NAME).fast is None else new_item
        for case in self.cases:
            item = make(CaseItem, self, case, root)  # nodeid: Op::case
            item.case = case
            # `-k bfloat16` or `-k opset13` selects by fact even where the case name omits it.
            item.extra_keyword_matches.update(
                str(v) for v in (case.dtype, case.opset and f"opset{case.opset}", case.kind) if v)
            yield item


class CaseItem(pytest.Item):
    case: Case

    @property
    def ihook(self):
        fast = self.config.pluginmanager.get_plugin(PLUGIN_NAME).fast
        return super().ihook if fast is None else fast.item_hook(self)

    def runtest(self) -> None:
        state = self.config.pluginmanager.get_plugin(PLUGIN_NAME)
        # run and graded already when the run's own loop saw that its outcome is one pytest reports in full
        ran = self.__dict__.pop("ran", None)
        result, graded = ran if ran is not None else (state.execute(self.case), None)
        if not state.is_worker:
            state.answered[self.nodeid] = result
        carried = {k: result[k] for k in CARRIED if result.get(k) is not None}
        self.user_properties.append((PROPERTY, json.dumps(carried, separators=(",", ":"))))
        self.status = result["status"]
        outcome, reason, failure = graded or state.grade(result)
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


def collected_groups(run) -> dict[str, list[Case]]:
    """This run's cases (a run.Run's) by the collector they sit in (this shard's, these operators'), in corpus order."""
    groups: dict[str, list[Case]] = {}
    for case in run.cases.values():
        if run.selected is not None and case.name not in run.selected:
            continue  # another shard's case
        if run.ops and case.op not in run.ops:
            continue
        groups.setdefault(group_of(case.op, case.domain), []).append(case)
    return groups


def group_of(op: str | None, domain: str | None) -> str:
    """The collector a case's item sits in, and its junit classname: the operator, domain-qualified
    outside ai.onnx."""
    op = op or "unknown"
    return f"{domain}.{op}" if domain else op
