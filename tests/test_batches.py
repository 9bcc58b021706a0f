"""Cases go to an executor in batches (Executor.submit/collect) and to N executors at once
(harness/dispatch.py); each case keeps its own crash, timeout and rerun verdict all the same."""

from __future__ import annotations

import os
import time

import pytest

from onnx_conformance.harness.corpus import find_cases
from onnx_conformance.harness.dispatch import Dispatch
from onnx_conformance.harness.executor import Executor
from onnx_conformance.harness.results import ResultsLog, read_results
from onnx_conformance.harness import case_files, safety
from onnx_conformance.harness.safety import check_case
from tests.conftest import TOY, build_corpus

NAMES = [f"test_add_{c}" for c in "abcdefgh"]
MISBEHAVING = {"test_add_b": "abort", "test_add_d": "hang", "test_add_f": "exit", "test_add_g": "error"}
EXPECTED = {"test_add_a": "pass", "test_add_b": "crash", "test_add_c": "pass", "test_add_d": "timeout",
            "test_add_e": "pass", "test_add_f": "crash", "test_add_g": "error", "test_add_h": "pass"}


def _collect_all(executor: Executor, n: int) -> list[tuple[str, str]]:
    got, deadline = [], time.monotonic() + 60
    while len(got) < n and time.monotonic() < deadline:
        got += [(m["name"], r["status"]) for m, r in executor.collect()]
        time.sleep(0.01)
    return got


def _run_all(executor: Executor, cases: list) -> dict[str, dict]:
    """Every case through `executor` in one batch, which is then closed: each result by case name."""
    try:
        executor.submit(cases)
        results, deadline = {}, time.monotonic() + 60
        while len(results) < len(cases) and time.monotonic() < deadline:
            results.update((m["name"], r) for m, r in executor.collect())
            time.sleep(0.01)
    finally:
        executor.close()
    return results


def test_one_batch_with_crashes_and_a_hang_answers_every_case_once_in_order(tmp_path):
    build_corpus(tmp_path, adds=NAMES, nested=False)
    cases = find_cases(tmp_path)
    executor = Executor(TOY, MISBEHAVING, timeout=1.5)
    try:
        executor.submit(cases)  # all eight in one message, before the child is even ready
        got = _collect_all(executor, len(cases))
    finally:
        executor.close()
    # The cases queued behind a crash or a hang ran in a fresh child, each with its own verdict.
    assert got == [(name, EXPECTED[name]) for name in NAMES]


def test_dispatch_over_two_executors_gives_each_case_its_own_result(tmp_path):
    build_corpus(tmp_path, adds=NAMES, nested=False)
    cases = find_cases(tmp_path)
    made = []

    def make():
        made.append(Executor(TOY, MISBEHAVING, timeout=1.5))
        return made[-1]

    idle = []
    dispatch = Dispatch(cases, 2, make, idle=lambda: idle.append(1))
    try:
        statuses = {c.name: dispatch.result(c)["status"] for c in cases}
        assert dispatch.result(type(cases[0])(**{**vars(cases[0]), "name": "not_planned"})) is None
    finally:
        dispatch.close()
    assert statuses == EXPECTED
    assert len(made) == 2 and idle  # the log is written while the run waits
    assert all(e.connection is None for e in made)  # closed: no child left


def test_a_plan_made_before_the_run_gives_way_to_the_runs_own_list_and_order(tmp_path):
    build_corpus(tmp_path, adds=NAMES, nested=False)
    cases = find_cases(tmp_path)
    made = []

    def make():
        made.append(Executor(TOY, {"test_add_c": "wrong_values"}))
        return made[-1]

    dispatch = Dispatch(cases, 2, make)  # planned in corpus order, and already handed out
    try:
        dispatch.work_ahead()
        time.sleep(1)  # the executors answer some, from the thread
        dispatch.stop_working_ahead()
        run = [c for c in reversed(cases) if c.name not in ("test_add_a", "test_add_f")]
        dispatch.replan(run)
        statuses = {c.name: dispatch.result(c)["status"] for c in run}
        assert dispatch.result(cases[0]) is None  # taken out of the run: not answered, whether it ran or not
    finally:
        dispatch.close()
    assert statuses == {c.name: "fail" if c.name == "test_add_c" else "pass" for c in run}


