"""Where a whole-corpus run's time goes, phase by phase: the pytest process's wall and CPU time
from start to each of pytest's milestones, the time its garbage collector took in each phase, and
the executors' CPU in all.

    python bench/bench_run_phases.py [run-conformance arguments]
    python bench/bench_run_phases.py --cases cases -n 2 -q --report-dir /tmp/r \
        --expectations reports/onnxruntime/expectations.txt

Runs run-conformance in this process with this module as an extra pytest plugin and prints one
line per phase. The plugin hears no item's report (a plugin that did would make the run report
every case through pytest's own protocol, as it does for any such listener). The phases before the first case and after the last one run in this process
alone, beside executors that have nothing to do: on 2 cores with 2 executors they are what the
run adds to its cases' own time.
"""

from __future__ import annotations

import gc
import resource
import sys
import time

import pytest

_marks: list[tuple[str, float, float, float]] = []  # (milestone, wall, this process's CPU, gc seconds)
_gc = {"seconds": 0.0, "collections": 0, "since": 0.0}


def _on_gc(phase: str, info: dict) -> None:
    if phase == "start":
        _gc["since"] = time.perf_counter()
    else:
        _gc["seconds"] += time.perf_counter() - _gc["since"]
        _gc["collections"] += 1


def _mark(what: str) -> None:
    _marks.append((what, time.perf_counter(), time.process_time(), _gc["seconds"]))


@pytest.hookimpl(trylast=True)
def pytest_configure(config) -> None:
    _mark("pytest configured")


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session) -> None:
    _mark("executors launched, index read")


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session) -> None:
    _mark("items built")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session) -> None:
    _mark("cases run")


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter) -> None:
    _mark("reports written")


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config) -> None:
    _mark("pytest shut down")


def main(argv: list[str]) -> int:
    from onnx_conformance.harness import cli

    gc.callbacks.append(_on_gc)
    _mark("start")
    rc = cli.main([*argv, "-p", __name__], exiting=True)  # as the command runs it
    _mark("returned")
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    start_wall, start_cpu = _marks[0][1], _marks[0][2]
    print(f"{'milestone':<28}{'wall s':>8}{'+wall':>8}{'CPU s':>8}{'+CPU':>8}{'+gc':>8}", file=sys.stderr)
    previous = _marks[0]
    for what, wall, cpu, gcs in _marks:
        print(f"{what:<28}{wall - start_wall:8.2f}{wall - previous[1]:8.2f}{cpu - start_cpu:8.2f}"
              f"{cpu - previous[2]:8.2f}{gcs - previous[3]:8.2f}", file=sys.stderr)
        previous = (what, wall, cpu, gcs)
    print(f"exit {rc}; {_gc['collections']} collections; executors "
          f"{children.ru_utime + children.ru_stime:.1f} s CPU", file=sys.stderr)
    return rc


if __name__ == "__main__":  # the executors are spawned: they import this module again
    sys.exit(main(sys.argv[1:]))
