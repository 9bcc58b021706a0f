"""--shard K/N and merge-reports: N shards cover the corpus once; merged, they equal one run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from onnx_conformance.harness import shard
from tests.conftest import REPO, TOY, build_corpus, read_jsonl, run_cli

NAMES = [f"test_add_{i:02d}" for i in range(14)]


def merge(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "onnx_conformance.harness.merge", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": str(REPO), "PATH": ""})


def test_parse():
    assert shard.parse("2/4") == (2, 4)
    for bad in ("0/4", "5/4", "2", "a/b", "2/0"):
        with pytest.raises(shard.ShardError):
            shard.parse(bad)


def test_every_case_in_exactly_one_shard_and_the_same_every_time(tmp_path):
    cases = {f"test_{i}": str(tmp_path) for i in range(500)}
    a, b = shard.assign(cases, 4), shard.assign(dict(reversed(list(cases.items()))), 4)
    assert a == b and set(a) == set(cases) and set(a.values()) == {1, 2, 3, 4}
    union = set().union(*(shard.select(cases, k, 4) for k in range(1, 5)))
    assert union == set(cases)
    assert max(list(a.values()).count(k) for k in range(1, 5)) < 500 / 4 * 1.25


def test_adding_a_case_moves_no_other_light_case(tmp_path):
    cases = {f"test_{i}": str(tmp_path) for i in range(200)}
    before = shard.assign(cases, 3)
    after = shard.assign({**cases, "test_new": str(tmp_path)}, 3)
    assert {k: after[k] for k in before} == before


def test_heavy_cases_are_dealt_to_the_lightest_shard(tmp_path):
    cases = {f"test_{i}": str(tmp_path) for i in range(40)}
    durations = {name: 0.001 for name in cases}
    slow = [f"test_{i}" for i in range(6)]
    durations.update(dict.fromkeys(slow, 10.0))
    got = shard.assign(cases, 3, durations)
    assert sorted(sum(1 for s in slow if got[s] == k) for k in (1, 2, 3)) == [2, 2, 2]


def test_durations_file_must_be_results(tmp_path):
    bad = tmp_path / "r.jsonl"
    bad.write_text('{"case": "x"}\n')
    with pytest.raises(shard.ShardError, match="r.jsonl:1"):
        shard.read_durations(bad)


@pytest.fixture(scope="module")
def sharded(tmp_path_factory):
    """One unsharded run and four shards of the same corpus, with every kind of status."""
    root = tmp_path_factory.mktemp("shards")
    cases = build_corpus(root / "cases", adds=NAMES, reduce_sums=["test_reduce_sum_a"],
                         errors=["test_add_invalid"], index=True)
    options = ["--backend-option", "test_add_01=wrong_values", "--backend-option", "test_add_02=notimpl",
               "--backend-option", "test_add_03=error", "--backend-option", "test_add_04=abort"]
    common = ["--backend", TOY, *options, "--cases", str(cases)]
    whole = run_cli(*common, "--report-dir", str(root / "whole"), cwd=root)
    runs = [run_cli(*common, "--shard", f"{k}/4", "--report-dir", str(root / f"s{k}"), cwd=root)
            for k in range(1, 5)]
    return root, whole, runs


def _by_case(path):
    return {r["case"]: {k: v for k, v in r.items() if k != "seconds"} for r in read_jsonl(path)}


def test_four_shards_merged_equal_one_run(sharded):
    root, whole, runs = sharded
    assert whole.returncode == 1 and all(r.returncode in (0, 1) for r in runs), whole.stdout[-2000:]
    sizes = [len(read_jsonl(root / f"s{k}" / "results.jsonl")) for k in range(1, 5)]
    assert sum(sizes) == len(NAMES) + 2 and all(sizes)
    m = merge(*(str(root / f"s{k}") for k in (3, 1, 4, 2)), "--out", str(root / "merged"), cwd=root)
    assert m.returncode == 1, m.stderr  # the same verdict as the unsharded run: regressions
    merged, single = _by_case(root / "merged" / "results.jsonl"), _by_case(root / "whole" / "results.jsonl")
    assert merged == single
    assert [r["case"] for r in read_jsonl(root / "merged" / "results.jsonl")] == sorted(single)
    mj = json.loads((root / "merged" / "matrix.json").read_text())
    wj = json.loads((root / "whole" / "matrix.json").read_text())
    assert (mj["rows"], mj["summary"], mj["failures"]) == (wj["rows"], wj["summary"], wj["failures"])
    run = json.loads((root / "merged" / "run.json").read_text())
    assert run["complete"] is True and run["problems"] == [] and len(run["shards"]) == 4
    assert run["opset"] == json.loads((root / "whole" / "run.json").read_text())["opset"]
    assert run["counts"] == json.loads((root / "whole" / "run.json").read_text())["counts"]
    junit = (root / "merged" / "junit.xml").read_text()
    assert junit.count("<testcase ") == len(NAMES) + 2


def test_a_missing_shard_or_case_fails_loudly(sharded, tmp_path):
    root, _, _ = sharded
    m = merge(str(root / "s1"), str(root / "s2"), str(root / "s3"), "--out", str(tmp_path / "m"), cwd=root)
    assert m.returncode == 2
    assert "shard(s) 4/4 not given" in m.stderr
    lost = json.loads((root / "s4" / "run.json").read_text())["selection"]["cases"]
    assert lost and f"{lost} of the corpus's {len(NAMES) + 2} cases are in no shard given" in m.stderr
    assert json.loads((tmp_path / "m" / "run.json").read_text())["complete"] is False
    # A shard whose job died mid-way: its last case has no result.
    cut = tmp_path / "s4"
    shutil.copytree(root / "s4", cut)
    lines = (cut / "results.jsonl").read_text().splitlines(keepends=True)
    (cut / "results.jsonl").write_text("".join(lines[:-1]))
    m = merge(*(str(root / f"s{k}") for k in (1, 2, 3)), str(cut), "--out", str(tmp_path / "m2"), cwd=root)
    assert m.returncode == 2 and f"shard 4/4 ({cut}) recorded {len(lines) - 1} of the {len(lines)} cases it selected" \
        in m.stderr, m.stderr


def test_a_duplicated_shard_fails_loudly(sharded, tmp_path):
    root, _, _ = sharded
    dirs = [str(root / f"s{k}") for k in range(1, 5)]
    m = merge(*dirs, dirs[0], "--out", str(tmp_path / "m"), cwd=root)
    assert m.returncode == 2 and "shard 1/4 given twice" in m.stderr
    dup = read_jsonl(root / "s1" / "results.jsonl")[0]["case"]
    assert f"{dup}: duplicated, recorded by shards 1, 1" in m.stderr


def test_shards_of_different_runs_do_not_merge(sharded, tmp_path):
    root, _, _ = sharded
    other = tmp_path / "other"
    shutil.copytree(root / "s2", other)
    run = json.loads((other / "run.json").read_text())
    run["backend"]["version"] = "9.9"
    (other / "run.json").write_text(json.dumps(run))
    m = merge(str(root / "s1"), str(other), str(root / "s3"), str(root / "s4"), "--out", str(tmp_path / "m"),
              cwd=root)
    assert m.returncode == 2 and "shards differ in backend version" in m.stderr
    # the same backend, run at another opset ceiling (--opset): its verdicts answer another question
    shutil.copytree(root / "s2", other, dirs_exist_ok=True)
    run = json.loads((other / "run.json").read_text())
    run["opset"]["requested"] = 17
    (other / "run.json").write_text(json.dumps(run))
    m = merge(str(root / "s1"), str(other), str(root / "s3"), str(root / "s4"), "--out", str(tmp_path / "m"),
              cwd=root)
    assert m.returncode == 2 and "shards differ in opset" in m.stderr, m.stderr


def test_bad_shard_is_a_usage_error(tmp_path):
    cases = build_corpus(tmp_path / "cases", adds=["test_add_a"], index=True)
    r = run_cli("--backend", TOY, "--shard", "5/4", "--cases", str(cases), "--report-dir",
                str(tmp_path / "r"), cwd=tmp_path)
    assert r.returncode == 2 and "1 <= K <= N" in r.stdout + r.stderr


def test_workers_of_a_shard_run_exactly_its_cases(tmp_path):
    """Under -n 2 every worker computes the same shard: the cases run are the shard's, once each."""
    cases = build_corpus(tmp_path / "cases", adds=NAMES, index=True)
    r = run_cli("--backend", TOY, "--shard", "2/3", "-n", "2", "--cases", str(cases), "--report-dir",
                str(tmp_path / "r"), cwd=tmp_path)
    ran = [x["case"] for x in read_jsonl(tmp_path / "r" / "results.jsonl")]
    want = shard.select({n: str(cases / "node" / n) for n in NAMES}, 2, 3)
    assert sorted(ran) == sorted(want) and want, r.stdout[-2000:]
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    # what was selected, as its arguments, its count and its names' digest: not the names (a shard of the
    # whole corpus would list tens of thousands)
    assert run["selection"] == {"shard": "2/3", "cases": len(want), "names_sha256": shard.names_sha256(want)}
    assert run["shard"] == {"index": 2, "total": 3, "corpus_names_sha256": shard.names_sha256(NAMES)}
