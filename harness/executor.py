"""Runs cases in a persistent child process, so a backend that aborts or hangs costs one case."""

from __future__ import annotations

import collections
import marshal
import math
import multiprocessing
import multiprocessing.connection
import os
import select
import signal
import sys
import tempfile
import time
from typing import Any

from onnx_conformance.harness import safety
from onnx_conformance.harness.compare import compare_outputs
from onnx_conformance.harness.corpus import EXPECT_ERROR, data_sets, value_types
from onnx_conformance.harness.results import MEASURED, measured_result, new_result, plain

# What the child is doing, kept in shared memory so a crash can still say where it happened.
IDLE, LOAD, RUN, COMPARE = 0, 1, 2, 3
STAGE_NAMES = {LOAD: "load", RUN: "run", COMPARE: "compare"}
GRACE_SECONDS = 0.5
DETAIL_LIMIT = 800
TAIL_BYTES = 8192  # of the backend's stdout/stderr, kept for a crash report
# The child's stdout/stderr file is emptied at the start of a case once it holds more than this.
LOG_BOUND = 1 << 20
# Where the backend may run out of memory in a way that does not raise MemoryError in Python.
_OUT_OF_MEMORY = ("MemoryError", "bad_alloc", "Cannot allocate memory", "out of memory")
LIMITS = safety.Limits()  # the executor's own, set by _serve from --memory-limit


def _message(case) -> dict:
    """What travels to the child for a case: a corpus.Case's fields (a shallow copy: pickling
    copies the rest, where Case.as_message's asdict deep-copies every case twice), or a dict."""
    return dict(vars(case)) if hasattr(case, "as_message") else dict(case)


class BackendUnavailable(Exception):
    """The backend could not be imported or constructed; the message is one line for the user."""


def one_line(text: str, limit: int = DETAIL_LIMIT) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(exc: BaseException) -> str:
    message = one_line(str(exc))
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


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
# Inside the child


def run_case(adapter: Any, case: dict, stage=None, checked: tuple | None = None) -> dict:
    """Load, run and compare one case with `adapter`; every outcome is a result dict, never a raise.

    `stage` is the shared byte the parent reads if this process dies mid-case; `checked` is what
    _check_ahead found of the case's model.onnx and the seconds that took, when it did.
    """
    started = time.perf_counter() - (checked[1] if checked else 0.0)

    def mark(value: int) -> None:
        if stage is not None:
            stage.value = value

    def finish(status: str, where: str | None = None, detail: str | None = None, **metrics):
        mark(IDLE)
        return new_result(case, status=status, stage=where, detail=detail,
                          seconds=time.perf_counter() - started, **metrics)

    if case.get("unsafe"):  # found so by the corpus walk: nothing of it is read
        return finish("error", "load", case["unsafe"])
    if case.get("skip"):
        return finish("skip", None, case["skip"])

    mark(LOAD)
    capabilities = getattr(adapter, "capabilities", None)
    reason = _declined(capabilities, case)
    if reason:
        return finish("unsupported", "load", reason)
    try:  # model.onnx before the backend sees a byte of it, the test data before it runs (issue 6)
        if checked is None:
            found = safety.check_model(case["path"], LIMITS)
        elif isinstance(checked[0], safety.UnsafeCase):
            raise checked[0]
        else:
            found = checked[0]
    except safety.UnsafeCase as e:
        return finish("error", "load", one_line(str(e)))
    model, check_data = found.model, found.check_data
    if capabilities is not None:
        ir = model.ir_version if getattr(capabilities, "ir", None) else None
        reason = capabilities.reason_unsupported(case.get("opset"), ir, case.get("dtype"), case.get("types"))
        if reason:
            return finish("unsupported", "load", reason)

    expect_error = case.get("kind") == EXPECT_ERROR
    model_path = os.path.join(case["path"], "model.onnx")
    try:
        # the bytes checked, to an adapter that can load them (Adapter.prepare_checked)
        prepare = getattr(adapter, "prepare_checked", None)
        prepared = adapter.prepare(model_path) if prepare is None else prepare(model_path, found.data)
    except MemoryError:
        raise  # the memory limit: _serve reports it and starts afresh
    except Exception as e:
        if expect_error:
            return finish(_refused(adapter, e, "load"), "load", describe(e))
        return finish(_classify(adapter, e, "load"), "load", describe(e))

    # The test data only once the model loaded: a case its backend cannot load (two in five of
    # a whole-corpus run on onnxruntime) reads none of it.
    parsed: dict = {}  # the test data as checked, so it is not read twice
    try:
        check_data(case.get("kind"), parsed)
    except safety.UnsafeCase as e:
        return finish("error", "load", one_line(str(e)))
    try:
        # The graph's declared types say which files hold sequences, optionals or maps.
        sets = data_sets(case["path"], value_types(model), parsed)
    except MemoryError:
        raise
    except Exception as e:
        return finish("error", "load", f"cannot read the case's test data: {describe(e)}")
    if not sets and not expect_error:
        return finish("error", "load", "no test_data_set_* directory in the case")

    worst: dict = {}
    said = None
    for data in sets:
        mark(RUN)
        try:
            outputs = adapter.run(prepared, data.inputs)
        except MemoryError:
            raise
        except Exception as e:
            if expect_error:
                return finish(_refused(adapter, e, "run"), "run", describe(e))
            return finish(_classify(adapter, e, "run"), "run", _where(sets, data, describe(e)))
        if expect_error:
            continue
        mark(COMPARE)
        try:
            got = compare_outputs(data.outputs, list(outputs), case.get("tolerance"),
                                  data.output_dtypes)
        except Exception as e:
            return finish("error", "compare", _where(sets, data, f"comparing: {describe(e)}"))
        metrics = {k: getattr(got, k, None) for k in
                   ("max_abs_err", "max_rel_err", "max_ulp", "mismatches", "first_bad_index")}
        if got.status != "pass":
            status, detail = "fail", one_line(got.detail)
            if case.get("quality") and _only_marked(data, list(outputs), case):
                status, detail = "warn", one_line(f"{got.detail}; only at values marked: {case['quality']['reason']}")
            return finish(status, "compare", _where(sets, data, detail), **metrics)
        for k, v in metrics.items():
            if v is not None and k != "first_bad_index":
                worst[k] = v if worst.get(k) is None else max(worst[k], v)
        said = got.detail or said  # a pass with words: a random case's statistic and p-value
    if expect_error:
        what = "got outputs" if sets else "the model loaded and there is no input to run"
        return finish("fail", "run", f"expected an error, {what}")
    return finish("pass", None, one_line(said) if said else None, **worst)


