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
import os
import select
import threading
import time
from multiprocessing.connection import wait
from typing import Callable

from onnx_conformance.harness.corpus import Case
from onnx_conformance.harness.executor import Executor
from onnx_conformance.harness.rerun import with_reruns

# Cases sent to an executor in one message, and how many it holds before it is sent more: enough
# that it never runs dry while pytest reports, few enough that -x or Ctrl-C wastes little (~35 ms
# of quick cases). An executor checks a batch's models back to back before its first case runs:
# 32 to a batch ran the whole corpus 0.8 s faster than 8 (A/B, four pairs; README).
BATCH = 32
DEPTH = 96
NAP, NAPS = 0.001, 0.02  # seconds: a nap between looks for answers, and the naps' total before waiting


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
        self._thread: threading.Thread | None = None  # work_ahead()'s
        self._thread_error: BaseException | None = None
        self._stop: tuple[int, int] | None = None  # the pipe that stops it
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

    def work_ahead(self) -> None:
        """Keep the executors fed from a thread of this process until stop_working_ahead(): for
        while the pytest process builds and sorts its items, when nothing else touches this
        dispatch. The thread waits on the executors' answers (holding no lock while it waits)."""
        if self._thread is not None:
            return
        self._stop = os.pipe()
        self._thread = threading.Thread(target=self._work_ahead, name="conformance-work-ahead", daemon=True)
        self._thread.start()

    def stop_working_ahead(self) -> None:
        """Stop the thread work_ahead() started, once it has taken in what has come; an error it
        met is raised here."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        os.write(self._stop[1], b"x")
        thread.join()
        for fd in self._stop:
            os.close(fd)
        self._stop = None
        error, self._thread_error = self._thread_error, None
        if error is not None:
            raise error

    def _work_ahead(self) -> None:
        stop = self._stop[0]
        try:
            while True:
                self._pump(block=True, stop=stop)
                if self._stopping(stop):
                    return
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            self._thread_error = e

    @staticmethod
    def _stopping(fd: int) -> bool:
        ready, _, _ = select.select([fd], [], [], 0)
        return bool(ready)

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

    def _pump(self, block: bool, stop: int | None = None) -> None:
        """Take in every result that has come; with `block`, first wait for at least one (or for
        the nearest deadline, when a case has hung or an executor has not started, or for a byte on
        `stop`, the work-ahead thread's stop signal)."""
        if block:
            if self._idle is not None and stop is None:
                self._idle()
            deadlines = [d for d in (e.deadline() for e in self.executors) if d is not None]
            watched = [e.connection for e in self.executors if e.pending and e.connection is not None]
            if watched or deadlines or stop is not None:
                timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
                self._wait(watched, timeout, stop)
        for executor in self.executors:
            for message, result in executor.collect():
                if message["name"] in self._planned:  # not a case replan() took out of the run
                    self._ready[message["name"]] = (result, executor)
        self._feed()

    def _wait(self, connections: list, timeout: float | None, stop: int | None = None) -> None:
        """Until one of `connections` (or the file descriptor `stop`) has something to read, or
        `timeout` seconds have passed."""
        if self._poller is None:
            wait([*connections, *([stop] if stop is not None else [])], timeout)
            return
        fds = {c.fileno() for c in connections} | ({stop} if stop is not None else set())
        for fd in self._polled - fds:
            self._poller.unregister(fd)
        for fd in fds - self._polled:
            self._poller.register(fd, select.POLLIN)
        self._polled = fds
        if self._poller.poll(0):
            return
        # Answers come every few hundred microseconds while cases are quick: sleeping a little
        # and then taking in all that came costs one wake-up for several of them, where waiting on
        # the connections costs one per answer in this process and in the executor that sends it.
        # A case that takes long is waited on as before, once the naps have found nothing.
        napped = 0.0
        while napped < NAPS and (timeout is None or napped < timeout):
            time.sleep(NAP)
            napped += NAP
            if self._poller.poll(0):
                return
        if timeout is not None:
            timeout = max(0.0, timeout - napped)
        # Rounded up: a deadline is not woken for early, only to find it has not passed yet.
        self._poller.poll(None if timeout is None else math.ceil(timeout * 1000))

    def close(self) -> None:
        """Stop: cases not started are dropped; cases in flight end with their executors, killed;
        then every executor is closed."""
        self._plan.clear()
        try:
            self.stop_working_ahead()
        except Exception:  # noqa: BLE001 - stopping: the executors are closed below all the same
            pass
        for executor in self.executors:
            if executor.pending:
                executor.terminate()
            else:
                executor.ask_to_exit()  # all of them before waiting for any
        for executor in self.executors:
            executor.close()
