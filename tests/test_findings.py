"""Each finding in reports/FINDINGS.md still says what the committed reports say.

A finding carries one machine-checkable line,

    Check: <backend> <case> <status> | <other backend>=<status> <other backend>=<status> ...

naming the status it reports and what every other backend answers on the same case. Each line is
asserted against reports/<backend>/results.jsonl (or its .gz); a status that no longer matches fails
with the finding's line number. CONFORMANCE_FINDINGS_REPORTS points the check at another reports
directory (a fresh run before it is committed).

A finding of explore-cases, whose case is in no committed report, carries instead

    Explore: <backend> <case> <status>

its case committed under reports/explore/<backend>/ (explore-cases' layout and index.json): the index
records that status for that backend, the files are the ones the index hashes, and the exact semantics
still gives the case's expected outputs, bit for bit.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from onnx_conformance.harness.results import STATUSES, read_results
from onnx_conformance.harness.scoreboard import BACKENDS, SAMPLED

ROOT = Path(__file__).resolve().parents[1]
FINDINGS = ROOT / "reports" / "FINDINGS.md"
EXPLORED = ROOT / "reports" / "explore"
EXPLORE = re.compile(r"^Explore: (?P<backend>\S+) (?P<case>test_\S+_explore_\S+) (?P<status>\S+)$")
CHECK = re.compile(r"^Check: (?P<backend>\S+) (?P<case>test_\S+) (?P<status>\S+) \| (?P<others>.+)$")
OTHER = re.compile(r"^(?P<backend>[\w.-]+)=(?P<status>\S+)$")


def reports_dir() -> Path:
    return Path(os.environ.get("CONFORMANCE_FINDINGS_REPORTS") or ROOT / "reports")


def parse(text: str, source: str = "FINDINGS.md") -> list[dict]:
    """Every Check line as {line, backend, case, status, others: {backend: status}}; a malformed one
    raises ValueError naming the file, the line and the problem."""
    checks = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("Check:"):
            continue
        where = f"{source}:{number}"
        match = CHECK.match(line.strip())
        if not match:
            raise ValueError(f"{where}: not 'Check: <backend> <case> <status> | <backend>=<status> ...': {line!r}")
        others = {}
        for word in match["others"].split():
            other = OTHER.match(word)
            if not other:
                raise ValueError(f"{where}: {word!r} is not <backend>=<status>")
            if other["backend"] in others or other["backend"] == match["backend"]:
                raise ValueError(f"{where}: backend {other['backend']} named twice")
            others[other["backend"]] = other["status"]
        for backend, status in [(match["backend"], match["status"]), *others.items()]:
            if backend not in BACKENDS:
                raise ValueError(f"{where}: unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
            if status not in STATUSES:
                raise ValueError(f"{where}: unknown status {status!r} (known: {', '.join(STATUSES)})")
        checks.append(dict(line=number, backend=match["backend"], case=match["case"], status=match["status"],
                           others=others))
    return checks


@functools.lru_cache(maxsize=None)
def statuses(report: Path) -> dict[str, str] | None:
    """case -> status of one backend's committed results; None when the report holds none."""
    records, _ = read_results(report / "results.jsonl")
    return {r["case"]: r["status"] for r in records} if records else None


def mismatches(check: dict, reports: Path) -> list[str]:
    """What the reports under `reports` say differently from one Check line (empty: it holds)."""
    problems = []
    wanted = [(check["backend"], check["status"], True)] + [(b, s, False) for b, s in check["others"].items()]
    for backend, status, reported in wanted:
        got = statuses(reports / backend)
        if got is None:
            problems.append(f"{reports / backend} holds no results.jsonl(.gz)")
            continue
        if check["case"] not in got:
            # A backend run on one case per cell (scoreboard.SAMPLED) lacks most cases; the reported
            # backend itself must have run the case.
            if reported or backend not in SAMPLED:
                problems.append(f"{backend} has no result for {check['case']}")
            continue
        if got[check["case"]] != status:
            problems.append(f"{backend} is {got[check['case']]}, the finding says {status}")
    return problems


CHECKS = parse(FINDINGS.read_text(encoding="utf-8")) if FINDINGS.is_file() else []


