"""The option table: each option declared once, and the command line, the plugin and the run's settings derived from it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _pytest.config.argparsing import Parser

from onnx_conformance.harness import cli, options
from tests.conftest import REPO, TOY, run_cli


def _plugin_settings(args: list[str]) -> options.Settings:
    """What the plugin's run reads, given the arguments run-conformance hands pytest."""
    parser = Parser(_ispytest=True)
    options.add_to_pytest(parser.getgroup("conformance"))
    namespace = parser.parse(args)
    return options.Settings(lambda dest: getattr(namespace, "conformance_" + dest))


def _through_the_plugin(argv: list[str], tmp_path: Path) -> options.Settings:
    args, rest = cli.build_parser().parse_known_args(argv)
    assert not rest
    handed = cli.pytest_args(args, tmp_path / "cases", tmp_path / "reports", [])
    # pytest's own switches and the corpus argument aside: the plugin's options
    start = handed.index("console_output_style=classic") + 1
    return _plugin_settings(handed[start:-1])


def test_every_option_reaches_the_run_as_given(tmp_path):
    settings = _through_the_plugin([
        "--backend", "reference", "--backend-option", "a=1", "--backend-option", "b=x=y", "-n", "3",
        "--timeout", "2.5", "--expectations", "e.txt", "--update-expectations", "--allow-fixes", "--strict",
        "--resume", "--memory-limit", "512M", "--op", "Abs", "--op", "Add", "--shard", "2/3",
        "--shard-durations", "r.jsonl", "--rerun-failures", "2"], tmp_path)
    assert settings.backend == "reference" and settings.backend_option == {"a": "1", "b": "x=y"}
    assert settings.cases == str(tmp_path / "cases") and settings.report_dir == str(tmp_path / "reports")
    assert settings.workers == 3 and settings.timeout == 2.5 and settings.expectations == "e.txt"
    assert settings.update_expectations and settings.allow_fixes and settings.strict and settings.resume
    assert settings.memory_limit == 512 << 20 and settings.op == ["Abs", "Add"]
    assert settings.shard == (2, 3) and settings.shard_durations == "r.jsonl" and settings.rerun_failures == 2


def test_defaults_are_the_tables(tmp_path):
    settings = _through_the_plugin([], tmp_path)
    for option in options.OPTIONS:
        assert option.flag in cli.build_parser().format_help()
        value = getattr(settings, option.dest)
        if option.dest in ("cases", "report_dir"):
            continue  # resolved by run-conformance
        given = [] if option.action == "append" else False if option.action == "store_true" else option.default
        assert value == (option.check(given) if option.check else given), option.dest
    assert settings.timeout == 60.0 and settings.workers == 1 and settings.memory_limit == 4 << 30
    # the same defaults when the plugin is used without run-conformance
    plain = _plugin_settings([])
    assert {o.dest: getattr(plain, o.dest) for o in options.OPTIONS} == {o.dest: getattr(settings, o.dest)
                                                                        for o in options.OPTIONS} | {
        "cases": None, "report_dir": None}


@pytest.mark.parametrize("argv, message", [
    (["--timeout", "0"], "--timeout must be positive, got 0"),
    (["--backend-option", "novalue"], "--backend-option wants KEY=VALUE, got 'novalue'"),
    (["-n", "two"], "-n wants a number of executor processes or 'auto', got 'two'"),
    (["--memory-limit", "lots"], "--memory-limit: "),
    (["--rerun-failures", "-1"], "--rerun-failures must be 0 or more, got -1"),
    (["--update-expectations"], "--update-expectations needs --expectations FILE"),
])
def test_a_bad_value_is_named_as_the_command_line_spells_it(argv, message, tmp_path):
    with pytest.raises(options.OptionError, match="^" + message.replace("(", r"\(")):
        _through_the_plugin(argv, tmp_path)


def test_a_new_option_is_one_row(monkeypatch, tmp_path):
    row = options.Option("--warm-up", "warm_up", metavar="SECONDS", type=float, default=1.0, help="a new one")
    monkeypatch.setattr(options, "OPTIONS", (*options.OPTIONS, row))
    assert "--warm-up SECONDS" in cli.build_parser().format_help()
    assert _through_the_plugin(["--warm-up", "2"], tmp_path).warm_up == 2.0
    assert _through_the_plugin([], tmp_path).warm_up == 1.0


@pytest.mark.parametrize("argv, message", [
    (["--conformance-timeout", "0"], "--conformance-timeout must be positive, got 0"),
    (["--conformance-workers", "two"], "--conformance-workers wants a number of executor processes or 'auto'"),
    (["--conformance-shard", "3/2"], "--conformance-shard K/N needs 1 <= K <= N, got '3/2'"),
    (["--conformance-update-expectations"], "--conformance-update-expectations needs --conformance-expectations FILE"),
])
def test_a_bad_value_is_named_as_the_plugin_spells_it_where_pytest_is_started_directly(argv, message):
    parser = Parser(_ispytest=True)
    options.add_to_pytest(parser.getgroup("conformance"))
    namespace = parser.parse(argv)
    with pytest.raises(options.OptionError, match="^" + message.replace("(", r"\(")):
        options.Settings(lambda dest: getattr(namespace, "conformance_" + dest), lambda option: option.plugin_flag)


def _pytest_directly(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-c", os.devnull, "-p", "onnx_conformance.harness.plugin",
                           *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_the_run_names_an_option_as_the_user_gave_it(corpus, tmp_path):
    """pytest started directly: the plugin's --conformance-* flags; run-conformance: its own."""
    proc = _pytest_directly("--conformance-cases", str(corpus), "--conformance-timeout", "0", cwd=tmp_path)
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR
    assert "--conformance-timeout must be positive, got 0" in proc.stderr
    proc = _pytest_directly("--conformance-cases", str(corpus), "--conformance-backend", TOY,
                            "--conformance-op", "Nope", str(corpus), cwd=tmp_path)
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR
    assert "--conformance-op Nope: no case of that operator in" in proc.stderr
    proc = run_cli("--cases", str(corpus), "--backend", TOY, "--timeout", "0", cwd=tmp_path)
    assert proc.returncode == 2 and "--timeout must be positive, got 0" in proc.stdout + proc.stderr
    assert "--conformance-" not in proc.stdout + proc.stderr
