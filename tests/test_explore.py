"""explore-cases: planted faults outside the fixed corpus are found, shrunk and written as cases run-conformance runs.

Each toy backend (tests/toybackends/planted.py) is the exact semantics with one fault the corpus's
shapes never reach. The budget each search is given is the one the README states; each find must
fail on the toy and pass on the exact backend and on onnx's reference evaluator (the second source;
onnxruntime refuses some shrunk finds for its own reasons: linear Resize of a 1-D tensor).
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


FAULTS = "prime_dims,deep_reduce,many_splits,conv_stride,resize_scale_below_half"


def test_planted_faults_are_found_shrunk_and_run_as_cases(tmp_path):
    """Five faults the corpus's shapes never reach, each searched for within BUDGET seconds into one
    folder: an element-wise Add wrong where a dimension is a prime of 31 or more, a ReduceSum wrong at
    rank 5 or more, a Split wrong past six outputs, a Conv wrong where a stride is larger than the kernel,
    a Resize wrong where a scale is below 0.5. Each find is shrunk to the least that fails, and
    the folder is a corpus: every find fails on the toy and passes on the exact backend and onnx's evaluator."""
    out = tmp_path / "finds"
    toy = ("--backend", PLANTED, "--backend-option", f"fault={FAULTS}")
    for op in ("Add-14", "ReduceSum-13", "Split-18", "Conv-22", "Resize-19"):
        started = time.monotonic()
        code, index = explore(out, *toy, "--op", op, "--dtype", "float", "--budget", str(BUDGET), "--max-finds", "1")
        assert code == 1 and time.monotonic() - started < BUDGET + 20, op
    finds = {entry["op"]: (name, entry) for name, entry in index["cases"].items()}
    assert sorted(finds) == ["Add", "Conv", "ReduceSum", "Resize", "Split"]
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
    resize = onnx.load(out / "node" / finds["Resize"][0] / "model.onnx").graph.node[0]
    fed = dict(zip([n for n in resize.input if n], range(len(resize.input))))
    scales = onnx.numpy_helper.to_array(onnx.load_tensor(out / "node" / finds["Resize"][0] / "test_data_set_0" /
                                                         f"input_{fed['scales']}.pb"))
    assert (scales < 0.5).any(), scales

    names = sorted(name for name, _ in finds.values())
    toy_results = runs_as(out, tmp_path, PLANTED, "--backend-option", f"fault={FAULTS}")
    assert sorted((r["case"], r["status"]) for r in toy_results) == [(n, "fail") for n in names]
    for backend in ("exact", "reference"):
        results = runs_as(out, tmp_path, backend)
        assert sorted((r["case"], r["status"]) for r in results) == [(n, "pass") for n in names], backend


def searched(monkeypatch, out: Path, *args: str):
    """explore-cases run in this process: its exit code and its Explorer as the summary saw it."""
    from onnx_conformance.harness import explore as explorer
    from onnx_conformance.harness import explore_report

    seen = []
    summary = explore_report.summary
    monkeypatch.setattr(explore_report, "summary", lambda e, interrupted: (seen.append(e), summary(e, interrupted)))
    code = explorer.main([*args, "--out", str(out), "--quiet"])
    return code, seen[0]


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


