"""explore-cases: planted faults outside the fixed corpus are found, shrunk and written as cases run-conformance runs.

Each toy backend (tests/toybackends/planted.py) is the exact semantics with one fault the corpus's
shapes never reach. The budget each search is given is the one the README states; each find must
fail on the toy and pass on the exact backend and onnxruntime.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx

from tests.conftest import REPO, read_jsonl, run_cli

PLANTED = "tests.toybackends.planted:Planted"
BUDGET = 40  # seconds a search may take to find and shrink its fault (README: Exploration)


def explore(out: Path, *args: str) -> tuple[int, dict]:
    from onnx_conformance.harness import explore as explorer

    code = explorer.main([*args, "--out", str(out), "--quiet"])
    index = json.loads((out / "index.json").read_text()) if (out / "index.json").exists() else {"cases": {}}
    return code, index


def only_find(index: dict) -> tuple[str, dict]:
    assert len(index["cases"]) == 1, sorted(index["cases"])
    return next(iter(index["cases"].items()))


def input_shapes(case_dir: Path) -> list[tuple]:
    model = onnx.load(case_dir / "model.onnx")
    return [tuple(d.dim_value for d in i.type.tensor_type.shape.dim) for i in model.graph.input]


def prime(n: int) -> bool:
    return n >= 2 and all(n % k for k in range(2, int(n**0.5) + 1))


def runs_as(cases: Path, tmp_path: Path, backend: str, *options: str) -> list[dict]:
    report = tmp_path / f"report-{backend.replace(':', '_').replace('.', '_')}"
    run_cli("--backend", backend, *options, "--cases", str(cases), "--report-dir", str(report), cwd=tmp_path)
    return read_jsonl(report / "results.jsonl")


FAULTS = "prime_dims,deep_reduce,many_splits,conv_stride"


def test_planted_faults_are_found_shrunk_and_run_as_cases(tmp_path):
    """Four faults the corpus's shapes never reach, each searched for within BUDGET seconds into one
    folder: an element-wise Add wrong where a dimension is a prime of 31 or more, a ReduceSum wrong at
    rank 5 or more, a Split wrong past six outputs, a Conv wrong where a stride is larger than the kernel. Each find is shrunk to the least that fails, and
    the folder is a corpus: every find fails on the toy and passes on the exact backend and onnxruntime."""
    out = tmp_path / "finds"
    toy = ("--backend", PLANTED, "--backend-option", f"fault={FAULTS}")
    for op in ("Add-14", "ReduceSum-13", "Split-18", "Conv-22"):
        started = time.monotonic()
        code, index = explore(out, *toy, "--op", op, "--dtype", "float", "--budget", str(BUDGET), "--max-finds", "1")
        assert code == 1 and time.monotonic() - started < BUDGET + 20, op
    finds = {entry["op"]: (name, entry) for name, entry in index["cases"].items()}
    assert sorted(finds) == ["Add", "Conv", "ReduceSum", "Split"]
    for name, entry in finds.values():
        found = entry["found"]
        assert (entry["dtype"], found["status"], found["shrunk"]) == ("float", "fail", True), name
        assert found["command"] == (f"run-conformance --backend {PLANTED} --backend-option fault={FAULTS} "
                                    f"--cases {out} -k {name}")
    add = input_shapes(out / "node" / finds["Add"][0])
    assert any(prime(d) and d >= 31 for s in add for d in s) and all(len(s) <= 1 for s in add), add
    assert len(input_shapes(out / "node" / finds["ReduceSum"][0])[0]) == 5
    assert len(onnx.load(out / "node" / finds["Split"][0] / "model.onnx").graph.node[0].output) == 7
    conv = onnx.load(out / "node" / finds["Conv"][0] / "model.onnx")
    strides = {a.name: list(a.ints) for a in conv.graph.node[0].attribute}.get("strides", [])
    kernel = input_shapes(out / "node" / finds["Conv"][0])[1][2:]
    assert any(s > k for s, k in zip(strides, kernel)), (strides, kernel)

    names = sorted(name for name, _ in finds.values())
    toy_results = runs_as(out, tmp_path, PLANTED, "--backend-option", f"fault={FAULTS}")
    assert sorted((r["case"], r["status"]) for r in toy_results) == [(n, "fail") for n in names]
    for backend in ("exact", "onnxruntime"):
        results = runs_as(out, tmp_path, backend)
        assert sorted((r["case"], r["status"]) for r in results) == [(n, "pass") for n in names], backend


def test_same_seed_same_finds(tmp_path):
    """Two runs with one seed write the same bytes; the search's draws do not depend on the clock."""
    out = tmp_path / "finds"
    args = ("--backend", PLANTED, "--backend-option", "fault=prime_dims", "--op", "Add-14", "--dtype", "float",
            "--seed", "7", "--max-examples", "60", "--max-finds", "1")
    snapshots = []
    for _ in range(2):
        code, _ = explore(out, *args)
        assert code == 1
        snapshots.append({str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
        for p in sorted(out.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
    assert snapshots[0] == snapshots[1]
    assert any(k.endswith("model.onnx") for k in snapshots[0])


def test_differential_reports_both_answers(tmp_path):
    out = tmp_path / "finds"
    code, index = explore(out, "--backend", PLANTED, "--backend-option", "fault=prime_dims", "--against", "onnxruntime",
                          "--op", "Add-14", "--dtype", "float", "--budget", str(BUDGET), "--max-finds", "1")
    assert code == 1
    name, entry = only_find(index)
    found = entry["found"]
    assert found["disagreement"] == "disagree" and found["against"]["status"] == "pass"
    answers = found["answers"]
    assert answers["against"] == answers["exact"] != answers["backend"]
    assert found["against"]["command"].startswith("run-conformance --backend onnxruntime --cases ")


def test_a_crash_is_shrunk_and_ctrl_c_keeps_it(tmp_path):
    """abort() past 1000 elements on an axis: a `crash` (the executor is replaced and the search goes
    on), shrunk to the least such dimension drawn; Ctrl-C then ends the run and keeps the find."""
    out = tmp_path / "finds"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "onnx_conformance.harness.explore", "--backend", PLANTED,
                             "--backend-option", "fault=abort_big", "--op", "Abs-13", "--dtype", "float",
                             "--budget", "300", "--out", str(out), "--quiet"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + BUDGET + 30
        while not (out / "index.json").exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert (out / "index.json").exists()
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)  # the find is written before the exit: slow on a loaded machine
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "the finds so far are kept" in stderr and "finds: 1" in stdout
    name, entry = only_find(json.loads((out / "index.json").read_text()))
    assert entry["found"]["status"] == "crash" and "SIGABRT" in entry["found"]["detail"], entry["found"]
    assert input_shapes(out / "node" / name) == [(1021,)]


def test_usage_errors(tmp_path, capsys):
    from onnx_conformance.harness import explore as explorer

    assert explorer.main(["--op", "NoSuchOp", "--out", str(tmp_path / "x")]) == 2
    assert "no operator 'NoSuchOp'" in capsys.readouterr().err
    assert explorer.main(["--op", "LSTM", "--out", str(tmp_path / "x")]) == 2
    assert "no strategy" in capsys.readouterr().err
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "index.json").write_text(json.dumps({"format": 1, "cases": {}}))
    assert explorer.main(["--op", "Add", "--out", str(tmp_path / "mine")]) == 2
    assert "did not write" in capsys.readouterr().err


def test_every_covered_version_draws_cases(monkeypatch):
    """Each operator version a family covers draws nodes the semantics computes and onnx's checker
    accepts: no family draws only rejects or crashes on its own draws (small tensors here: what is
    checked is the structure of the draws, and the exact semantics of 4,097 elements takes time)."""
    from onnx_conformance.harness.strategies import common

    monkeypatch.setattr(common, "MAX_ELEMENTS", 64)
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from onnx_conformance.generators.ops import all_operators
    from onnx_conformance.generators.semantics import Rejected, Undefined
    from onnx_conformance.generators.spec import versions
    from onnx_conformance.harness.strategies import family_of
    from onnx_conformance.harness.strategies.common import Discard, bindings

    ops = all_operators()
    problems = []
    for name in sorted(ops):
        op = ops[name]
        for v in [v for v in versions(name, op.domain) if not v.deprecated]:
            family, _ = family_of(op, v)
            if family is None:
                continue
            built = []

            @settings(database=None, max_examples=3, deadline=None, derandomize=True,
                      suppress_health_check=list(HealthCheck))
            @given(st.data())
            def draw(data):
                t = data.draw(bindings(op, v))
                probe = data.draw(family.probes(op, v, t))
                try:
                    with np.errstate(all="ignore"):
                        case = family.case(op, v, t, probe)
                except (Rejected, Undefined, Discard):
                    return
                from onnx_conformance.generators.emit import build_model

                model, _ = build_model(op, v, v.last_opset, case, "x")
                onnx.checker.check_model(model, full_check=True)
                built.append(case)

            try:
                draw()
            except Exception as e:  # noqa: BLE001 - collected, so one run names every problem
                problems.append(f"{name}-{v.since_version}: {type(e).__name__}: {str(e)[:200]}")
                continue
            if not built:
                problems.append(f"{name}-{v.since_version}: no draw made a case")
    assert problems == []
