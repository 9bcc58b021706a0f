"""Runs cases in a persistent child process, so a backend that aborts or hangs costs one case: the process and its protocol, from the parent's side."""

from __future__ import annotations

import collections
import marshal
import multiprocessing
import multiprocessing.connection
import os
import select
import signal
import tempfile
import time
from typing import NamedTuple

from onnx_conformance.harness import case_files
# What the child runs (executor_child.serve); the verdict on each case is verdict.run_case's. Here,
# the process from the outside: start it, feed it, read its answers, and what its death or silence
# becomes. The child's stage (verdict.IDLE, LOAD, ...) sits in shared memory this side reads.
from onnx_conformance.harness.executor_child import TAIL_BYTES, last_lines, memory_detail, serve
from onnx_conformance.harness.results import measured_result, new_result
from onnx_conformance.harness.statuses import CRASH, ERROR, RERUN, TIMEOUT
from onnx_conformance.harness.verdict import DETAIL_LIMIT, IDLE, STAGE_NAMES, run_case  # noqa: F401 - run_case, DETAIL_LIMIT: read from here too

GRACE_SECONDS = 0.5
# Where the backend may run out of memory in a way that does not raise MemoryError in Python.
_OUT_OF_MEMORY = ("MemoryError", "bad_alloc", "Cannot allocate memory", "out of memory")


def _message(case) -> dict:
    """What travels to the child for a case: a corpus.Case's fields (a shallow copy: pickling
    copies the rest, where Case.as_message's asdict deep-copies every case twice), or a dict."""
    return dict(vars(case)) if hasattr(case, "as_message") else dict(case)


class Earlier(NamedTuple):
    """The cases a process ran before a given one: how many, the first, the last, and which process."""

    count: int
    first: str
    previous: str
    process: tuple


class BackendUnavailable(Exception):
    """The backend could not be imported or constructed; the message is one line for the user."""


def describe_exit(exitcode: int | None) -> str:
    if exitcode is None:
        return "did not exit"
    if exitcode < 0:
        try:
            return f"died with {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"died with signal {-exitcode}"
    return f"exited with code {exitcode}"


# ---------------------------------------------------------------------------------------------
# In the pytest process