def _declined(capabilities, case: dict) -> str | None:
    """Why the adapter declines the case by the index's facts alone, before a byte of it is read:
    the reason the full check in run_case gives (the opset's comes first there, and the types'
    when the adapter claims no IR range: the model's IR version comes second)."""
    if capabilities is None:
        return None
    return capabilities.reason_unsupported(case.get("opset"), None, None) or (
        None if getattr(capabilities, "ir", None) else
        capabilities.reason_unsupported(None, None, case.get("dtype"), case.get("types")))


def _check_ahead(adapter, batch: list, stage, working, sent: int) -> dict[int, tuple]:
    """{position in the batch: (what run_case's check of model.onnx finds, a safety.CheckedModel
    or the UnsafeCase, and the seconds it took)} for the batch's cases that will read their model
    (safety.check_model_ahead): the checks run back to back, while their code and data are in the
    caches, not each after the backend's last session creation evicted them (a folder listing
    25 -> 10 us, bench/bench_executor_stages.py). `working` says which case this process is on, for the
    parent to blame a crash or a hang on the right one: here the case checked, not the first
    unanswered. A case whose check ends any other way (a model too big to hold ahead, a harness
    error, memory) is checked again in its turn, which then reports what happens as it would."""
    capabilities = getattr(adapter, "capabilities", None)
    checked: dict[int, tuple] = {}
    held = 0  # bytes of model.onnx held ahead
    stage.value = LOAD
    try:
        for i, case in enumerate(batch):
            if held > safety.AHEAD_BYTES:
                break  # the rest are checked in their turn: no more than this is held ahead
            if case.get("unsafe") or case.get("skip") or _declined(capabilities, case):
                continue
            if working is not None:
                working.value = sent + i
            started = time.perf_counter()
            try:
                found = safety.check_model_ahead(case["path"], LIMITS)
            except safety.UnsafeCase as e:
                found = e
            except MemoryError:
                break  # this check's memory is let go; it and the rest are checked in their turn
            except Exception:  # noqa: BLE001 - safety.Later, or what the check in its turn reports
                continue
            checked[i] = (found, time.perf_counter() - started)
            held += len(found.data) if isinstance(found, safety.CheckedModel) and found.data else 0
    finally:
        stage.value = IDLE
    return checked


