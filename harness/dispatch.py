"""N executor processes working through the cases ahead of pytest, in the order pytest runs them.

pytest runs one item at a time; each item only collects its case's result. Meanwhile N threads,
each owning one Executor (one isolated child process), take the cases in run order, so N
cases are in flight while pytest reports the last one. One pytest process, no xdist: a case costs
its executor's work plus about a millisecond of pytest, instead of a report crossing between
processes per case (measured in the README, `python bench/bench_run.py`).
"""

from __future__ import annotations

import signal
import threading
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from typing import Callable

from onnx_conformance.harness.corpus import Case
from onnx_conformance.harness.executor import Executor


class Dispatch:
    def __init__(self, cases: list[Case], workers: int, make_executor: Callable[[], Executor],
                 run: Callable[[Executor, Case], dict], spare: Executor | None = None):
        self._make = make_executor
        self._spare = [spare] if spare is not None else []  # already started: the first thread takes it
        self._run = run
        self._local = threading.local()
        self._executors: list[Executor] = []
        self._lock = threading.Lock()
        self._stopping = False
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="conformance",
                                        initializer=_signals_to_the_main_thread)
        # Submitted in run order; the pool's queue is FIFO, so the cases start in that order.
        self._futures: dict[str, Future] = {c.name: self._pool.submit(self._one, c) for c in cases}

    def _one(self, case: Case) -> dict:
        if self._stopping:
            raise CancelledError()
        executor = getattr(self._local, "executor", None)
        if executor is None:
            with self._lock:
                executor = self._spare.pop() if self._spare else None
            executor = self._local.executor = executor or self._make()
            with self._lock:
                self._executors.append(executor)
        return self._run(executor, case)

    def result(self, case: Case) -> dict | None:
        """The case's result, waiting for it; None if the case was never handed to the pool."""
        future = self._futures.pop(case.name, None)
        return None if future is None else future.result()

    def close(self) -> None:
        """Stop: cases not started are dropped; if the run was cut short, the cases in flight end
        with their executors, killed; then every executor is closed."""
        self._stopping = True
        unfinished = any(not f.done() for f in self._futures.values())
        for future in self._futures.values():
            future.cancel()
        with self._lock:
            executors = list(self._executors)
        if unfinished:
            for executor in executors:
                executor.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)
        for executor in executors:  # no thread uses them now
            executor.close()


def _signals_to_the_main_thread() -> None:
    """Ctrl-C and SIGTERM must reach pytest's thread, and wait while it holds them blocked to write
    a record whole (results.py): a thread that does not block them would take them instead."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
