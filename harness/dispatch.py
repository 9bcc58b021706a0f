"""N executor processes working through the cases ahead of pytest, in the order pytest runs them.

pytest runs one item at a time; each item only collects its case's result. The executors are fed
in batches (Executor.submit) and kept DEPTH cases ahead, so a child never waits for the pytest
process between cases and the pytest process never waits for a thread: everything here runs in
pytest's own thread, which reads whatever results have come in each time an item asks for one, and
blocks only when the one it needs is not there yet. One pytest process, no xdist: a case costs its
executor's work plus pytest's reporting of it, instead of a report crossing between processes per
case (measured in the README, `python bench/bench_run.py`).
"""

from __future__ import annotations

import collections
import math
import select
import time
from multiprocessing.connection import wait
from typing import Callable

from onnx_conformance.harness.corpus import Case
from onnx_conformance.harness.executor import Executor
from onnx_conformance.harness.rerun import with_reruns

# Cases sent to an executor in one message, and how many it holds before it is sent more: enough
# that it never runs dry while pytest reports, few enough that -x or Ctrl-C wastes little.
BATCH = 8
DEPTH = 24


class Dispatch:
    def __init__(self, cases: list[Case], workers: int, make_executor: Callable[[], Executor],
                 spare: Executor | list[Executor] | None = None, reruns: int = 0,
                 idle: Callable[[], None] | None = None):
        """`make_executor` builds an executor not yet started; `spare` is one already started (or
        launched), or several; `reruns` is --rerun-failures; `idle` runs each time before the run
        waits for a result (results.jsonl writes its batch then)."""
        self._plan = collections.deque(cases)  # not yet handed to an executor, in run order
        self._planned = {c.name for c in cases}
        self._ready: dict[str, tuple[dict, Executor]] = {}  # answered, not yet asked for
        self._reruns = reruns
        self._idle = idle
        # One poll object for the whole run (multiprocessing's wait builds a selector per call),
        # watching the file descriptors of the executors that have cases out.
        self._poller = select.poll() if hasattr(select, "poll") else None
        self._polled: set[int] = set()
        spares = [spare] if isinstance(spare, Executor) else list(spare or [])
        wanted = max(1, min(workers, len(cases)))
        self.executors: list[Executor] = spares[:wanted]
        for extra in spares[wanted:]:
            extra.close()
        while len(self.executors) < wanted:
            executor = make_executor()
            executor.launch()  # they load side by side, while the first cases already run
            self.executors.append(executor)
        self._feed()

    def replan(self, cases: list[Case]) -> None:
        """The cases the run asks for after all, in its order (the plan was made before pytest
        collected, deselected or reordered its items): the ones already handed to an executor keep
        their place; the rest wait in this order; answers for cases no longer asked for are dropped."""
        waiting = {c.name for c in self._plan}
        handed = self._planned - waiting
        self._plan = collections.deque(c for c in cases if c.name not in handed)
        self._planned = {c.name for c in cases}
        for name in [n for n in self._ready if n not in self._planned]:
            del self._ready[name]
        self._feed()

    def pump(self) -> None:
        """Take in the results that have come and keep every executor fed, without waiting: for the
        pytest process to call while it is busy elsewhere (collecting), so the executors work on."""
        self._pump(block=False)

    def result(self, case: Case) -> dict | None:
        """The case's result, waiting for it; None if the case was never planned here."""
        if case.name not in self._planned:
            return None
        while case.name not in self._ready:
            self._pump(block=True)
        self._planned.discard(case.name)
        first, executor = self._ready.pop(case.name)
        self._pump(block=False)  # keep every executor fed before pytest reports this one
        if self._reruns <= 0:
            return first
        return with_reruns(lambda c: self._again(executor, c), case, first, self._reruns)

    def _again(self, executor: Executor, case: Case) -> dict:
        """A rerun, in the executor that ran the case first (a flaky runtime is flaky in-process),
        after the cases already queued on it."""
        name = case.name
        executor.submit([case])
        self._planned.add(name)
        try:
            while name not in self._ready:
                self._pump(block=True)
        finally:
            self._planned.discard(name)
        return self._ready.pop(name)[0]

    def _feed(self) -> None:
        """Top every executor up to DEPTH cases, a batch at a time, round robin in run order."""
        while self._plan:
            hungry = [e for e in self.executors if len(e.pending) <= DEPTH - BATCH]
            if not hungry:
                return
            for executor in hungry:
                if not self._plan:
                    return
                batch = [self._plan.popleft() for _ in range(min(BATCH, len(self._plan)))]
                executor.submit(batch)

    def _pump(self, block: bool) -> None:
        """Take in every result that has come; with `block`, first wait for at least one (or for
        the nearest deadline, when a case has hung or an executor has not started)."""
        if block:
            if self._idle is not None:
                self._idle()
            deadlines = [d for d in (e.deadline() for e in self.executors) if d is not None]
            watched = [e.connection for e in self.executors if e.pending and e.connection is not None]
            if watched or deadlines:
                timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
                self._wait(watched, timeout)
        for executor in self.executors:
            for message, result in executor.collect():
                if message["name"] in self._planned:  # not a case replan() took out of the run
                    self._ready[message["name"]] = (result, executor)
        self._feed()

    def _wait(self, connections: list, timeout: float | None) -> None:
        """Until one of `connections` has something to read, or `timeout` seconds have passed."""
        if self._poller is None:
            wait(connections, timeout)
            return
        fds = {c.fileno() for c in connections}
        for fd in self._polled - fds:
            self._poller.unregister(fd)
        for fd in fds - self._polled:
            self._poller.register(fd, select.POLLIN)
        self._polled = fds
        # Rounded up: a deadline is not woken for early, only to find it has not passed yet.
        self._poller.poll(None if timeout is None else math.ceil(timeout * 1000))

    def close(self) -> None:
        """Stop: cases not started are dropped; cases in flight end with their executors, killed;
        then every executor is closed."""
        self._plan.clear()
        for executor in self.executors:
            if executor.pending:
                executor.terminate()
            else:
                executor.ask_to_exit()  # all of them before waiting for any
        for executor in self.executors:
            executor.close()