def _only_marked(data, outputs: list, case: dict) -> bool:
    """Whether every value outside the case's quality marks is right: the expected outputs with
    each marked element taken from what the backend answered, compared again. The marks are values
    whose formula overflows the type on the way to a representable result (the mean of
    [FLT_MAX, FLT_MAX]): the spec does not promise the intermediate precision that reaches them."""
    import numpy as np

    expected = list(data.outputs)
    try:
        for k, flat in case["quality"]["outputs"].items():
            k = int(k)
            e, a = np.array(expected[k], copy=True), np.asarray(outputs[k])
            if e.shape != a.shape:
                return False
            e.reshape(-1)[flat] = a.astype(e.dtype).reshape(-1)[flat]
            expected[k] = e
        return compare_outputs(expected, outputs, case.get("tolerance"), data.output_dtypes).status == "pass"
    except Exception:  # a malformed mark or an answer of another kind: the failure stands
        return False


def _where(sets, data, detail: str) -> str:
    return f"{data.name}: {detail}" if len(sets) > 1 else detail


def _refused(adapter, exc: BaseException, stage: str) -> str:
    """An expect-error case's verdict on an error: `pass` when the backend rejected the model, but
    `unsupported` when what it raised is a decline (no kernel, type or opset not supported): a
    backend that runs none of an operator has shown nothing about rejecting bad input."""
    return "unsupported" if _classify(adapter, exc, stage) == "unsupported" else "pass"


def _classify(adapter, exc: BaseException, stage: str) -> str:
    try:
        status = adapter.classify(exc, stage)
    except Exception:  # a broken classify must not hide the backend's own error
        return "error"
    return status if status in ("unsupported", "error") else "error"


def _serve(conn, backend: str, options: dict, stage, log, memory_limit: int | None = None,
           parent: int | None = None, mark=None, working=None) -> None:
    global LIMITS
    _die_with(parent)
    if hasattr(signal, "pthread_sigmask"):  # started from a dispatch thread, which blocks these
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    # The backend's own stdout/stderr go to an unlinked file the parent also holds: a crash
    # report carries the backend's last words (an abort message, a CUDA error), read from where
    # the crashing case began (`mark`, kept in shared memory: nothing is written or woken per
    # case), and a backend printing megabytes never blocks; the file is emptied between cases
    # once it holds more than LOG_BOUND, and is gone with the processes holding it.
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)
    log.close()
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and hasattr(stream, "reconfigure"):
            stream.reconfigure(line_buffering=True)  # Python's own last words survive an abort
    if memory_limit:
        _limit_memory(memory_limit)
    LIMITS = safety.limits_for(memory_limit)
    try:
        from onnx_conformance.harness.backends import registry

        adapter = registry.load(backend, dict(options))
        info = {"name": getattr(adapter, "name", backend), "version": str(adapter.version)}
    except Exception as e:
        not_found = type(e).__name__ == "BackendNotFound"
        conn.send(("failed", one_line(str(e)) if not_found else
                   f"cannot load backend {backend!r}: {describe(e)}"))
        return
    conn.send(("ready", info))
    if not conn.poll(0):
        # No case yet (the parent is still reading the corpus; the cores are not all busy): what
        # judging a random operator's outputs imports is imported now, not in the middle of the run.
        from onnx_conformance.harness import distribution

        try:
            distribution.warm_up()
        except Exception:  # noqa: BLE001 - only ahead of time: a case that needs it says why
            pass
    sent = 0  # answers sent: the number of the case this process works on (`working`)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the parent went away: nothing left to answer
            return
        if message is None:
            # The run is over, and the parent waits for this process to end: it ends now, without
            # unloading the backend and every module (~0.2 s of a run's serial end).
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()
            os._exit(0)
        # One case, or a batch of them answered one result each, in order (Executor.submit).
        batch = message if isinstance(message, list) else [message]
        if len(batch) > 1:
            if mark is not None:
                _case_starts(mark)  # a crash while checking ahead quotes what was said since
            checked = _check_ahead(adapter, batch, stage, working, sent)
        else:
            checked = {}
        for i, case in enumerate(batch):
            if working is not None:
                working.value = sent
            if not _answer(conn, adapter, case, stage, memory_limit, mark, checked.pop(i, None)):
                return
            sent += 1


def _case_starts(mark) -> None:
    """Where this case's words begin in the stdout/stderr file, for the parent to read from
    should the case kill this process; an earlier case's words are dropped once they pass
    LOG_BOUND (fds 1 and 2 share one file offset: both move back with it)."""
    try:
        where = os.lseek(1, 0, os.SEEK_CUR)
        if where > LOG_BOUND:
            os.ftruncate(1, 0)
            where = os.lseek(1, 0, os.SEEK_SET)
    except OSError:  # not the file _serve set up (run_case called in-process): nothing kept
        return
    mark.value = where