def test_draws_do_not_depend_on_what_the_process_imported(tmp_path, monkeypatch):
    """hypothesis draws some values from the literals of the local modules imported so far; a search's
    draws are held apart from that pool, so a pytest worker that ran other tests first, a fresh CLI and
    an editable install all draw alike from one seed (CI once drew other inputs than a laptop)."""
    import importlib

    from hypothesis import HealthCheck, Phase, given, seed, settings
    from hypothesis import strategies as st
    from hypothesis.internal.conjecture import providers

    from onnx_conformance.generators.ops import all_operators
    from onnx_conformance.generators.spec import versions
    from onnx_conformance.harness.strategies import family_of
    from onnx_conformance.harness.strategies.bindings import bindings
    from onnx_conformance.harness.strategies.common import steady_draws

    op = all_operators()["Add"]
    v = next(v for v in versions("Add", "") if v.since_version == 14)
    family, _ = family_of(op, v)

    def sample(steady=True):
        got = []

        @settings(database=None, max_examples=100, deadline=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @seed(3)
        @given(st.data())
        def draw(data):
            t = data.draw(bindings(op, v))
            probe = data.draw(family.probes(op, v, t))
            got.append([(k, np.asarray(x).tobytes()) for k, x in sorted(probe.inputs.items())])

        if steady:
            with steady_draws():
                draw()
        else:
            draw()
        return got

    before = sample()
    literals = [f"{n}.{n % 97}" for n in range(101, 400, 7)] + [str(n) for n in range(101, 400, 7)]
    (tmp_path / "many_literals.py").write_text(f"VALUES = ({', '.join(literals)})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module("many_literals")
        assert 108 in providers._get_local_constants().integers  # the pool hypothesis draws from has grown
        assert sample() == before
        assert sample(steady=False) != before  # and outside the block it does change the draws
    finally:
        sys.modules.pop("many_literals", None)


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
    # SIGINT as a terminal leaves it, whatever this process inherited: a pytest started by `cmd &` in a shell
    # without job control ignores SIGINT, and its children would too
    proc = subprocess.Popen([sys.executable, "-m", "onnx_conformance.harness.explore", "--backend", PLANTED,
                             "--backend-option", "fault=abort_big", "--op", "Abs-13", "--dtype", "float",
                             "--budget", "300", "--out", str(out), "--quiet"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
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


def test_ctrl_c_is_heard_during_a_garbage_collection(tmp_path, monkeypatch, capsys):
    """Python's KeyboardInterrupt is raised wherever the main thread is when SIGINT comes; in a gc callback
    (hypothesis times the collector with one) it is printed and dropped, and the search went on. The
    search's own handler records the Ctrl-C: here it comes during a collection as the fourth input is
    judged, and the search stops at that input's answer, which it does not count (exit 130). A second
    Ctrl-C stops it at once, before that input runs. The handler before the search is back after it."""
    import gc

    def press_during_a_collection():
        def callback(phase, info):
            if phase == "start" and callback in gc.callbacks:
                gc.callbacks.remove(callback)
                signal.raise_signal(signal.SIGINT)

        gc.callbacks.append(callback)
        try:
            gc.collect()
        finally:
            if callback in gc.callbacks:
                gc.callbacks.remove(callback)

    from onnx_conformance.harness.explore_verdicts import Judge

    real = Judge.judge
    # Python's own handler, as a terminal leaves it, whatever this process inherited (a pytest started by
    # `cmd &` in a shell without job control ignores SIGINT, and a search leaves an ignored SIGINT ignored)
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        for presses in (1, 2):
            answered = []

            def judge(self, probe):
                if len(answered) == 3:
                    press_during_a_collection()
                    if presses == 2:
                        signal.raise_signal(signal.SIGINT)
                answer = real(self, probe)
                answered.append(probe.name)
                return answer

            monkeypatch.setattr(Judge, "judge", judge)
            code, e = searched(monkeypatch, tmp_path / f"finds{presses}", "--backend", "exact", "--op", "Abs-13",
                               "--dtype", "float", "--max-examples", "30")
            err = capsys.readouterr().err
            assert code == 130 and "the finds so far are kept" in err, (presses, code, err)
            assert (len(answered), e.units[0].ran) == ((4, 3) if presses == 1 else (3, 3)), (presses, len(answered))
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, inherited)


def test_a_budget_starts_every_version(tmp_path, monkeypatch):
    """A budget of 40 inputs over seven versions (the clock replaced by a count of inputs run, so a loaded
    machine does not move where it ends): the first round gives each FIRST_ROUND draws, so every version is
    started (in rounds of 25 from the first, two were)."""
    from onnx_conformance.harness import explore as explorer

    monkeypatch.setattr(explorer.Explorer, "_halted",
                        lambda self: self.stopping or sum(u.ran for u in self.units) >= 40)
    code, e = searched(monkeypatch, tmp_path / "finds", "--backend", "exact", "--op", "Relu", "--op", "Abs",
                       "--dtype", "float", "--budget", "600")
    assert code == 0 and len(e.units) == 7
    assert all(u.examples and u.planned >= explorer.FIRST_ROUND for u in e.units), \
        [(u.label, u.examples, u.planned) for u in e.units]


def test_a_version_declined_in_every_pair_leaves_the_search(tmp_path, monkeypatch, capsys):
    """A toy declining every ReduceProd model: once each (opset, float) pair of ReduceProd-13 is declined it
    leaves the search, not drawn and rejected hundreds of times a round; Abs-13 goes on to its 40 draws."""
    code, e = searched(monkeypatch, tmp_path / "finds", "--backend", "tests.toybackends.declines:DecliningBackend",
                       "--op", "ReduceProd-13", "--op", "Abs-13", "--dtype", "float", "--max-examples", "40")
    assert code == 0
    prod, abs_ = e.units
    assert prod.all_declined and len(prod.declined) == prod.pairs == len(prod.v.opsets), vars(prod)
    assert prod.planned < 40 and prod.statuses == {"unsupported": prod.pairs}, (prod.planned, prod.statuses)
    assert abs_.planned == 40 and not abs_.all_declined
    assert "left the search: 1 operator versions (ReduceProd-13)" in capsys.readouterr().out


def test_list_counts_and_says_why_a_version_has_no_strategy(capsys):
    """--list: each family's operators, why the others have none, and how many of each there are: the counts
    agree with the lines above them and with the spec's versions (deprecated ones counted apart)."""
    from onnx_conformance.generators.ops import all_operators
    from onnx_conformance.generators.spec import versions
    from onnx_conformance.harness import explore as explorer

    assert explorer.main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("reduction (10): ") for line in lines)
    listed = {op for line in lines if "): " in line and not line.startswith("no strategy")
              for op in line.split("): ", 1)[1].split(", ")}
    why = dict(line[len("no strategy: "):].split(": ", 1) for line in lines if line.startswith("no strategy: "))
    assert why["Gradient"].startswith("Gradient differentiates the graph before its node")
    assert "ImageDecoder" not in why and "Add" not in why
    ops = all_operators()
    every = [v for name in ops for v in versions(name, ops[name].domain)]
    live = [v for v in every if not v.deprecated]
    without = sum(len([v for v in versions(w, ops[w].domain) if not v.deprecated]) if w in ops else 1 for w in why)
    # the training family names Gradient, and says why it draws none
    assert lines[-1] == (f"{len(listed - set(why))} of {len(ops)} operators and {len(live) - without} of "
                         f"{len(live)} versions have strategies (not counted: {len(every) - len(live)} deprecated "
                         "versions, which onnx's checker refuses)")


def test_usage_errors(tmp_path, capsys):
    from onnx_conformance.harness import explore as explorer

    assert explorer.main(["--op", "NoSuchOp", "--out", str(tmp_path / "x")]) == 2
    assert "no operator 'NoSuchOp'" in capsys.readouterr().err
    # an operator no strategy draws for, and why: its meaning is the graph before its node
    assert explorer.main(["--op", "Gradient", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "nothing to explore: Gradient-1: Gradient differentiates the graph before its node" in err, err
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
    from onnx_conformance.harness.strategies.bindings import bindings
    from onnx_conformance.harness.strategies.common import Discard, steady_draws

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
                with steady_draws():
                    draw()
            except Exception as e:  # noqa: BLE001 - collected, so one run names every problem
                problems.append(f"{name}-{v.since_version}: {type(e).__name__}: {str(e)[:200]}")
                continue
            if not built:
                problems.append(f"{name}-{v.since_version}: no draw made a case")
    assert problems == []


def test_finds_are_grouped_by_cause():
    """The summary's causes: a runtime's message with paths, quoted names and numbers blanked is one cause
    across operators and types; wrong values group by operator (the comparator's words name no cause)."""
    from onnx_conformance.harness.explore_report import causes

    cast = ('InvalidGraph: In Node, ("InsertedPrecisionFreeCast_{}", Cast, "", -1) : ("{}": tensor(float16),) '
            "Error Mismatched attribute type in 'InsertedPrecisionFreeCast_{} : to'")
    finds = [("Abs-1", "float16", "error", cast.format("X", "X", "X")),
             ("Add-1", "float16", "error", cast.format("A", "A", "A")),
             ("Cast-21", "float", "error", "Exception: /src/cast_op.cc:983 saturate is only used for float 8"),
             ("Cast-25", "float", "error", "Exception: /src/cast_op.cc:990 saturate is only used for float 8"),
             ("Cos-7", "double", "fail", "output 0: 1 of 22 values differ; max ulp 7"),
             ("Cos-22", "double", "fail", "output 0: 1 of 3 values differ; max ulp 10"),
             ("Sin-7", "double", "fail", "output 0: 1 of 3 values differ; max ulp 9"),
             ("ArgMax-11", "float", "fail", "output 0 shape (2, 0) != expected (1, 0)"),
             ("Clip-13", "bfloat16", "error", "Type 'tensor(bfloat16)' of input parameter (max) of operator (Where)")]
    grouped = causes(finds)
    assert [(status, members) for status, _, members in grouped] == [
        ("error", ["Cast-21 float", "Cast-25 float"]),
        ("error", ["Abs-1 float16", "Add-1 float16"]),
        ("fail", ["Cos-7 double", "Cos-22 double"]),
        ("error", ["Clip-13 bfloat16"]),
        ("fail", ["ArgMax-11 float"]),
        ("fail", ["Sin-7 double"])]
    assert grouped[0][1] == "Exception: … saturate is only used for float N"
    assert [words for _, words, _ in grouped[-2:]] == ["ArgMax: shape", "Sin: values"]


def test_the_oracle_answers_draws_earlier_searches_broke():
    """`--backend exact` is the oracle and must never make a find: inputs on which the semantics raised
    (an exact sum past double's range meeting inf; Trilu's k near INT64_MIN) or marked nothing (LpPool's
    sum of squares beyond float's range) give the IEEE result and the quality mark."""
    from onnx_conformance.generators.conv_family import add_bias, convolve, conv_transpose
    from onnx_conformance.generators.linalg_family import einsum, matmul
    from onnx_conformance.generators.ops import trilu
    from onnx_conformance.generators.ops.lp_pool import case as lp_case
    from onnx_conformance.generators.spec import versions

    big, inf, nan = 1.7e308, np.inf, np.nan
    a = np.array([[big, big, inf]])
    assert matmul(a, np.ones((3, 1))).tolist() == [[inf]]
    assert einsum("ij,jk", a, np.ones((3, 1))).tolist() == [[inf]]
    assert np.isnan(float(matmul(np.array([[big, big, inf, -inf]]), np.ones((4, 1)))[0, 0]))
    assert np.isnan(float(matmul(a, np.array([[1.0], [1.0], [0.0]]))[0, 0]))  # inf * 0
    assert matmul(np.array([[big, -big, inf]]), np.array([[1.0], [1.0], [-2.0]])).tolist() == [[-inf]]
    assert convolve(a.reshape(1, 1, 3), np.ones((1, 1, 3))).tolist() == [[[inf]]]
    assert conv_transpose(a.reshape(1, 3, 1), np.ones((3, 1, 1))).tolist() == [[[inf]]]
    assert add_bias(convolve(np.full((1, 1, 2), big), np.ones((1, 1, 2))), np.array([-inf])).tolist() == [[[-inf]]]
    assert np.isnan(float(add_bias(convolve(a.reshape(1, 1, 3), np.ones((1, 1, 3))), np.array([nan]))[0, 0, 0]))

    v = versions("Trilu", "")[-1]
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    for k, upper, kept in [(-2**63, 1, 12), (-2**63 + 3, 1, 12), (-2**63, 0, 0), (-2**63 + 3, 0, 0),
                           (2**63 - 1, 1, 0), (2**63 - 1, 0, 12), (1, 1, 6)]:
        out = trilu.trilu(v, {"upper": upper}, {"input": x, "k": np.array(k, np.int64)})["output"]
        assert np.count_nonzero(out) == kept and (out[out != 0] == x[out != 0]).all(), (k, upper, out)

    class Float:
        dtype = "float"

    case = lp_case(versions("LpPool", "")[-1], Float, np.array([[[3e38, 1.0, 2e19, 2e19, 1.0, 2.0]]], np.float32),
                   kernel_shape=[2], strides=[2])
    assert np.isfinite(case.outputs["Y"]).all() and case.quality["outputs"] == {"0": [0, 1]}
