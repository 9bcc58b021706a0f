"""Runs cases in a persistent child process, so a backend that aborts or hangs costs one case."""

from __future__ import annotations

import multiprocessing
import os
import signal
import tempfile
import time
from typing import Any

from harness.compare import compare_outputs
from harness.corpus import EXPECT_ERROR, data_sets, value_types
from harness.results import new_result

# What the child is doing, kept in shared memory so a crash can still say where it happened.
IDLE, LOAD, RUN, COMPARE = 0, 1, 2, 3
STAGE_NAMES = {LOAD: "load", RUN: "run", COMPARE: "compare"}
GRACE_SECONDS = 0.5
DETAIL_LIMIT = 800


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


def run_case(adapter: Any, case: dict, stage=None) -> dict:
    """Load, run and compare one case with `adapter`; every outcome is a result dict, never a raise.

    `stage` is the shared byte the parent reads if this process dies mid-case.
    """
    started = time.perf_counter()

    def mark(value: int) -> None:
        if stage is not None:
            stage.value = value

    def finish(status: str, where: str | None = None, detail: str | None = None, **metrics):
        mark(IDLE)
        return new_result(case, status=status, stage=where, detail=detail,
                          seconds=time.perf_counter() - started, **metrics)

    if case.get("skip"):
        return finish("skip", None, case["skip"])

    model = _read_model(case["path"])  # None when unreadable: prepare will say why
    capabilities = getattr(adapter, "capabilities", None)
    if capabilities is not None:
        ir = model.ir_version if model is not None and getattr(capabilities, "ir", None) else None
        reason = capabilities.reason_unsupported(case.get("opset"), ir, case.get("dtype"))
        if reason:
            return finish("unsupported", "load", reason)

    mark(LOAD)
    try:
        # The graph's declared types say which files hold sequences, optionals or maps.
        sets = data_sets(case["path"], value_types(model) if model is not None else None)
    except Exception as e:
        return finish("error", "load", f"cannot read the case's test data: {describe(e)}")
    expect_error = case.get("kind") == EXPECT_ERROR
    if not sets and not expect_error:
        return finish("error", "load", "no test_data_set_* directory in the case")

    model_path = os.path.join(case["path"], "model.onnx")
    try:
        prepared = adapter.prepare(model_path)
    except Exception as e:
        if expect_error:
            return finish("pass", "load", describe(e))
        return finish(_classify(adapter, e, "load"), "load", describe(e))

    worst: dict = {}
    for data in sets:
        mark(RUN)
        try:
            outputs = adapter.run(prepared, data.inputs)
        except Exception as e:
            if expect_error:
                return finish("pass", "run", describe(e))
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
            return finish("fail", "compare", _where(sets, data, one_line(got.detail)), **metrics)
        for k, v in metrics.items():
            if v is not None and k != "first_bad_index":
                worst[k] = v if worst.get(k) is None else max(worst[k], v)
    if expect_error:
        what = "got outputs" if sets else "the model loaded and there is no input to run"
        return finish("fail", "run", f"expected an error, {what}")
    return finish("pass", None, None, **worst)


def _where(sets, data, detail: str) -> str:
    return f"{data.name}: {detail}" if len(sets) > 1 else detail


def _classify(adapter, exc: BaseException, stage: str) -> str:
    try:
        status = adapter.classify(exc, stage)
    except Exception:  # a broken classify must not hide the backend's own error
        return "error"
    return status if status in ("unsupported", "error") else "error"


def _read_model(path: str):
    import onnx

    try:
        return onnx.load_model(os.path.join(path, "model.onnx"), load_external_data=False)
    except Exception:  # prepare will report the unreadable model
        return None