def test_findings_carry_checks():
    assert FINDINGS.is_file(), f"{FINDINGS} is missing"
    assert CHECKS, f"{FINDINGS} has no 'Check:' line"
    assert len({(c["backend"], c["case"]) for c in CHECKS}) == len(CHECKS), "a finding is listed twice"
    # Every backend of the scoreboard has at least one finding, or the list is missing a section.
    assert {c["backend"] for c in CHECKS} == set(BACKENDS)


@pytest.mark.parametrize("check", CHECKS, ids=[f"{c['backend']}-{c['case']}" for c in CHECKS])
def test_finding_matches_committed_report(check):
    problems = mismatches(check, reports_dir())
    assert not problems, (
        f"FINDINGS.md:{check['line']} ({check['backend']} {check['case']} {check['status']}) no longer holds: "
        + "; ".join(problems)
    )


def test_a_changed_status_fails_the_check(tmp_path):
    """The check can fail: a report whose status differs from the finding's is named."""
    text = "Check: openvino test_x_opset13_float crash | onnxruntime=pass iree=fail\n"
    (check,) = parse(text)
    (tmp_path / "openvino").mkdir()
    (tmp_path / "openvino" / "results.jsonl").write_text('{"case": "test_x_opset13_float", "status": "pass"}\n')
    (tmp_path / "onnxruntime").mkdir()
    (tmp_path / "onnxruntime" / "results.jsonl").write_text('{"case": "test_x_opset13_float", "status": "pass"}\n')
    (tmp_path / "iree").mkdir()
    (tmp_path / "iree" / "results.jsonl").write_text('{"case": "test_other_opset13_float", "status": "pass"}\n')
    assert mismatches(check, tmp_path) == ["openvino is pass, the finding says crash"]
    # Absent from the sampled backend is allowed; absent from a whole-corpus one is not.
    (tmp_path / "onnxruntime" / "results.jsonl").write_text('{"case": "test_other_opset13_float", "status": "pass"}\n')
    statuses.cache_clear()
    assert mismatches(check, tmp_path) == [
        "openvino is pass, the finding says crash", "onnxruntime has no result for test_x_opset13_float"]
    statuses.cache_clear()


@pytest.mark.parametrize("line, problem", [
    ("Check: openvino test_x crash", "not 'Check:"),
    ("Check: nosuch test_x crash | onnxruntime=pass", "unknown backend 'nosuch'"),
    ("Check: openvino test_x broken | onnxruntime=pass", "unknown status 'broken'"),
    ("Check: openvino test_x crash | onnxruntime=pass onnxruntime=fail", "named twice"),
    ("Check: openvino test_x crash | onnxruntime:pass", "is not <backend>=<status>"),
])
def test_malformed_check_line_is_named(line, problem):
    with pytest.raises(ValueError, match=re.escape(problem)) as info:
        parse("text\n" + line + "\n")
    assert str(info.value).startswith("FINDINGS.md:2: ")


def parse_explore(text: str, source: str = "FINDINGS.md") -> list[dict]:
    """Every Explore line as {line, backend, case, status}; a malformed one raises ValueError naming the
    file, the line and the problem."""
    checks = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("Explore:"):
            continue
        match = EXPLORE.match(line.strip())
        if not match:
            raise ValueError(f"{source}:{number}: not 'Explore: <backend> <case with _explore_> <status>': {line!r}")
        if match["backend"] not in BACKENDS or match["status"] not in STATUSES:
            raise ValueError(f"{source}:{number}: unknown backend or status in {line!r}")
        checks.append(dict(line=number, backend=match["backend"], case=match["case"], status=match["status"]))
    return checks


def explore_mismatches(check: dict, explored: Path) -> list[str]:
    """What reports/explore/<backend>/ says differently from one Explore line (empty: it holds)."""
    import onnx

    from onnx_conformance.harness.backends.exact import ExactAdapter
    from onnx_conformance.harness.corpus import data_sets, value_types

    folder = explored / check["backend"]
    try:
        entry = json.loads((folder / "index.json").read_text())["cases"][check["case"]]
    except (OSError, ValueError, KeyError) as e:
        return [f"{folder / 'index.json'} has no entry for {check['case']} ({type(e).__name__})"]
    found = entry["found"]
    problems = [f"the index says {key} {found[key]}, the finding {check[key]}"
                for key in ("backend", "status") if found[key] != check[key]]
    case = folder / "node" / check["case"]
    for rel, digest in entry["files"].items():
        path = case / rel
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            problems.append(f"{path} is missing or not the file the index hashes")
    if problems:
        return problems
    # read as the graph declares each value: a sequence output (SplitToSequence) is a list of tensors
    data = data_sets(str(case), value_types(onnx.load(str(case / "model.onnx"))))[0]
    exact = ExactAdapter({})
    got = exact.run(exact.prepare_checked(str(case / "model.onnx"), None), data.inputs)
    for k, (e, g) in enumerate(zip(data.outputs, got)):
        if not _same_bits(e, g):
            problems.append(f"output {k}: the exact semantics now gives {g!r}, the case holds {e!r}")
    return problems


