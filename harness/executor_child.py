"""Inside an executor process: serve the parent's cases in turn, each judged by verdict.run_case and answered over the pipe.

The parent (harness/executor.py's Executor) starts this process at serve, reads the `stage` and
`working` it keeps in shared memory, and turns its death or its silence into the case's status.
"""

from __future__ import annotations

import marshal
import math
import os
import select
import signal
import sys
import time

from onnx_conformance.harness import case_files, opset_ceiling, safety, verdict
from onnx_conformance.harness.results import MEASURED, new_result, plain
from onnx_conformance.harness.statuses import CRASH, ERROR
from onnx_conformance.harness.verdict import IDLE, LOAD, STAGE_NAMES, declined, describe, one_line, run_case

# The child's stdout/stderr file is emptied at the start of a case once it holds more than this.
LOG_BOUND = 1 << 20
TAIL_BYTES = 8192  # of what the backend wrote during a case, read for its last lines
TAIL_LINES = 10  # the result's `stderr`: the last lines of what the backend wrote, at most this many ...
TAIL_CHARS = 2000  # ... and this long


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
            if case.get("unsafe") or case.get("skip") or declined(capabilities, case):
                continue
            if working is not None:
                working.value = sent + i
            started = time.perf_counter()
            try:
                found = safety.check_model_ahead(case["path"], verdict.LIMITS)
            except case_files.UnsafeCase as e:
                found = e
            except MemoryError:
                break  # this check's memory is let go; it and the rest are checked in their turn
            except Exception:  # noqa: BLE001 - case_files.Later, or what the check in its turn reports
                continue
            checked[i] = (found, time.perf_counter() - started)
            held += len(found.data) if isinstance(found, safety.CheckedModel) and found.data else 0
    finally:
        stage.value = IDLE
    return checked


def serve(conn, backend: str, options: dict, stage, log, memory_limit: int | None = None,
           parent: int | None = None, mark=None, working=None) -> None:
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
    verdict.LIMITS = case_files.limits_for(memory_limit)
    options = dict(options)
    requested = options.pop(opset_ceiling.OPTION, None)  # --opset: the run's, not the adapter's
    verdict.OPSET = int(requested) if requested is not None else None
    try:
        from onnx_conformance.harness.backends import registry

        adapter = registry.load(backend, options)
        info = {"name": getattr(adapter, "name", backend), "version": str(adapter.version)}
        # for run.json's opset ceiling (opset_ceiling.ceiling): the adapter's declared maximum
        info["opset_maximum"] = opset_ceiling.maximum(getattr(adapter, "capabilities", None))
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
            opset_ceiling.remove_written()
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
    except OSError:  # not the file serve set up (run_case called in-process): nothing kept
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
        result = new_result(case, status=ERROR, stage=STAGE_NAMES.get(stage.value),
                            detail=f"harness: {describe(e)}")
    if out_of_memory:
        where = STAGE_NAMES.get(stage.value)
        result = new_result(case, status=CRASH, stage=where,
                            detail=memory_detail(memory_limit, where, "MemoryError"))
    said = _said_since(mark) if mark is not None and result["status"] in _SAID else None
    # JSON-ready here, where the case ran, not in the one process that reports them all; only what
    # the case measured, in MEASURED's order (the parent has the case's facts, its message, and
    # rebuilds the same result in Executor.collect), and whether this process ends after it.
    values = tuple([v if type(v) in _PLAIN or (type(v) is float and math.isfinite(v)) else plain(v)
                    for v in map(result.get, MEASURED)])
    ran_opset = result.get("ran_opset")
    if said or ran_opset:  # results.OPTIONAL_MEASURED, after MEASURED's values
        values += ({k: v for k, v in (("stderr", said), ("ran_opset", ran_opset)) if v},)
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
# The statuses whose result keeps what the backend wrote during the case (the parent adds it to a crash
# and a timeout, which this process does not live to answer).
_SAID = {ERROR, CRASH}


def _said_since(mark) -> str | None:
    """The last lines the backend wrote to its stdout/stderr since this case began (`mark`): read
    only for a case that ended in error, so a passing case pays nothing."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
    try:
        end = os.lseek(1, 0, os.SEEK_CUR)
        start = max(mark.value, end - TAIL_BYTES)
        data = os.pread(1, end - start, start) if end > start else b""
    except OSError:  # not the file serve set up (run_case called in-process): nothing kept
        return None
    return last_lines(data.decode("utf-8", "replace"))


def last_lines(text: str) -> str | None:
    """The last TAIL_LINES non-blank lines of `text`, at most TAIL_CHARS; None when there are none."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()][-TAIL_LINES:]
    said = "\n".join(lines)
    if len(said) > TAIL_CHARS:
        said = "..." + said[-(TAIL_CHARS - 3):]
    return said or None
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
    size = f" of {case_files.size_text(limit)} bytes" if limit else ""
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