def _answer(conn, adapter, case: dict, stage, memory_limit: int | None, mark=None,
            checked: tuple | None = None) -> bool:
    """Run one case and send its result; False when this process must end (out of memory, or
    the parent is gone)."""
    if mark is not None:
        _case_starts(mark)
    out_of_memory = False
    try:
        result = run_case(adapter, case, stage, checked)
    except MemoryError:
        out_of_memory = True  # built below, once the frames holding the memory are gone
    except Exception as e:  # a harness bug still answers, so the run goes on
        result = new_result(case, status="error", stage=STAGE_NAMES.get(stage.value),
                            detail=f"harness: {describe(e)}")
    if out_of_memory:
        where = STAGE_NAMES.get(stage.value)
        result = new_result(case, status="crash", stage=where,
                            detail=memory_detail(memory_limit, where, "MemoryError"))
    # JSON-ready here, where the case ran, not in the one process that reports them all; only what
    # the case measured, in MEASURED's order (the parent has the case's facts, its message, and
    # rebuilds the same result in Executor.collect), and whether this process ends after it.
    values = tuple([v if type(v) in _PLAIN or (type(v) is float and math.isfinite(v)) else plain(v)
                    for v in map(result.get, MEASURED)])
    try:
        data = marshal.dumps((values, out_of_memory))
    except ValueError:  # a value plain() left as it was, which marshal cannot write: its text
        data = marshal.dumps((tuple(v if type(v) in _PLAIN or type(v) is float else str(v)
                                    for v in values), out_of_memory))
    try:
        _send(conn, data)
    except OSError:
        return False
    # A process that ran out is not trusted with the next case: start afresh.
    return not out_of_memory


_PLAIN = {str, int, bool, type(None)}  # what plain() gives back as it is
# An answer is plain data (str, int, float, bool, None, lists of them), so it travels as marshal,
# which this same interpreter reads back (Executor._frame): half pickle's time in an executor whose
# caches onnxruntime's session just evicted (~3 us against ~7 a case). It is written in one
# os.write where it fits a pipe's atomic write, framed as Connection.send_bytes frames it (its
# layers of checks took another ~3 us); a longer one goes through send_bytes.
_ATOMIC = getattr(select, "PIPE_BUF", 0) - 4


def _send(conn, data: bytes) -> None:
    if len(data) <= _ATOMIC:
        os.write(conn.fileno(), len(data).to_bytes(4, "big") + data)
    else:
        conn.send_bytes(data)


def memory_detail(limit: int | None, where: str | None, what: str) -> str:
    size = f" of {safety.size_text(limit)} bytes" if limit else ""
    during = f" during {where}" if where else ""
    return f"memory limit{size} reached{during} ({what})"


def _limit_memory(limit: int) -> None:
    """RLIMIT_DATA where the kernel counts every private writable mapping in it (Linux 4.7+):
    unlike RLIMIT_AS it ignores address space a runtime only reserves, and shared libraries."""
    import resource

    which = resource.RLIMIT_DATA if sys.platform.startswith("linux") else resource.RLIMIT_AS
    _, hard = resource.getrlimit(which)
    soft = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    resource.setrlimit(which, (soft, hard))


def _die_with(parent: int | None) -> None:
    """This process ends when its parent does, even while a backend call hangs (no orphans)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if parent is not None and os.getppid() != parent:
        os._exit(0)  # the parent died before the line above took effect


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
                 memory_limit: int | None = safety.DEFAULT_MEMORY_LIMIT):
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
        self._working = None  # which case the child is on, counted in answers (_serve's `sent`)
        self._answered = 0  # answers taken in from this child
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
        proc = ctx.Process(target=_serve, name="conformance-executor",
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
            self._answered += 1
            self._since = time.monotonic()
            values, exiting = answer  # exiting: the parent waits for this process, not sends it more
            out.append((message, measured_result(message, values)))
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
        self.pending.clear()
        seconds = time.monotonic() - self._since
        where = STAGE_NAMES.get(self._stage.value)
        if not answered:
            self._kill()
            result = new_result(message, status="timeout", stage=where, seconds=seconds,
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
            result = new_result(message, status="crash", stage=where, seconds=seconds, detail=detail)
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
        self._done += [(m, new_result(m, status="error", stage="load",
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
