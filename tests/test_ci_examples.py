"""The CI examples in .ci/examples/ run: their run-conformance and merge-reports lines, taken from
the files as written, split a toy corpus into shards and merge them back into one run's report,
and the merge's exit code is the gate's verdict on the committed baseline.

No YAML parser is needed (pyyaml is not a dependency): command lines are found by their first
word, backslash continuations joined, and the CI's matrix variables replaced by concrete values.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from onnx_conformance.harness import expectations as baseline
from onnx_conformance.harness import shard
from onnx_conformance.harness.backends.registry import builtin_names
from onnx_conformance.harness.results import pack_results
from tests.conftest import REPO, TOY, build_corpus, read_jsonl, run_cli

EXAMPLES = REPO / ".ci" / "examples"
# file -> (the matrix keys for backend and shard, how a variable is written)
FLAVOURS = {
    "github-actions.yml": ("backend", "shard", re.compile(r"\$\{\{\s*matrix\.(\w+)\s*\}\}")),
    "gitlab-ci.yml": ("BACKEND", "SHARD", re.compile(r"\$(?:\{(\w+)\}|(\w+))")),
}
# console script -> module, from pyproject.toml's [project.scripts] (no tomllib on Python 3.10)
SCRIPTS = dict(re.findall(r'^([\w-]+)\s*=\s*"([\w.]+):\w+"', (REPO / "pyproject.toml").read_text(
    encoding="utf-8").split("[project.scripts]", 1)[1].split("\n[", 1)[0], re.M))
COMMAND = re.compile(r"^\s*(?:-\s+|run:\s+)?((?:run-conformance|merge-reports)\b.*)$")
SHELL_OPERATORS = {"||", "&&", ";", "|", "&"}

ADDS = [f"test_add_{i:02d}" for i in range(10)]
SKIPPED = "test_add_09"  # a `skip` entry: only a shard that reads the baseline leaves it unrun
INVALID = "test_add_invalid"  # the toy accepts what the spec rejects: a known `fail`
HEAVY = {"test_add_00": 5.0, "test_add_01": 4.0, "test_reduce_sum_a": 3.0}  # dealt, not hashed
BASELINE = (f"{INVALID},fail,toy accepts an invalid model\n"
            f"{SKIPPED},skip,pretend it hangs\n")


def command_lines(text: str) -> list[str]:
    """Every run-conformance / merge-reports command in a CI file, continuations joined."""
    lines, out = text.splitlines(), []
    for i, line in enumerate(lines):
        m = COMMAND.match(line)
        if line.lstrip().startswith("#") or not m:
            continue
        cmd = m.group(1).rstrip()
        while cmd.endswith("\\"):
            i += 1
            cmd = cmd[:-1] + " " + lines[i].strip()
        out.append(cmd)
    return out


def matrix_values(text: str, key: str) -> list[str]:
    """The values a matrix key takes anywhere in the file (`key: [a, b]` or `key: a`), in order."""
    out: list[str] = []
    for m in re.finditer(rf"^\s*(?:-\s+)?{key}:[ \t]*(\S[^#\n]*)", text, re.M):
        value = m.group(1).strip()
        items = value[1:-1].split(",") if value.startswith("[") else [value]
        out += [v.strip().strip("'\"") for v in items if v.strip().strip("'\"") not in out]
    return out


def argv_of(command: str, pattern: re.Pattern, values: dict[str, str], cwd: Path) -> list[str]:
    """The words the shell would run: variables replaced, globs expanded, stopped at `||` etc."""
    def sub(m: re.Match) -> str:
        name = next(g for g in m.groups() if g)
        assert name in values, f"{command!r} uses ${name}, which this test does not know"
        return values[name]

    words = []
    for word in shlex.split(pattern.sub(sub, command)):
        if word in SHELL_OPERATORS:
            break
        matched = sorted(glob.glob(word, root_dir=cwd)) if any(c in word for c in "*?[") else []
        words += matched or [word]
    assert not any("$" in w for w in words), f"unreplaced variable in {words}"
    return words


def run_script(argv: list[str], cwd: Path, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """A console script from pyproject.toml, run as `python -m` its module."""
    assert argv[0] in SCRIPTS, f"{argv[0]} is not a console script in pyproject.toml"
    module = SCRIPTS[argv[0]]
    if module == "onnx_conformance.harness.cli":
        return run_cli(*argv[1:], *extra, cwd=cwd)
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    return subprocess.run([sys.executable, "-m", module, *argv[1:], *extra], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _statuses(path: Path) -> dict[str, dict]:
    return {r["case"]: {k: v for k, v in r.items() if k != "seconds"} for r in read_jsonl(path)}


@pytest.fixture(scope="module")
def corpus_and_whole(tmp_path_factory):
    """A small indexed corpus and one unsharded run of it, graded against BASELINE."""
    root = tmp_path_factory.mktemp("ci")
    cases = build_corpus(root / "cases", adds=ADDS, reduce_sums=["test_reduce_sum_a"],
                         errors=[INVALID], index=True)
    (root / "baseline.txt").write_text(BASELINE)
    whole = run_cli("--backend", TOY, "--cases", str(cases), "--expectations", str(root / "baseline.txt"),
                    "--report-dir", str(root / "whole"), cwd=root)
    assert whole.returncode == 0, whole.stdout[-2000:] + whole.stderr[-2000:]
    return cases, root / "whole", whole.returncode


@pytest.mark.parametrize("name", sorted(FLAVOURS))
def test_example_shards_merge_into_one_run_and_gate_it(name, corpus_and_whole, tmp_path, monkeypatch):
    cases, whole, whole_rc = corpus_and_whole
    # `-n auto` runs as written, under xdist, with one worker: a worker per core costs seconds here.
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "1")
    backend_key, shard_key, variable = FLAVOURS[name]
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    commands = command_lines(text)
    runs = [c for c in commands if c.startswith("run-conformance")]
    merges = [c for c in commands if c.startswith("merge-reports")]
    assert len(runs) == 1 and len(merges) == 1, commands

    backends, shards = matrix_values(text, backend_key), matrix_values(text, shard_key)
    assert {"onnxruntime", "openvino"} <= set(backends) <= set(builtin_names()), backends
    assert shards == [str(k) for k in range(1, len(shards) + 1)] and len(shards) > 1, shards

    # The CI checkout: the committed baseline and durations live under reports/<backend>/.
    checkout = tmp_path / "checkout"
    committed = checkout / "reports" / TOY
    committed.mkdir(parents=True)
    (committed / "expectations.txt").write_text(BASELINE)
    earlier = [{**r, "seconds": HEAVY.get(r["case"], r["seconds"])}
               for r in read_jsonl(whole / "results.jsonl")]
    (committed / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in earlier))
    pack_results(committed / "results.jsonl")  # the scoreboard commits only the compressed form
    (committed / "results.jsonl").unlink()

    names = {p.name: str(p) for p in (cases / "node").iterdir()}
    durations = shard.read_durations(committed / "results.jsonl.gz")
    assert shard.assign(names, len(shards), durations) != shard.assign(names, len(shards))
    for k in shards:  # each matrix job, one after another
        argv = argv_of(runs[0], variable, {backend_key: TOY, shard_key: k}, checkout)
        # --cases: CI generates the project's corpus; here it is the toy one.
        r = run_script(argv, checkout, ("--cases", str(cases)))
        assert r.returncode in (0, 3), f"{argv}\n{r.stdout[-2000:]}{r.stderr[-2000:]}"

    argv = argv_of(merges[0], variable, {backend_key: TOY}, checkout)
    m = run_script(argv, checkout)
    assert m.returncode == whole_rc == 0, f"{argv}\n{m.stdout}{m.stderr}"
    out = Path(checkout, argv[argv.index("--out") + 1])
    run = json.loads((out / "run.json").read_text())
    assert run["complete"] and len(run["shards"]) == len(shards), run["problems"]
    for s in run["shards"]:  # split as --shard-durations says, not by name alone
        want = shard.select(names, s["index"], len(shards), durations)
        got = read_jsonl(checkout / s["report_dir"] / "results.jsonl")
        assert sorted(r["case"] for r in got) == sorted(want)
    merged = [r["case"] for r in read_jsonl(out / "results.jsonl")]
    assert merged == sorted(names)  # every case, once
    assert _statuses(out / "results.jsonl") == _statuses(whole / "results.jsonl")
    assert _statuses(out / "results.jsonl")[SKIPPED]["status"] == "skip"

    # The merge grades against the committed baseline itself: without INVALID's entry, its
    # known failure is a regression, whatever the shards said when they ran.
    (committed / "expectations.txt").write_text(f"{SKIPPED},skip,pretend it hangs\n")
    m = run_script(argv, checkout)
    gate = baseline.evaluate(read_jsonl(whole / "results.jsonl"),
                             baseline.load(committed / "expectations.txt"), set(names))
    assert m.returncode == gate.exit_code == baseline.REGRESSED, m.stdout + m.stderr
    assert f"REGRESSION {INVALID}: got fail, expected pass" in m.stdout


def test_shard_jobs_hand_their_reports_on_whatever_the_gate_says():
    """A shard's 1 or 3 must neither stop its report's upload nor the merge; the merge decides."""
    gh = (EXAMPLES / "github-actions.yml").read_text(encoding="utf-8")
    assert "fail-fast: false" in gh
    assert re.search(r"run-conformance [^|]*\|\| rc=\$\?\n", gh)
    (verdict,) = [line.strip() for line in gh.splitlines() if line.strip().startswith("case $rc in")]
    for rc, job in ((0, 0), (1, 0), (2, 2), (3, 0), (137, 137)):  # the shard step's own exit code
        assert subprocess.run(["bash", "-ec", f"rc={rc}\n{verdict}"]).returncode == job, rc
    assert gh.count("actions/upload-artifact@v4") == 2 and "actions/download-artifact@v4" in gh
    uploads = re.findall(r"- uses: actions/upload-artifact@v4\n\s+if: \$\{\{ !cancelled\(\) \}\}", gh)
    assert len(uploads) == 2
    merge_job = gh[gh.index("\n  merge:"):]
    assert re.search(r"needs: shard\b", merge_job) and "if: ${{ !cancelled() }}" in merge_job

    gl = (EXAMPLES / "gitlab-ci.yml").read_text(encoding="utf-8")
    shard_job, merge_job = gl.split("\nconformance-merge:")
    assert re.search(r"allow_failure:\n\s+exit_codes: \[1, 3\]", shard_job)
    assert re.search(r"artifacts:\n\s+when: always", shard_job)
    assert re.search(r"needs:.*\n\s+- job: conformance-shard\n\s+artifacts: true", merge_job)
    assert "\n  when: always" in merge_job


def test_examples_are_yaml_of_the_expected_shape():
    yaml = pytest.importorskip("yaml")
    gh = yaml.safe_load((EXAMPLES / "github-actions.yml").read_text(encoding="utf-8"))
    assert gh["jobs"]["shard"]["strategy"]["matrix"]["shard"] == [1, 2, 3, 4]
    assert gh["jobs"]["merge"]["needs"] == "shard"
    gl = yaml.safe_load((EXAMPLES / "gitlab-ci.yml").read_text(encoding="utf-8"))
    assert gl["conformance-shard"]["artifacts"]["when"] == "always"
    assert gl["conformance-shard"]["allow_failure"]["exit_codes"] == [1, 3]
    assert all(row["SHARD"] == ["1", "2", "3", "4"] for row in gl["conformance-shard"]["parallel"]["matrix"])
    assert gl["conformance-merge"]["needs"] == [{"job": "conformance-shard", "artifacts": True}]
