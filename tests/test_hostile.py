"""Hostile corpora (issue 6): each bad case is one `error` at `load` with its exact one-line reason,
nothing outside the case directory is opened, and every good case beside them still runs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from onnx import TensorProto

from onnx_conformance.harness import case_files, safety
from onnx_conformance.harness.corpus import find_cases
from tests import hostile_corpus
from tests.conftest import REPO, TOY, add_case, read_jsonl, run_cli


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    """One run of the CLI over the hostile corpus, good cases mixed in."""
    root = tmp_path_factory.mktemp("hostile")
    h = hostile_corpus.build(root)
    # no baseline: -rf asks for each failing case's line, which a first run folds otherwise
    proc = run_cli("--backend", TOY, "--cases", str(h.cases), "--report-dir", str(root / "r"),
                   "--timeout", "30", "-rf", cwd=root)
    lines = read_jsonl(root / "r" / "results.jsonl")
    return h, proc, lines, root / "r"


def test_each_hostile_case_is_a_load_error_with_its_reason(hostile_run):
    h, proc, lines, _ = hostile_run
    got = {r["case"]: (r["status"], r["stage"], r["detail"]) for r in lines}
    for case, reason in h.reasons.items():
        assert got.get(case) == ("error", "load", reason), f"{case}: {got.get(case)}"
    assert proc.returncode == 1, proc.stdout + proc.stderr


def test_good_cases_beside_them_pass_and_every_case_is_recorded_once(hostile_run):
    h, proc, lines, report = hostile_run
    names = [r["case"] for r in lines]
    assert sorted(names) == sorted([*h.reasons, *h.good])  # each once, none lost
    statuses = {r["case"]: r["status"] for r in lines}
    assert {c: statuses[c] for c in h.good} == dict.fromkeys(h.good, "pass"), proc.stdout
    run = json.loads((report / "run.json").read_text())
    assert run["complete"] is True and run["counts"]["error"] == len(h.reasons)
    assert (report / "matrix.html").exists()
    # Names with shell metacharacters were never handed to a shell.
    assert not list(h.root.rglob("PWNED*")) and not list(REPO.glob("PWNED*"))


def test_reasons_are_one_line_in_the_terminal(hostile_run):
    _, proc, _, _ = hostile_run
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "graph-14 float test_missing_output: error: test_data_set_0/output_1.pb missing" \
        in proc.stdout, proc.stdout


def test_a_corpus_of_only_hostile_cases_runs_to_the_end(tmp_path):
    h = hostile_corpus.build(tmp_path, only_hostile=True)
    proc = run_cli("--backend", TOY, "--cases", str(h.cases), "--report-dir", "r", "-n", "2",
                   cwd=tmp_path)
    lines = read_jsonl(tmp_path / "r" / "results.jsonl")
    assert sorted(r["case"] for r in lines) == sorted(h.reasons)
    assert {(r["status"], r["stage"]) for r in lines} == {("error", "load")}
    assert {r["case"]: r["detail"] for r in lines} == h.reasons
    assert proc.returncode == 1
    assert json.loads((tmp_path / "r" / "run.json").read_text())["complete"] is True


def test_an_empty_corpus_is_a_usage_error(tmp_path):
    (tmp_path / "empty" / "node").mkdir(parents=True)
    proc = run_cli("--backend", TOY, "--cases", str(tmp_path / "empty"), "--report-dir", "r",
                   cwd=tmp_path)
    assert proc.returncode == 2
    assert "no cases under" in proc.stderr and "Traceback" not in proc.stderr


# -- nothing outside the case directory is opened ------------------------------------------------

AUDIT = r"""
import json, os, sys
root, out = sys.argv[1], sys.argv[2]
events, scope = [], [root]

def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        events.append((scope[0], os.fsdecode(args[0]), event))
    elif event in ("os.listdir", "os.scandir") and args and args[0] is not None:
        events.append((scope[0], os.fsdecode(args[0]), event))

sys.addaudithook(hook)
from onnx_conformance.harness.corpus import find_cases
from onnx_conformance.harness.executor import run_case
from tests.toybackends.toy import ToyAdapter

adapter = ToyAdapter({})
results = {}
for case in find_cases(root):
    scope[0] = case.path
    results[case.name] = run_case(adapter, case.as_message())
scope[0] = None
with open(out, "w") as f:
    json.dump({"events": events, "results": results}, f)
