"""Every option of a run, declared once: the command line (cli), the pytest plugin and the run's settings derive from this table.

A new option is a new row of OPTIONS, then a read of `settings.<dest>` where the run uses it:
run-conformance's --help and parsing (cli.build_parser), what it hands pytest (cli.pytest_args),
the plugin's --conformance-* options (plugin.pytest_addoption) and the checked values the run reads
(Settings) all come from the row.
"""

from __future__ import annotations

import argparse
import os
import re
from typing import Any, Callable, NamedTuple

# The plugin's options carry this prefix, so it never collides with another plugin's --timeout or --backend.
PLUGIN_PREFIX = "--conformance-"


class OptionError(ValueError):
    """A value no run can use; from an option's check, the message begins with the option's flag as
    run-conformance spells it (Settings names it as the user gave it: respelled)."""


class GivenAsFlags:
    """What run-conformance hands pytest.main among its plugins (cli._ConfigCatcher): the options were given as its
    flags, so the run's messages name them so; in a pytest run started directly, as the plugin's --conformance-*."""


class Option(NamedTuple):
    flag: str  # as run-conformance spells it; the plugin's is PLUGIN_PREFIX + the flag's words (plugin_flag)
    dest: str  # the setting's name: Settings.<dest>, and the plugin's conformance_<dest>
    help: str
    metavar: str | None = None
    type: Callable | None = None  # what the command line converts the text with
    default: Any = None
    action: str | None = None  # "append" (repeatable) or "store_true" (a switch)
    check: Callable[[Any], Any] | None = None  # the value the run uses, from the parsed one; raises OptionError
    needs: str | None = None  # the dest of an option this one is meaningless without

    @property
    def plugin_flag(self) -> str:
        return PLUGIN_PREFIX + self.dest.replace("_", "-")


def _backend_options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise OptionError(f"--backend-option wants KEY=VALUE, got {pair!r}")
        options[key] = value
    return options


def _workers(text: str | None) -> int:
    """-n: a positive number of executor processes, or 'auto' for one per CPU core; none given, 1."""
    if text is None:
        return 1
    if text == "auto":
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 0 or str(n) != text.strip():
        raise OptionError(f"-n wants a number of executor processes or 'auto', got {text!r}")
    return max(1, n)  # 0, as xdist spells "no workers": the one executor


def _timeout(seconds: float) -> float:
    if not seconds > 0:
        raise OptionError(f"--timeout must be positive, got {seconds:g}")
    return seconds


def _memory_limit(text: str) -> int | None:
    from onnx_conformance.harness.case_files import parse_size

    try:
        return parse_size(text)
    except ValueError as e:
        raise OptionError(f"--memory-limit: {e}") from None


def _opset(n: int | None) -> int | None:
    if n is not None and n < 1:
        raise OptionError(f"--opset must be an ai.onnx opset, 1 or more, got {n}")
    return n


def _shard(text: str | None) -> tuple[int, int] | None:
    from onnx_conformance.harness import shard

    try:
        return shard.parse(text) if text else None
    except shard.ShardError as e:
        raise OptionError(str(e)) from None


def _confirm(mode: str) -> str:
    from onnx_conformance.harness.confirm import MODES

    if mode not in MODES:
        raise OptionError(f"--confirm wants one of {', '.join(MODES)}, got {mode!r}")
    return mode


def _reruns(n: int | None) -> int:
    n = n or 0
    if n < 0:
        raise OptionError(f"--rerun-failures must be 0 or more, got {n}")
    return n


