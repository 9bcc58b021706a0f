"""The option table: each option declared once, and the command line, the plugin and the run's settings derived from it."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.config.argparsing import Parser

from onnx_conformance.harness import cli, options


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
