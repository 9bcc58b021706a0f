"""Interrupted runs (issue 6): a real run killed at a random point (SIGINT, SIGTERM, SIGKILL), twice,
then resumed, loses and repeats no case; nothing it started outlives it."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from onnx_conformance.harness.results import read_results
from tests.conftest import REPO, TOY, build_corpus, read_jsonl, run_cli

NAMES = [f"test_add_{i:02d}" for i in range(16)]
MATRICES = ("matrix.json", "matrix.md", "matrix.html")


def _start(root: Path, workers: str | None, resume: bool) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PYTEST_XDIST_WORKER", None)
    args = [sys.executable, "-m", "onnx_conformance.harness.cli", "--backend", TOY, "--cases", str(root / "cases"),
            "--report-dir", "r", "--backend-option", "delay=0.15"]
    args += ["-n", workers] if workers else []
    args += ["--resume"] if resume else []
    # Its own process group, so every process the run starts can be found (and none escapes).
    # SIGINT back to its default in the child: a pytest started with it ignored (`setsid nohup`) would
    # otherwise pass the ignore on, and the run would never hear the Ctrl-C this test sends.
    return subprocess.Popen(args, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _group(pgid: int) -> list[int]:
    """Live processes in a process group, read from /proc (no psutil)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        state, _, group = stat.rsplit(")", 1)[1].split()[:3]
        if int(group) == pgid and state != "Z":
            members.append(int(entry))
    return members


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _interrupt(root: Path, sig: int, workers: str | None, resume: bool, rng: random.Random,
               already: int) -> int:
    """Start a run, let it record 1-3 new cases, signal it at a random moment; its exit code."""
    proc = _start(root, workers, resume)
    results = root / "r" / "results.jsonl"
    target = already + rng.randint(1, 3)
    try:
        deadline = time.monotonic() + 120
        while _lines(results) < target:
            assert proc.poll() is None, f"the run ended (exit {proc.returncode}) before the kill"
            assert time.monotonic() < deadline, "no progress"
            time.sleep(0.01)
        time.sleep(rng.uniform(0, 0.15))  # between writes, or in the middle of one
        proc.send_signal(sig)
        code = proc.wait(60)
    finally:
        # Nothing the run started may outlive it; whatever did is killed here, then reported.
        deadline = time.monotonic() + 10
        while _group(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = _group(proc.pid)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not left, f"processes outlived the run: {left}"
    return code


@pytest.mark.parametrize("sig, workers, seed", [
    (signal.SIGINT, None, 3), (signal.SIGTERM, None, 11), (signal.SIGKILL, None, 29),
    (signal.SIGTERM, "2", 5), (signal.SIGKILL, "2", 17),
], ids=["SIGINT", "SIGTERM", "SIGKILL", "SIGTERM-n2", "SIGKILL-n2"])
def test_killed_twice_then_resumed_loses_and_repeats_nothing(tmp_path, sig, workers, seed):
    rng = random.Random(seed)  # a fixed seed: a failure reproduces
    build_corpus(tmp_path / "cases", adds=NAMES, index=True)
    results, report = tmp_path / "r" / "results.jsonl", tmp_path / "r"
    kept: list[dict] = []
    for round_ in range(2):
        code = _interrupt(tmp_path, sig, workers, resume=round_ > 0, rng=rng, already=len(kept))
        records, good = read_results(results)
        data = results.read_bytes()
        if sig == signal.SIGKILL:
            assert data[good:].count(b"\n") == 0  # at most one torn last line, never more
        else:
            assert good == len(data), "a clean stop leaves only whole lines"
            assert code == 2  # interrupted
        names = [r["case"] for r in records]
        assert len(names) == len(set(names)), f"a case recorded twice: {names}"
        assert set(names) <= set(NAMES) and len(names) < len(NAMES)
        assert records[:len(kept)] == kept  # what an earlier round recorded is kept as it was
        kept = records
        run = json.loads((report / "run.json").read_text())
        assert run["complete"] is False
        if sig == signal.SIGKILL:
            assert run["finished"] is None  # run.json as the run wrote it when it started
        written = [m for m in MATRICES if (report / m).exists()]
        if sig == signal.SIGKILL:
            assert written == []  # none from this run, and none left from an earlier one
        else:  # written, and saying so
            assert json.loads((report / "matrix.json").read_text())["run"]["complete"] is False
            assert "Incomplete run" in (report / "matrix.md").read_text()
            assert "Incomplete run" in (report / "matrix.html").read_text()

    proc = run_cli("--backend", TOY, "--cases", str(tmp_path / "cases"), "--report-dir", "r",
                   "--resume", *(["-n", workers] if workers else []), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    final = read_jsonl(results)
    assert final[:len(kept)] == kept
    assert sorted(r["case"] for r in final) == NAMES  # every case exactly once
    run = json.loads((report / "run.json").read_text())
    assert run["complete"] is True and run["counts"]["pass"] == len(NAMES)
    assert len(run["resumed"]) == 2
    assert json.loads((report / "matrix.json").read_text())["run"]["complete"] is True
