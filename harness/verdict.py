"""The verdict on one case: load, run and compare it with an adapter, and say which status it earns and why.

What an executor process (harness/executor.py) runs for each case; it never raises, so a backend's
exception is a status with the backend's words. The process, its protocol and what a crash or a hang
becomes are the executor's.
"""

from __future__ import annotations

import os
import time
from typing import Any

from onnx_conformance.harness import case_files, opset_ceiling, safety
from onnx_conformance.harness.backends.base import Rewritten, prepare_model
from onnx_conformance.harness.compare import compare_outputs
from onnx_conformance.harness.corpus import EXPECT_ERROR, data_sets, value_types
from onnx_conformance.harness.results import new_result
from onnx_conformance.harness.statuses import ERROR, FAIL, PASS, SKIP, UNSUPPORTED, WARN

# What the case is at, kept by the caller in shared memory (`stage`) so a crash can still say where it happened.
IDLE, LOAD, RUN, COMPARE = 0, 1, 2, 3
STAGE_NAMES = {LOAD: "load", RUN: "run", COMPARE: "compare"}
DETAIL_LIMIT = 800
LIMITS = case_files.Limits()  # what a model and its test data may hold; an executor sets it from --memory-limit
OPSET: int | None = None  # --opset N, the run's ceiling below the backend's maximum; an executor sets it


def one_line(text: str, limit: int = DETAIL_LIMIT) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(exc: BaseException) -> str:
    message = one_line(str(exc))
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def run_case(adapter: Any, case: dict, stage=None, checked: tuple | None = None) -> dict:
    """Load, run and compare one case with `adapter`; every outcome is a result dict, never a raise.

    `stage` is the shared byte the parent reads if this process dies mid-case; `checked` is what
    executor._check_ahead found of the case's model.onnx and the seconds that took, when it did.
    """
    started = time.perf_counter() - (checked[1] if checked else 0.0)

    def mark(value: int) -> None:
        if stage is not None:
            stage.value = value

    lowered: list = []  # the ceiling, where the case runs at it

    def finish(status: str, where: str | None = None, detail: str | None = None, **metrics):
        mark(IDLE)
        if lowered:  # the record says at which opset it ran; a backend quoting the file it loaded names the case's
            metrics["ran_opset"] = lowered[0]
            written = opset_ceiling.written_folder()
            detail = detail.replace(written, case["path"]) if detail and written else detail
        return new_result(case, status=status, stage=where, detail=detail,
                          seconds=time.perf_counter() - started, **metrics)

    if case.get("unsafe"):  # found so by the corpus walk: nothing of it is read
        return finish(ERROR, "load", case["unsafe"])
    if case.get("skip"):
        return finish(SKIP, None, case["skip"])

    mark(LOAD)
    capabilities = getattr(adapter, "capabilities", None)
    reason = declined(capabilities, case)
    if reason:
        return finish(UNSUPPORTED, "load", reason)
    try:  # model.onnx before the backend sees a byte of it, the test data before it runs (issue 6)
        if checked is None:
            found = safety.check_model(case["path"], LIMITS)
        elif isinstance(checked[0], case_files.UnsafeCase):
            raise checked[0]
        else:
            found = checked[0]
    except case_files.UnsafeCase as e:
        return finish(ERROR, "load", one_line(str(e)))
    model, check_data, data = found.model, found.check_data, found.data
    opset = case.get("opset")
    top = ceiling_of(capabilities)
    at = opset_ceiling.ai_onnx_opset(model) if top is not None else None
    if at is not None and at > top.opset:  # run at the ceiling, or say which node's version is not in force there
        reason, data = opset_ceiling.lower(model, at, top, getattr(capabilities, "ir", None), held=data is not None)
        if reason:
            return finish(UNSUPPORTED, "load", reason)
        data = Rewritten(data)  # to the adapter as bytes, or a file of them (prepare_model): never the case's file
        lowered.append(top.opset)
        opset = top.opset
    if capabilities is not None:
        ir = model.ir_version if getattr(capabilities, "ir", None) else None
        reason = capabilities.reason_unsupported(opset, ir, case.get("dtype"), case.get("types"))
        if reason:
            return finish(UNSUPPORTED, "load", reason)

    expect_error = case.get("kind") == EXPECT_ERROR
    model_path = os.path.join(case["path"], "model.onnx")
    try:
        # the bytes checked, to an adapter that can load them (Adapter.prepare_checked), and the
        # graph's inputs and outputs, read from the model checked, to one that asks (a `signature` parameter)
        prepared = prepare_model(adapter, model_path, data, model)
    except MemoryError:
        raise  # the memory limit: executor_child.serve reports it and starts afresh
    except Exception as e:
        if expect_error:
            return finish(_refused(adapter, e, "load"), "load", describe(e))
        return finish(_classify(adapter, e, "load"), "load", describe(e))

    # The test data only once the model loaded: a case its backend cannot load (two in five of
    # a whole-corpus run on onnxruntime) reads none of it.
    parsed: dict = {}  # the test data as checked, so it is not read twice
    try:
        check_data(case.get("kind"), parsed)
    except case_files.UnsafeCase as e:
        return finish(ERROR, "load", one_line(str(e)))
    try:
        # The graph's declared types say which files hold sequences, optionals or maps.
        sets = data_sets(case["path"], value_types(model), parsed)
    except MemoryError:
        raise
    except Exception as e:
        return finish(ERROR, "load", f"cannot read the case's test data: {describe(e)}")
    if not sets and not expect_error:
        return finish(ERROR, "load", "no test_data_set_* directory in the case")

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
            return finish(ERROR, "compare", _where(sets, data, f"comparing: {describe(e)}"))
        metrics = {k: getattr(got, k, None) for k in
                   ("max_abs_err", "max_rel_err", "max_ulp", "mismatches", "first_bad_index")}
        if got.status != PASS:
            status, detail = FAIL, one_line(got.detail)
            if case.get("quality") and _only_marked(data, list(outputs), case):
                status, detail = WARN, one_line(f"{got.detail}; only at values marked: {case['quality']['reason']}")
            return finish(status, "compare", _where(sets, data, detail), **metrics)
        for k, v in metrics.items():
            if v is not None and k != "first_bad_index":
                worst[k] = v if worst.get(k) is None else max(worst[k], v)
        said = got.detail or said  # a pass with words: a random case's statistic and p-value
    if expect_error:
        what = "got outputs" if sets else "the model loaded and there is no input to run"
        return finish(FAIL, "run", f"expected an error, {what}")
    return finish(PASS, None, one_line(said) if said else None, **worst)