def test_a_rerun_runs_in_the_executor_that_ran_the_case(tmp_path):
    build_corpus(tmp_path, adds=NAMES[:4], nested=False)
    cases = find_cases(tmp_path)
    options = {"test_add_b": "wrong_values", "always": "test_add_c"}
    dispatch = Dispatch(cases, 2, lambda: Executor("tests.toybackends.flaky:FirstAttemptFails", options),
                        reruns=2)
    try:
        results = {c.name: dispatch.result(c) for c in cases}
    finally:
        dispatch.close()
    assert results["test_add_b"]["status"] == "flaky"  # fail, then pass in the same process
    assert results["test_add_b"]["detail"].startswith("attempts: fail, pass; ")
    assert results["test_add_c"]["status"] == "fail"  # the same failure each time is a failure
    assert results["test_add_a"]["status"] == results["test_add_d"]["status"] == "pass"


def test_a_crash_quotes_the_crashing_cases_words_not_an_earlier_cases(tmp_path):
    build_corpus(tmp_path, adds=NAMES[:4], nested=False)
    cases = find_cases(tmp_path)
    results = _run_all(Executor("tests.toybackends.talker:Talker", {"test_add_c": "abort"}, timeout=20), cases)
    crash = results["test_add_c"]
    assert crash["status"] == "crash", crash
    assert "last words of test_add_c" in crash["detail"]
    assert "running test_add_b" not in crash["detail"]  # said by the case before, in the same child
    assert results["test_add_d"]["status"] == "pass"


def test_a_crash_while_a_batch_is_checked_ahead_is_the_checked_cases_own(tmp_path):
    """The executor checks a batch's models before its first case runs: a crash there is the
    crash of the case whose model was being checked, not of the first case still unanswered, and
    the cases before and after it run in a fresh child."""
    build_corpus(tmp_path, adds=NAMES, nested=False)
    cases = find_cases(tmp_path)
    results = _run_all(Executor(TOY, {"test_add_c": "abort_ahead"}, timeout=20), cases)
    assert {n: r["status"] for n, r in results.items()} == {
        n: "crash" if n == "test_add_c" else "pass" for n in NAMES}
    assert results["test_add_c"]["stage"] == "load"
    assert results["test_add_c"]["detail"].startswith("executor died with SIGABRT during load")


def test_a_batch_checked_ahead_gives_each_case_the_result_it_gets_alone(tmp_path):
    """Models checked ahead of their turn (a bad one, one too big to hold ahead, one whose test
    data is wrong) give each case the status, stage and detail it gets run on its own."""
    import onnx

    names = [f"test_add_{c}" for c in "abcde"]
    build_corpus(tmp_path, adds=names, nested=False)
    (tmp_path / "test_add_b" / "model.onnx").write_bytes(b"\x0a\xff")  # truncated
    big = onnx.load(tmp_path / "test_add_c" / "model.onnx")
    big.doc_string = "x" * (safety.AHEAD_BYTES + 1)  # checked in its turn, not ahead
    onnx.save(big, tmp_path / "test_add_c" / "model.onnx")
    with pytest.raises(case_files.Later):
        safety.check_model_ahead(str(tmp_path / "test_add_c"))
    os.remove(tmp_path / "test_add_d" / "test_data_set_0" / "output_0.pb")
    (tmp_path / "test_add_e" / "test_data_set_0" / "input_3.pb").write_bytes(b"")
    cases = find_cases(tmp_path)
    together = _run_all(Executor(TOY, timeout=20), cases)
    alone = Executor(TOY, timeout=20)
    try:
        apart = {c.name: alone.run(c) for c in cases}
    finally:
        alone.close()
    shown = {n: (r["status"], r["stage"], r["detail"]) for n, r in together.items()}
    assert shown == {n: (r["status"], r["stage"], r["detail"]) for n, r in apart.items()}
    assert shown["test_add_a"][0] == shown["test_add_c"][0] == "pass"
    assert shown["test_add_b"] == ("error", "load", "model.onnx: truncated or not an ONNX model")
    assert shown["test_add_d"] == ("error", "load", "test_data_set_0/output_0.pb missing")
    assert shown["test_add_e"] == ("error", "load", "test_data_set_0/input_2.pb missing")