def _serve(conn, backend: str, options: dict, stage, log_path: str) -> None:
    # The backend's own stdout/stderr go to a file the parent reads when this process dies,
    # so a crash report carries the backend's last words (an abort message, a CUDA error).
    fd = os.open(log_path, os.O_WRONLY | os.O_APPEND)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    try:
        from harness.backends import registry

        adapter = registry.load(backend, dict(options))
        info = {"name": getattr(adapter, "name", backend), "version": str(adapter.version)}
    except Exception as e:
        not_found = type(e).__name__ == "BackendNotFound"
        conn.send(("failed", one_line(str(e)) if not_found else
                   f"cannot load backend {backend!r}: {describe(e)}"))
        return
    conn.send(("ready", info))
    while True:
        try:
            case = conn.recv()
        except (EOFError, OSError):  # the parent went away: nothing left to answer
            return
        if case is None:
            return
        try:
            result = run_case(adapter, case, stage)
        except Exception as e:  # a harness bug still answers, so the run goes on
            result = new_result(case, status="error", stage=STAGE_NAMES.get(stage.value),
                                detail=f"harness: {describe(e)}")
        try:
            conn.send(result)
        except OSError:
            return


# ---------------------------------------------------------------------------------------------
# In the pytest process


class Executor:
    """One child process holding one adapter; restarted after a crash or a timeout."""

    def __init__(self, backend: str, options: dict[str, str] | None = None,
                 timeout: float = 60.0, start_timeout: float | None = None):
        self.backend = backend
        self.options = dict(options or {})
        self.timeout = timeout
        self.start_timeout = start_timeout if start_timeout is not None else max(60.0, timeout)
        self.info: dict | None = None
        self._proc = None
        self._conn = None
        self._stage = None
        self._log_fd: int | None = None

    def start(self) -> dict:
        """Start the child and wait for the adapter; BackendUnavailable says why it failed."""
        # spawn, not fork: a forked copy of a process that has started onnxruntime's (or any
        # runtime's) threads can deadlock on locks those threads held.
        ctx = multiprocessing.get_context("spawn")
        if self._log_fd is not None:
            os.close(self._log_fd)
        self._log_fd, log_path = tempfile.mkstemp(prefix="conformance-executor-", suffix=".log")
        self._stage = ctx.RawValue("b", IDLE)
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_serve, name="conformance-executor",
                           args=(child, self.backend, self.options, self._stage, log_path))
        proc.start()
        child.close()
        self._proc, self._conn = proc, parent
        try:
            return self._handshake()
        finally:
            # Both ends hold it open by now; unlinked, it cannot outlive a killed run.
            os.unlink(log_path)

    def _handshake(self) -> dict:
        proc, parent = self._proc, self._conn
        if not parent.poll(self.start_timeout):
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
        return payload

    def run(self, case) -> dict:
        """The result of one case (a corpus.Case); crash and timeout are results, not raises."""
        message = case.as_message() if hasattr(case, "as_message") else dict(case)
        if self._proc is None or not self._proc.is_alive():
            self._drop()
            try:
                self.start()
            except BackendUnavailable as e:
                return new_result(message, status="error", stage="load",
                                  detail=f"executor could not start: {e}")
        os.ftruncate(self._log_fd, 0)
        started = time.perf_counter()
        try:
            self._conn.send(message)
            answered = self._conn.poll(self.timeout)
            if answered:
                result = self._conn.recv()
                result["seconds"] = time.perf_counter() - started
                return result
        except (EOFError, OSError):
            answered = True  # the pipe broke: the child is gone
        seconds = time.perf_counter() - started
        where = STAGE_NAMES.get(self._stage.value)
        if not answered:
            self._kill()
            return new_result(message, status="timeout", stage=where, seconds=seconds,
                              detail=f"no answer within {self.timeout:g} s" +
                                     (f", during {where}" if where else ""))
        self._proc.join(5)
        why = describe_exit(self._proc.exitcode)
        tail = self._log_tail("; backend said: ")
        self._drop()
        return new_result(message, status="crash", stage=where, seconds=seconds,
                          detail=f"executor {why}" + (f" during {where}" if where else "") + tail)

    def close(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            try:
                self._conn.send(None)
            except OSError:
                pass
            self._proc.join(2)
        self._kill()
        if self._log_fd is not None:
            os.close(self._log_fd)
            self._log_fd = None

    def _log_tail(self, prefix: str) -> str:
        try:
            size = os.fstat(self._log_fd).st_size
            text = os.pread(self._log_fd, 4096, max(0, size - 4096)).decode("utf-8", "replace")
        except (OSError, TypeError):
            return ""
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return prefix + one_line(" | ".join(lines[-3:]), 400) if lines else ""

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
        self._proc = self._conn = None