def declined(capabilities, case: dict) -> str | None:
    """Why the adapter declines the case by the index's facts alone, before a byte of it is read:
    the reason the full check in run_case gives (the opset's comes first there, and the types'
    when the adapter claims no IR range: the model's IR version comes second). A case above the
    run's ceiling is judged as at the ceiling, once its own operator is in force there."""
    opset = case.get("opset")
    top = ceiling_of(capabilities)
    if top is not None and opset is not None and opset > top.opset and \
            (case.get("domain") or "") in opset_ceiling.AI_ONNX:
        reason = opset_ceiling.declined_by_index(case, top)
        if reason:
            return reason
        opset = top.opset
    if capabilities is None:
        return None
    return capabilities.reason_unsupported(opset, None, None) or (
        None if getattr(capabilities, "ir", None) else
        capabilities.reason_unsupported(None, None, case.get("dtype"), case.get("types")))


_CEILING: list = []  # [capabilities, OPSET, their ceiling]: worked out once per adapter, not per case


def ceiling_of(capabilities) -> opset_ceiling.Ceiling | None:
    """The opset a case above it runs at (opset_ceiling.ceiling): the backend's maximum, or OPSET below it."""
    if not _CEILING or _CEILING[0] is not capabilities or _CEILING[1] != OPSET:
        _CEILING[:] = [capabilities, OPSET, opset_ceiling.ceiling(opset_ceiling.maximum(capabilities), OPSET)]
    return _CEILING[2]


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
        return compare_outputs(expected, outputs, case.get("tolerance"), data.output_dtypes).status == PASS
    except Exception:  # a malformed mark or an answer of another kind: the failure stands
        return False


def _where(sets, data, detail: str) -> str:
    return f"{data.name}: {detail}" if len(sets) > 1 else detail


def _refused(adapter, exc: BaseException, stage: str) -> str:
    """An expect-error case's verdict on an error: `pass` when the backend rejected the model, but
    `unsupported` when what it raised is a decline (no kernel, type or opset not supported): a
    backend that runs none of an operator has shown nothing about rejecting bad input."""
    return UNSUPPORTED if _classify(adapter, exc, stage) == UNSUPPORTED else PASS


def _classify(adapter, exc: BaseException, stage: str) -> str:
    try:
        status = adapter.classify(exc, stage)
    except Exception:  # a broken classify must not hide the backend's own error
        return ERROR
    return status if status in (UNSUPPORTED, ERROR) else ERROR