def test_what_is_checked_ahead_is_bounded(tmp_path):
    """The models of a batch checked ahead are held until their cases run: once they hold more
    than AHEAD_BYTES, the rest of the batch is checked in its turn."""
    import types

    import onnx

    from onnx_conformance.harness import executor_child
    from onnx_conformance.harness.verdict import IDLE
    from tests.toybackends.toy import ToyAdapter

    names = ["test_add_a", "test_add_b", "test_add_c"]
    build_corpus(tmp_path, adds=names, nested=False)
    for name in names:
        model = onnx.load(tmp_path / name / "model.onnx")
        model.doc_string = "x" * (safety.AHEAD_BYTES * 3 // 5)
        onnx.save(model, tmp_path / name / "model.onnx")
    stage, working = types.SimpleNamespace(value=0), types.SimpleNamespace(value=0)
    batch = [dict(vars(c)) for c in find_cases(tmp_path)]
    checked = executor_child._check_ahead(ToyAdapter(), batch, stage, working, 5)
    assert sorted(checked) == [0, 1] and working.value == 6 and stage.value == IDLE
    assert all(isinstance(found, safety.CheckedModel) for found, _ in checked.values())


def test_results_are_written_in_whole_batches(tmp_path):
    path = tmp_path / "results.jsonl"
    log = ResultsLog(path, resume=False)
    log.FLUSH_SECONDS = 3600  # only an explicit flush (the run waiting) or close writes
    log.append({"case": "a", "status": "pass"})
    log.append({"case": "b", "status": "fail"})
    assert path.read_bytes() == b""
    log.flush()
    assert [r["case"] for r in read_results(path)[0]] == ["a", "b"]
    log.append({"case": "c", "status": "pass"})
    log.close()
    records, size = read_results(path)
    assert [r["case"] for r in records] == ["a", "b", "c"] and size == path.stat().st_size


def test_a_symlink_that_stays_inside_the_case_is_followed(tmp_path):
    build_corpus(tmp_path, adds=["test_add_a"], nested=False)
    case = tmp_path / "test_add_a"
    data = case / "test_data_set_0"
    os.replace(data / "input_1.pb", case / "b.pb")
    (data / "input_1.pb").symlink_to(os.path.join("..", "b.pb"))
    model = check_case(str(case))
    assert model.graph.node[0].op_type == "Add"


def test_what_a_backend_prints_is_emptied_between_cases_not_kept(tmp_path):
    """The child's stdout/stderr go to a file; once it holds more than LOG_BOUND, the next case
    starts it afresh, and a crash still quotes its own case's words after a flood before it."""
    from onnx_conformance.harness.executor_child import LOG_BOUND
    from tests.toybackends.hostile import FLOOD_BYTES, LAST_WORDS

    names = ["test_add_a", "test_add_b", "test_add_c"]
    build_corpus(tmp_path, adds=names, nested=False)
    cases = find_cases(tmp_path)
    executor = Executor("tests.toybackends.hostile:HostileAdapter", {"test_add_a": "flood"},
                        timeout=30)
    try:
        executor.submit(cases[:2])
        got = _collect_all(executor, 2)
        assert got == [("test_add_a", "pass"), ("test_add_b", "pass")]
        assert 2 * FLOOD_BYTES > LOG_BOUND
        assert os.fstat(executor._tail.fd).st_size < LOG_BOUND  # not the flood's 16 MiB
    finally:
        executor.close()
    results = _run_all(Executor("tests.toybackends.hostile:HostileAdapter",
                                {"test_add_a": "flood", "test_add_b": "flood_abort"}, timeout=30), cases)
    crash = results["test_add_b"]
    assert crash["status"] == "crash" and crash["detail"].endswith(LAST_WORDS), crash
    assert results["test_add_c"]["status"] == "pass"