class Executor:
    """One child process holding one adapter; restarted after a crash or a timeout.

    Cases go to the child in batches (`submit`) and come back one result each, in order
    (`collect`), so the child never waits on the parent between cases. Each case keeps its own
    timeout (counted from when the case before it answered), crash and memory-limit verdicts: a
    case that kills or hangs the child is that case's result, and the cases queued behind it are
    sent again to a fresh child. `run` is one case, waited for.
    """

    def __init__(self, backend: str, options: dict[str, str] | None = None,
                 timeout: float = 60.0, start_timeout: float | None = None,
                 memory_limit: int | None = case_files.DEFAULT_MEMORY_LIMIT):
        self.backend = backend
        self.memory_limit = memory_limit or None  # bytes the child may use; None: no limit
        self.options = dict(options or {})
        self.timeout = timeout
        self.start_timeout = start_timeout if start_timeout is not None else max(60.0, timeout)
        self.info: dict | None = None
        self._proc = None
        self._conn = None
        self._poller = None  # select.poll on _conn: an answer waiting, without a selector per look
        self._stage = None
        self._working = None  # which case the child is on, counted in answers (serve's `sent`)
        self._answered = 0  # answers taken in from this child: the cases it ran, each before the next
        self._first = self._previous = None  # the names of the first and the last of them
        # With `remember` (--confirm): {case: Earlier} for each case answered with a status a rerun may not
        # repeat (statuses.RERUN) after at least one other; harness/confirm.py takes each out (earlier_than).
        self.remember = False
        self._earlier: dict[str, Earlier] = {}
        self._launches = 0  # children started: with id(self), which process ran a case
        self._tail: _Tail | None = None  # the child's stdout/stderr, for its last words
        self._stopped = False
        self._inbox, self._at, self._closed = bytearray(), 0, False
        self._asked = False
        self._launched = 0.0  # when the child was started; until it is ready, its deadline counts from here
        self.pending: collections.deque = collections.deque()  # sent, not yet answered, in order
        self._since = 0.0  # when the first pending case began (as near as the parent can tell)
        self._done: list[tuple[dict, dict]] = []  # answered without the child (it could not start)

    # -- starting ------------------------------------------------------------------------------

    def start(self) -> dict:
        """Start the child (unless launched already) and wait for the adapter; BackendUnavailable
        says why it failed."""
        if self._proc is None:
            self.launch()
        return self._handshake()

    def launch(self) -> None:
        """Start the child without waiting for it; cases submitted meanwhile wait in its pipe."""
        if self._stopped:
            raise BackendUnavailable("the run was stopped")
        # spawn, not fork: a forked copy of a process that has started onnxruntime's (or any
        # runtime's) threads can deadlock on locks those threads held.
        ctx = multiprocessing.get_context("spawn")
        self._stage = ctx.RawValue("b", IDLE)
        self._working = ctx.RawValue("q", 0)
        self._answered = 0
        self._first = self._previous = None
        self._launches += 1
        mark = ctx.RawValue("q", 0)
        if self._tail is not None:
            self._tail.close()
            self._tail = None
        try:
            tail = _Tail(mark)
        except OSError as e:
            raise BackendUnavailable(f"cannot make the executor's output file: {e.strerror}") from None
        parent, child = ctx.Pipe()
        log_write = multiprocessing.connection.Connection(os.dup(tail.fd))  # carries the fd over
        proc = ctx.Process(target=serve, name="conformance-executor",
                           args=(child, self.backend, self.options, self._stage, log_write,
                                 self.memory_limit, os.getpid(), mark, self._working))
        try:
            proc.start()
        finally:
            child.close()
            log_write.close()
        self._tail = tail
        self._proc, self._conn = proc, parent
        if hasattr(select, "poll"):
            self._poller = select.poll()
            self._poller.register(parent.fileno(), select.POLLIN)
        self.info = None
        self._inbox, self._at, self._closed = bytearray(), 0, False  # what the child sent, unread
        self._asked = False  # whether this child was told to end (ask_to_exit)
        self._launched = time.monotonic()

    def _handshake(self) -> dict:
        proc, parent = self._proc, self._conn
        left = self.start_timeout - (time.monotonic() - self._launched)
        if not parent.poll(max(0.0, left)):
            self._kill()
            raise BackendUnavailable(
                f"backend {self.backend!r} did not start within {self.start_timeout:g} s")
        try:
            kind, payload = parent.recv()
        except (EOFError, OSError):
            proc.join(5)
            why = describe_exit(proc.exitcode)
            self._drop()
            said = self._log_tail("; backend said: ")
            raise BackendUnavailable(
                f"backend {self.backend!r} {why} while loading{said}") from None
        if kind != "ready":
            proc.join(5)
            self._drop()
            raise BackendUnavailable(payload)
        self.info = payload
        self._since = time.monotonic()  # the cases waiting in the pipe start now
        return payload

    # -- cases ---------------------------------------------------------------------------------

    def submit(self, cases: list) -> None:
        """Queue cases (corpus.Case or message dicts) on the child, starting it if need be; their
        results come from `collect`."""
        messages = [_message(c) for c in cases]
        if not messages:
            return
        if self._proc is None or not self._proc.is_alive():
            self._drop()
            try:
                self.launch()
            except BackendUnavailable as e:
                self._unstartable(messages, e)
                return
        if not self.pending:
            self._since = time.monotonic()
        try:
            self._conn.send(messages)
        except OSError:
            pass  # the child is gone: collect() sees the broken pipe and says so
        self.pending.extend(messages)

    @property
    def connection(self):
        """What multiprocessing.connection.wait watches for this executor's next answer (None
        while no child runs)."""
        return self._conn

    def deadline(self) -> float | None:
        """time.monotonic() by which the child must answer (or be ready); None when idle."""
        if self._done:
            return 0.0
        if not self.pending or self._conn is None:
            return None
        if self.info is None:
            return self._launched + self.start_timeout
        return self._since + self.timeout

    def collect(self) -> list[tuple[dict, dict]]:
        """(message, result) for each case answered so far, without waiting: results the child
        sent, a crash or a timeout of the case it was running (the cases queued behind it go to a
        fresh child), or errors when the child cannot start."""
        out, self._done = self._done, []
        while self.pending and self._conn is not None:
            if self.info is None:  # not ready yet: its first message is the handshake
                if not self._conn.poll(0) and time.monotonic() < self._launched + self.start_timeout:
                    break
                try:
                    self._handshake()
                except BackendUnavailable as e:
                    messages = list(self.pending)
                    self.pending.clear()
                    self._unstartable(messages, e)
                    out += self._done
                    self._done = []
                    break
                continue
            answer = self._answer()
            if answer is None:  # none yet: the case is still running, or it hung, or it killed the child
                if self._closed:
                    out.append(self._lost(answered=True))
                elif time.monotonic() - self._since > self.timeout:
                    out.append(self._lost(answered=False))
                break
            message = self.pending.popleft()
            self._since = time.monotonic()
            values, exiting = answer  # exiting: the parent waits for this process, not sends it more
            result = measured_result(message, values)
            self._ran(message, result)
            out.append((message, result))
            if exiting:
                out += self._restart(list(self.pending), wait=True)
                break
        return out

    def _answer(self) -> tuple | None:
        """The child's next answer, (MEASURED's values, whether it ends), without waiting; None if
        it has not come. Everything the child has written is taken in one read and kept (`_inbox`),
        so a run reads the pipe once for several answers, not twice for each; `_closed` says the
        child's end is closed."""
        while True:
            frame = self._frame()
            if frame is not None or self._closed:
                return frame
            readable = self._conn.poll(0) if self._poller is None else self._poller.poll(0)
            if not readable:
                return None
            try:
                data = os.read(self._conn.fileno(), 1 << 20)
            except OSError:
                data = b""
            if not data:
                self._closed = True
            self._inbox += data

    def _frame(self):
        """The next whole message in `_inbox` (multiprocessing.Connection's framing: a 4-byte
        big-endian length, -1 then 8 bytes for a longer one), unmarshalled; None if none is whole."""
        inbox, at = self._inbox, self._at
        if len(inbox) - at < 4:
            return None
        size, head = int.from_bytes(inbox[at:at + 4], "big", signed=True), 4
        if size == -1:
            if len(inbox) - at < 12:
                return None
            size, head = int.from_bytes(inbox[at + 4:at + 12], "big"), 12
        end = at + head + size
        if len(inbox) < end:
            return None
        with memoryview(inbox) as view:  # an answer, as _send wrote it
            message = marshal.loads(view[at + head:end])
        if end == len(inbox):
            self._inbox, self._at = bytearray(), 0
        else:
            self._at = end
            if end > 1 << 20:  # drop what was read
                del self._inbox[:end]
                self._at = 0
        return message

    def _ran(self, message: dict, result: dict) -> None:
        """A case this child answered: counted, and what ran before it kept where --confirm may ask."""
        name = message["name"]
        if self._answered:
            if self.remember and result["status"] in RERUN:
                self._earlier[name] = self._before()
        else:
            self._first = name
        self._previous = name
        self._answered += 1

    def _before(self) -> Earlier:
        return Earlier(self._answered, self._first, self._previous, (id(self), self._launches))

    def earlier_than(self, name: str) -> Earlier | None:
        """What ran before a case this executor answered with a failing status after other cases
        (`remember`), taken out; None otherwise, as for a case its process ran first: alone."""
        return self._earlier.pop(name, None)

    def run(self, case) -> dict:
        """The result of one case (a corpus.Case); crash and timeout are results, not raises."""
        self.submit([case])
        while True:
            got = self.collect()
            if got:
                return got[0][1]
            deadline = self.deadline()
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if self._conn is not None:
                self._conn.poll(wait)

    def _lost(self, answered: bool) -> tuple[dict, dict]:
        """The verdict of the case the child was on when it died (answered: the pipe broke) or
        did not answer in time: the first pending case, or a later one of its batch whose model
        it was checking ahead (`_working`); the other pending cases are sent to a fresh child."""
        at = self._working.value - self._answered if self._working is not None else 0
        if not 0 <= at < len(self.pending):
            at = 0
        message = self.pending[at]
        del self.pending[at]
        rest = list(self.pending)
        if self.remember and self._answered:
            self._earlier[message["name"]] = self._before()
        self.pending.clear()
        seconds = time.monotonic() - self._since
        where = STAGE_NAMES.get(self._stage.value)
        if not answered:
            self._kill()
            result = new_result(message, status=TIMEOUT, stage=where, seconds=seconds,
                                detail=f"no answer within {self.timeout:g} s" +
                                       (f", during {where}" if where else ""))
        else:
            self._proc.join(5)
            why = describe_exit(self._proc.exitcode)
            tail = self._log_tail("; backend said: ")
            self._drop()
            if any(word in tail for word in _OUT_OF_MEMORY):
                detail = memory_detail(self.memory_limit, where, f"executor {why}") + tail
            else:
                detail = f"executor {why}" + (f" during {where}" if where else "") + tail
            result = new_result(message, status=CRASH, stage=where, seconds=seconds, detail=detail)
        # what the backend wrote during the case, before the next child's file replaces this one's
        said = last_lines(self._tail.text()) if self._tail is not None else None
        if said:
            result["stderr"] = said
        self._done += self._restart(rest, wait=False)
        return message, result

    def _restart(self, messages: list[dict], wait: bool) -> list[tuple[dict, dict]]:
        """A fresh child for `messages` (the old one is ended, waited for if `wait`)."""
        self.pending.clear()
        if wait:
            self._kill()
        if not messages:
            return []
        self.submit(messages)
        done, self._done = self._done, []
        return done

    def _unstartable(self, messages: list[dict], e: BackendUnavailable) -> None:
        self._done += [(m, new_result(m, status=ERROR, stage="load",
                                      detail=f"executor could not start: {e}")) for m in messages]

    # -- stopping ------------------------------------------------------------------------------

    def ask_to_exit(self) -> None:
        """Tell an idle, ready child to end, without waiting for it (close() waits): several
        executors then wind down side by side."""
        if self._proc is not None and not self.pending and self.info is not None and not self._asked:
            try:
                self._conn.send(None)
            except OSError:
                pass
            self._asked = True

    def close(self) -> None:
        # A child still loading, or one mid-case, is killed: there is nothing to wait for.
        if self._proc is not None and self._proc.is_alive() and not self.pending and self.info is not None:
            self.ask_to_exit()
            self._proc.join(2)
        self._kill()
        self.pending.clear()
        if self._tail is not None:
            self._tail.close()
            self._tail = None

    def terminate(self) -> None:
        """When a run is cut short: kill the child now, mid-case if need be, and start no other."""
        self._stopped = True
        proc = self._proc
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except (AttributeError, TypeError, ValueError, OSError):
            pass  # no child, or it is already gone

    def _log_tail(self, prefix: str) -> str:
        text = self._tail.text() if self._tail is not None else ""
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if not lines:
            return ""
        said = " ".join(" | ".join(lines[-3:]).split())
        return prefix + (said if len(said) <= 400 else "..." + said[-397:])  # the last words

    def _kill(self) -> None:
        proc = self._proc
        if proc is not None and proc.is_alive():
            proc.terminate()
            proc.join(GRACE_SECONDS)
            if proc.is_alive():
                proc.kill()
                proc.join()
        self._drop()

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._proc is not None and not self._proc.is_alive():
            self._proc.close()
        self._proc = self._conn = self._poller = None
        self.info = None


class _Tail:
    """The child's stdout/stderr: an unlinked file both hold (one open file, so one offset, which
    only the child moves), and `mark`, where the case the child is running began in it. Nothing
    is read until the child has died: then the last TAIL_BYTES from the mark are its last words."""

    def __init__(self, mark):
        with tempfile.TemporaryFile(prefix="conformance-executor-") as f:
            self.fd = os.dup(f.fileno())  # not inherited by other children
        self._mark = mark

    def text(self) -> str:
        """What the running case (or the start-up, before any case) has written, its end."""
        if self.fd < 0:
            return ""
        try:
            size = os.fstat(self.fd).st_size
            start = max(min(self._mark.value, size), size - TAIL_BYTES)
            data = os.pread(self.fd, size - start, start) if size > start else b""
        except OSError:
            return ""
        return data.decode("utf-8", "replace")

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