OPTIONS: tuple[Option, ...] = (
    Option("--backend", "backend", metavar="NAME", default="onnxruntime",
           help="built-in adapter, entry point in group onnx_conformance.backends, or a "
                "dotted module path (module or module:Class); default onnxruntime"),
    Option("--backend-option", "backend_option", metavar="KEY=VALUE", action="append", check=_backend_options,
           help="passed to the adapter; repeatable"),
    Option("--cases", "cases", metavar="DIR",
           help="corpus: DIR/node/<case>/ or DIR/<case>/ (any folder with a model.onnx); "
                "default: the project's cases/ in a checkout, else the user's cached corpus (README "
                "'Using it without cloning'), generated first if missing"),
    Option("--report-dir", "report_dir", metavar="DIR", help="default reports/<backend>/"),
    Option("-n", "workers", metavar="N", check=_workers,
           help="executor processes running cases side by side (a number, or 'auto' for one "
                "per core); default 1"),
    Option("--timeout", "timeout", metavar="SECONDS", type=float, default=60.0, check=_timeout,
           help="per case, load to compare; default 60"),
    Option("--expectations", "expectations", metavar="FILE",
           help="baseline of known non-passing cases, lines 'case,status,reason'"),
    Option("--update-expectations", "update_expectations", action="store_true", needs="expectations",
           help="rewrite FILE from this run (every non-pass status, detail as reason)"),
    Option("--allow-fixes", "allow_fixes", action="store_true",
           help="an expected failure that now passes (or a fail that now only warns) does not fail the run"),
    Option("--strict", "strict", action="store_true",
           help="a warn (wrong only at values the corpus marks as needing more intermediate "
                "precision than the spec guarantees) with no baseline entry fails the run"),
    Option("--resume", "resume", action="store_true",
           help="keep the cases already in REPORT_DIR/results.jsonl and run the rest"),
    Option("--memory-limit", "memory_limit", metavar="SIZE", default="4G", check=_memory_limit,
           help="memory each executor process may use (4G, 512M; 0 for no limit); a "
                "backend that runs out is a crash of its case; default 4G"),
    Option("--opset", "opset", metavar="N", type=int, check=_opset,
           help="run every case above ai.onnx opset N at N where its operators' versions are in force "
                "there, as a release that supports up to N would load it (the rest: unsupported); "
                "default: the backend's declared maximum"),
    Option("--op", "op", metavar="NAME", action="append",
           help="only the cases of this operator (repeatable), by the index's operator name"),
    Option("--shard", "shard", metavar="K/N", check=_shard,
           help="run shard K of N (1-based): a deterministic, cost-balanced 1/N of the "
                "cases; merge the N report directories with merge-reports"),
    Option("--shard-durations", "shard_durations", metavar="RESULTS_JSONL",
           help="an earlier results.jsonl whose per-case seconds balance the shards"),
    Option("--rerun-failures", "rerun_failures", metavar="N", type=int, default=0, check=_reruns,
           help="rerun a failing case up to N times; a case whose status changes is "
                "'flaky' (never 'pass')"),
    Option("--confirm", "confirm", metavar="WHICH", default="unexpected", check=_confirm,
           help="run a failing case again alone in a fresh executor, and after only the case before it: a "
                "status that differs is 'order-dependent', naming that case. unexpected (default): what the "
                "baseline does not expect, or with no baseline a crash; all: every fail, error, crash and "
                "timeout; off"),
    Option("--plain-pytest", "plain_pytest", action="store_true",
           help="run and report each case by pytest's own protocol and hooks, without the runner's "
                "shortcuts into pytest's internals (harness/fastpath.py): slower, the same results"),
    # Two commands instead of a run (cli.main and plugin.pytest_cmdline_main start them): nothing else is read.
    Option("--check-adapter", "check_adapter", action="store_true",
           help="instead of a run: run a fixed set of small cases through the adapter (rank-0 and "
                "zero-sized tensors, every element type, sequences, optionals, maps, input and output "
                "order) and say which part of the adapter contract it breaks; exit 1 if any"),
    Option("--list-backends", "list_backends", action="store_true",
           help="instead of a run: list the backends (built-in and by entry point), whether each is "
                "installed, and the extra that installs it"),
)
BY_DEST: dict[str, Option] = {o.dest: o for o in OPTIONS}


def _add(add: Callable, option: Option, flag: str, dest: str) -> None:
    kwargs: dict[str, Any] = {"dest": dest, "help": option.help}
    if option.action == "store_true":
        kwargs["action"] = "store_true"
    else:
        kwargs["metavar"] = option.metavar
        if option.action == "append":
            kwargs.update(action="append", default=[])
        else:
            kwargs["default"] = option.default
        if option.type is not None:
            kwargs["type"] = option.type
    add(flag, **kwargs)