def _same_bits(expected, got) -> bool:
    """A tensor equal in shape, type and every byte; a sequence equal element by element."""
    if isinstance(expected, list):
        return isinstance(got, list) and len(got) == len(expected) and all(map(_same_bits, expected, got))
    g = np.asarray(got)
    return (expected.shape == g.shape and expected.dtype == g.dtype
            and expected.tobytes() == g.astype(expected.dtype).tobytes())


EXPLORE_CHECKS = parse_explore(FINDINGS.read_text(encoding="utf-8")) if FINDINGS.is_file() else []


@pytest.mark.parametrize("check", EXPLORE_CHECKS, ids=[f"{c['backend']}-{c['case']}" for c in EXPLORE_CHECKS])
def test_explore_finding_matches_its_committed_case(check):
    problems = explore_mismatches(check, EXPLORED)
    assert not problems, (f"FINDINGS.md:{check['line']} ({check['backend']} {check['case']} {check['status']}) "
                          "no longer holds: " + "; ".join(problems))


def test_every_committed_explore_case_is_a_finding():
    """reports/explore/ holds only what FINDINGS.md names: no find committed and forgotten."""
    named = {(c["backend"], c["case"]) for c in EXPLORE_CHECKS}
    committed = {(p.parent.parent.name, p.name) for p in EXPLORED.glob("*/node/*") if p.is_dir()}
    assert committed == named, (sorted(committed - named), sorted(named - committed))


def test_a_changed_explore_case_fails_the_check(tmp_path):
    """The explore check can fail: another status, a changed file, an expected value the semantics no longer gives."""
    import shutil

    if not EXPLORE_CHECKS:
        pytest.skip("FINDINGS.md names no explore find yet")
    check = EXPLORE_CHECKS[0]
    shutil.copytree(EXPLORED / check["backend"], tmp_path / check["backend"])
    assert explore_mismatches(check, tmp_path) == []
    assert explore_mismatches(dict(check, status="timeout"), tmp_path) == [
        f"the index says status {check['status']}, the finding timeout"]
    output = tmp_path / check["backend"] / "node" / check["case"] / "test_data_set_0" / "output_0.pb"
    from onnx import numpy_helper

    from onnx_conformance.harness.corpus import read_tensor

    value = read_tensor(str(output))[0]
    changed = numpy_helper.from_array(np.full(value.shape[:-1] + (value.shape[-1] + 1,) if value.ndim else (1,), 7,
                                              dtype=value.dtype))
    output.write_bytes(output.read_bytes() + b"\x00")
    assert explore_mismatches(check, tmp_path) == [f"{output} is missing or not the file the index hashes"]
    index_path = tmp_path / check["backend"] / "index.json"
    index = json.loads(index_path.read_text())
    output.write_bytes(changed.SerializeToString())
    files = index["cases"][check["case"]]["files"]
    files["test_data_set_0/output_0.pb"] = hashlib.sha256(output.read_bytes()).hexdigest()
    index_path.write_text(json.dumps(index))
    (problem,) = explore_mismatches(check, tmp_path)
    assert problem.startswith("output 0: the exact semantics now gives"), problem
    with pytest.raises(ValueError, match="FINDINGS.md:2: not 'Explore:"):
        parse_explore("x\nExplore: onnxruntime test_x_opset1_float fail\n")


def test_a_changed_sequence_output_fails_the_check():
    """A sequence output (SplitToSequence's) is compared element by element: a missing, an extra or a
    changed tensor is a difference, as is a tensor where a sequence is held."""
    one, two = np.array([1.0], np.float32), np.array([2.0], np.float32)
    assert _same_bits([one, two], [one.copy(), two.copy()])
    assert not _same_bits([one, two], [one])
    assert not _same_bits([one], [one, two])
    assert not _same_bits([one, two], [one, one])
    assert not _same_bits([one], one)
    assert not _same_bits([one], [np.float32(1.0)])
