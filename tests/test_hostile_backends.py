"""Backends that abort, segfault, exit, hang, leak or flood (issue 6): each costs only its case, the
run finishes, and under -n 2 two executors keep running cases."""

from __future__ import annotations

import json

import pytest

from tests.conftest import build_corpus, read_jsonl, run_cli
from tests.toybackends.hostile import LAST_WORDS

HOSTILE = "tests.toybackends.hostile:HostileAdapter"
# case: (behaviour, status, stage, words the detail must hold)
MISBEHAVING = {
    "test_a_abort": ("abort", "crash", "run", "executor died with SIGABRT during run"),
    "test_a_segv": ("segv", "crash", "run", "executor died with SIGSEGV during run"),
    "test_a_exit": ("exit", "crash", "run", "executor exited with code 3 during run"),
    "test_a_hang": ("hang", "timeout", "run", "no answer within 4 s, during run"),
    "test_a_leak": ("leak", "crash", "run",
                    "memory limit of 2^29 bytes reached during run (MemoryError)"),
    "test_a_leak_native": ("leak_native", "crash", "run",
                           "memory limit of 2^29 bytes reached during run (executor died with "
                           "SIGABRT); backend said: terminate called after throwing an instance "
                           "of 'std::bad_alloc'"),
    "test_a_sigkill": ("sigkill", "crash", "run", "executor died with SIGKILL during run"),
    "test_a_flood_abort": ("flood_abort", "crash", "run", LAST_WORDS),
    "test_a_flood": ("flood", "pass", None, None),
}
GOOD = [f"test_z_good_{i}" for i in range(6)]


@pytest.fixture(scope="module")
def hostile_backend_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("backends")
    cases = build_corpus(root / "cases", adds=[*MISBEHAVING, *GOOD], index=True)
    trace = root / "trace"
    trace.mkdir()
    options = ["--backend-option", f"trace={trace}", "--backend-option", "delay=0.1"]
    for case, (behaviour, *_) in MISBEHAVING.items():
        options += ["--backend-option", f"{case}={behaviour}"]
    proc = run_cli("--backend", HOSTILE, "--cases", str(cases), "--report-dir", "r", "-n", "2",
                   "--timeout", "4", "--memory-limit", "512M", *options, cwd=root, timeout=300)
    results = read_jsonl(root / "r" / "results.jsonl")
    # (case, pid of the executor that ran it), in the order the cases started
    trace = [(c, int(p)) for c, p in (line.rsplit(" ", 1) for line in
                                      (trace / "trace.txt").read_text().splitlines())]
    return proc, results, trace, root / "r"


def test_each_misbehaviour_costs_only_its_case(hostile_backend_run):
    proc, results, _, report = hostile_backend_run
    assert sorted(r["case"] for r in results) == sorted([*MISBEHAVING, *GOOD])  # each once
    got = {r["case"]: r for r in results}
    for case, (_, status, stage, words) in MISBEHAVING.items():
        r = got[case]
        assert (r["status"], r["stage"]) == (status, stage), f"{case}: {r}"
        if words:
            assert words in r["detail"], f"{case}: {r['detail']}"
    assert all(got[c]["status"] == "pass" for c in GOOD), proc.stdout
    run = json.loads((report / "run.json").read_text())
    assert run["complete"] is True and proc.returncode == 1
    assert run["memory_limit_bytes"] == 512 * 2**20


def test_a_flood_is_cut_to_its_last_words(hostile_backend_run):
    _, results, _, _ = hostile_backend_run
    detail = {r["case"]: r["detail"] for r in results}["test_a_flood_abort"]
    assert len(detail) < 600 and "\n" not in detail
    assert detail.endswith(LAST_WORDS), detail


def test_two_executors_survive_every_misbehaviour(hostile_backend_run):
    """A misbehaving case costs only its executor process: that process runs nothing after it, and
    a fresh one takes the next case (the good cases after the misbehaviours all pass: see above)."""
    proc, _, trace, _ = hostile_backend_run
    assert "2 executors" in proc.stdout
    for i, (case, pid) in enumerate(trace):
        if case in MISBEHAVING and MISBEHAVING[case][1] != "pass":
            assert pid not in {p for _, p in trace[i + 1:]}, (case, trace)
    assert len({pid for _, pid in trace}) > 2, trace  # fresh executors took over