def add_to_parser(parser: argparse.ArgumentParser) -> None:
    """run-conformance's options."""
    for option in OPTIONS:
        _add(parser.add_argument, option, option.flag, option.dest)


def add_to_pytest(group) -> None:
    """The plugin's options (a pytest OptionGroup): the same, each under its prefixed flag."""
    for option in OPTIONS:
        _add(group.addoption, option, option.plugin_flag, "conformance_" + option.dest)


def cli_flag(option: Option) -> str:
    return option.flag


def respelled(message: str, option: Option, spelled: str) -> str:
    """A message that names `option` by the table's flag, naming it `spelled` instead (as the user gave it)."""
    if spelled == option.flag:
        return message
    return re.sub(rf"(?<![\w-]){re.escape(option.flag)}(?![\w-])", lambda _: spelled, message, count=1)


def needs_unmet(values: Callable[[str], Any], flag: Callable[[Option], str] = cli_flag) -> str | None:
    """What a given option lacks (`values`: a dest's value), in the words the user reads (`flag`: as they spell it)."""
    for option in OPTIONS:
        if option.needs and values(option.dest) and not values(option.needs):
            wanted = BY_DEST[option.needs]
            return f"{flag(option)} needs {flag(wanted)} {wanted.metavar}"
    return None


def as_plugin_args(values: Callable[[str], Any], given: dict[str, Any]) -> list[str]:
    """The plugin's arguments for the values a command line gave (`given` overrides some, as
    resolved by the caller): a switch when on, each item of a repeatable option, any other value
    unless None or its falsy default."""
    out: list[str] = []
    for option in OPTIONS:
        value = given[option.dest] if option.dest in given else values(option.dest)
        if option.action == "store_true":
            out += [option.plugin_flag] if value else []
        elif option.action == "append":
            for item in value or ():
                out += [option.plugin_flag, str(item)]
        elif value is not None and (value or option.default):  # 0 where 0 is the default: not given
            out += [option.plugin_flag, str(value)]
    return out


class Settings:
    """A run's checked settings, one attribute per option's dest (each option's `check` applied). `flag`: how the
    user spelled the options (run-conformance's flags unless told otherwise), for the messages that name them."""

    def __init__(self, values: Callable[[str], Any], flag: Callable[[Option], str] = cli_flag):
        self._flag = flag
        for option in OPTIONS:
            value = values(option.dest)
            if option.action == "append" and value is None:
                value = []
            try:
                setattr(self, option.dest, option.check(value) if option.check else value)
            except OptionError as e:
                raise OptionError(respelled(str(e), option, flag(option))) from None
        unmet = needs_unmet(values, flag)
        if unmet:
            raise OptionError(unmet)

    def flag(self, dest: str) -> str:
        """The option as the user gave it: run-conformance's flag, or the plugin's --conformance-* one."""
        return self._flag(BY_DEST[dest])

    cases: str | None
    backend: str
    backend_option: dict[str, str]
    report_dir: str | None
    workers: int
    timeout: float
    expectations: str | None
    update_expectations: bool
    allow_fixes: bool
    strict: bool
    resume: bool
    memory_limit: int | None
    opset: int | None
    op: list[str]
    shard: tuple[int, int] | None
    shard_durations: str | None
    rerun_failures: int
    confirm: str
    plain_pytest: bool
    check_adapter: bool
    list_backends: bool


def from_pytest(config) -> Settings:
    """The settings of a pytest run from its --conformance-* options, named as the user gave them: as
    run-conformance's flags when it started the run (GivenAsFlags), else as the plugin's."""
    by_cli = any(isinstance(p, GivenAsFlags) for p in config.invocation_params.plugins or ())
    return Settings(lambda dest: config.getoption("conformance_" + dest),
                    cli_flag if by_cli else lambda option: option.plugin_flag)