"""


def test_nothing_outside_the_case_directory_is_opened(tmp_path):
    """An audit hook records every open and directory listing while the real corpus walk and the
    real case loader (with a backend that loads the model itself) go through the hostile corpus."""
    h = hostile_corpus.build(tmp_path / "work")
    out = tmp_path / "audit.json"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", AUDIT, str(h.cases), str(out)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    audit = json.loads(out.read_text())
    # The walk and the loader did run: every case has a result, and the good ones passed.
    assert {n: r["status"] for n, r in audit["results"].items() if n in h.good} == \
        dict.fromkeys(h.good, "pass")
    assert {n: r["detail"] for n, r in audit["results"].items() if n in h.reasons} == h.reasons

    work = os.path.realpath(h.root)
    # What the interpreter itself may open: its own files, the project's code, the kernel's;
    # and list: the folders on sys.path (the import system's own look-ups).
    system = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    system |= {str(REPO / "harness"), str(REPO / "tests"), "/dev", "/proc", "/sys"}
    listed = {str(REPO)}
    assert not any(work.startswith(p + os.sep) for p in system)  # the corpus is not exempt

    def inside(path: str, top: str) -> bool:
        return path == top or path.startswith(top.rstrip(os.sep) + os.sep)

    offenders = []
    for scope, path, event in audit["events"]:
        real = os.path.realpath(os.path.join(str(REPO), path))
        if scope is None:  # the script writing its own report
            continue
        if inside(real, os.path.realpath(scope)) or (event != "open" and real in listed):
            continue
        if not inside(real, work) and any(inside(real, p) for p in system):
            continue
        offenders.append(f"{event} {path} while on {scope}")
    assert not offenders, "\n".join(offenders[:20])
    opened = {os.path.realpath(os.path.join(str(REPO), p)) for _, p, e in audit["events"]
              if e == "open"}
    # The hook saw the loader at work. It sees Python's opens only: onnx reads external data in
    # C++, as native runtimes do, which is why every location is checked before a backend runs.
    good = os.path.realpath(h.cases / "node" / "test_add_external_ok")
    assert {os.path.join(good, "model.onnx"),
            os.path.join(good, "test_data_set_0", "input_0.pb")} <= opened
    assert os.path.realpath(h.canary) not in opened
    assert not any(inside(p, os.path.realpath(h.outside)) for p in opened)


# -- the checks themselves -----------------------------------------------------------------------


def test_file_and_tensor_limits(tmp_path):
    case = add_case(tmp_path, "test_add")
    size = (case / "model.onnx").stat().st_size
    with pytest.raises(case_files.UnsafeCase, match=rf"^model.onnx is {size:,} bytes, more than the "
                                                r"50-byte limit$"):
        safety.check_case(str(case), limits=case_files.Limits(file_bytes=50))
    with pytest.raises(case_files.UnsafeCase, match=r"^test_data_set_0/input_0.pb: dims \[2, 3\] "
                                                r"need 24 bytes, more than the 16-byte tensor"):
        safety.check_case(str(case), limits=case_files.Limits(tensor_bytes=16))
    assert safety.check_case(str(case)).graph.node[0].op_type == "Add"


def test_every_element_type_round_trips_through_the_checks(tmp_path):
    """No false alarm: a tensor of each ONNX type, as onnx writes it (raw and typed fields)."""
    from onnx import helper, numpy_helper

    from onnx_conformance.harness.dtypes import numpy_of

    case = add_case(tmp_path, "test_add")
    checker = case_files.CaseDir(str(case), case_files.Limits())
    for name, value in TensorProto.DataType.items():
        if value in (TensorProto.UNDEFINED,):
            continue
        if name == "STRING":
            tensors = [helper.make_tensor("s", value, [3], [b"a", b"b", b"c"])]
        else:
            array = np.zeros((3, 5), numpy_of(name.lower()))
            tensors = [numpy_helper.from_array(array, "t")]
            zeros = [0j] * 15 if name.startswith("COMPLEX") else [0] * 15
            try:
                tensors.append(helper.make_tensor("t", value, [3, 5], zeros))
            except Exception:  # a type make_tensor cannot build from numbers: raw only
                pass
        for t in tensors:
            checker.check_tensor(t, "x.pb", "", "")
            numpy_helper.to_array(t)  # and onnx itself agrees it is whole


def test_sizes_are_parsed_as_documented():
    assert case_files.parse_size("4G") == 4 * 2**30
    assert case_files.parse_size("512M") == 512 * 2**20
    assert case_files.parse_size("1.5GiB") == 3 * 2**29
    assert case_files.parse_size("0") is None
    with pytest.raises(ValueError, match="4G, 512M"):
        case_files.parse_size("lots")


def test_a_symlinked_case_inside_the_corpus_is_not_reported_twice(tmp_path):
    base = tmp_path / "cases"
    add_case(base, "test_add")
    (base / "alias").symlink_to(base / "test_add")
    assert [c.name for c in find_cases(base)] == ["test_add"]


# The one read allowed: an executor's answer, which the harness's own child process wrote
# (marshal of plain values: it cannot run code, as unpickling its answers before could).
ANSWERS = "executor.py: message = marshal.loads(view[at + head:end])"


def test_nothing_from_a_corpus_is_evaluated_or_unpickled():
    """The harness reads corpora with protobuf and json only."""
    banned = re.compile(r"(\b(pickle\.loads?|marshal\.loads?|yaml\.load|np\.load|numpy\.load|"
                        r"shelve\.open)|(?<![\w.])(eval|exec|__import__))\s*\(|allow_pickle\s*=\s*True")
    hits = [(p.name, n, line.strip()) for p in sorted((REPO / "harness").rglob("*.py"))
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if banned.search(line)]
    others = [f"{name}:{n}: {line}" for name, n, line in hits if f"{name}: {line}" != ANSWERS]
    assert not others, others
    assert [f"{name}: {line}" for name, _, line in hits] == [ANSWERS]  # still there, still the only one
