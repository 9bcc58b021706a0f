"""run-conformance: grade one backend against a corpus, with pytest doing the running.

Exit codes (documented in full in harness/expectations.py):
    0 nothing regressed, 1 regressions, 2 usage/setup error or interrupted, 3 nothing ran.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import os
import sys
from pathlib import Path

from onnx_conformance.harness import commands, corpus_home, options
from onnx_conformance.harness.expectations import NOTHING_RAN, REGRESSED, SETUP_ERROR
from onnx_conformance.harness.results import report_dir_for

DESCRIPTION = """\
Run every case of an ONNX test-data corpus against a backend, each in an isolated executor
process, and grade the run against an expectations file. Results go to REPORT_DIR as they finish:
results.jsonl, run.json, junit.xml and the matrices."""

EPILOG = """\
Any other argument, and everything after --, goes to pytest: -k EXPR, -x, --lf, -v, -q, ...
Exit codes: 0 nothing regressed, 1 regressions, 2 usage or setup error (or interrupted),
3 nothing ran (no case selected, or every case skipped or unsupported)."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="run-conformance", description=DESCRIPTION, epilog=EPILOG, allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_to_parser(p)
    return p


def default_cases() -> Path:
    """The project's own corpus, generated on first use (only its index is committed): in a checkout
    <repo>/cases, installed from a wheel a per-user cache folder (harness/corpus_home.py)."""
    cases = corpus_home.default_corpus()
    if (cases / "node").is_dir():
        return cases
    try:
        from onnx_conformance.generators.emit import generate_corpus
    except ImportError as e:
        raise SystemExit(f"run-conformance: no corpus at {cases / 'node'} and the generator is "
                         f"not importable ({e}); pass --cases DIR") from None
    if not corpus_home.in_checkout():
        # nobody reads the reference evaluator's disagreements here: the cases alone, checked against the index
        return corpus_home.generate_into(cases, lambda tmp: generate_corpus(tmp, crosscheck=False), "run-conformance")
    print(f"run-conformance: generating the corpus into {cases} (first run only)", file=sys.stderr)
    generate_corpus(cases)
    return cases


def pytest_args(args: argparse.Namespace, cases: Path, report_dir: Path,
                passthrough: list[str]) -> list[str]:
    out = [
        # Isolation from whatever project we are started in: no pytest.ini/pyproject addopts,
        # no conftest.py above the corpus, no tests/ collected.
        "-c", os.devnull, "--rootdir", str(Path.cwd()), "--confcutdir", str(cases),
        "-p", "onnx_conformance.harness.plugin",
        # Hypothesis' plugin costs most of a second to import and cases never use it.
        "-p", "no:hypothesispytest",
        # pytest's warnings capture re-installs the warning filters around every item; a case's
        # warnings arise in its executor, never here. Python's own handling of the rest remains.
        "-p", "no:warnings",
        # Nothing to capture: backends run in executor processes whose output the executor keeps
        # (a crash's last words); capturing this process costs a dozen syscalls per case.
        "--capture=no",
        "-o", f"cache_dir={report_dir / '.pytest_cache'}",  # --lf remembers per report dir
        # No percentage at each line's end: a case pytest would only count is counted by the run
        # itself (fastpath.QUIET), which pytest's progress figure does not see. junit.xml, one testcase
        # per case, is the run's own too (harness/junit.py); a --junitxml of the user's still works.
        "-o", "console_output_style=classic",
    ]
    # Every option of the run, as the plugin spells it: the corpus and report directory as resolved here.
    out += options.as_plugin_args(lambda dest: getattr(args, dest), {"cases": cases, "report_dir": report_dir})
    return [*out, *passthrough, str(cases)]


class _ConfigCatcher(options.GivenAsFlags):
    """Keeps the pytest config so the gate's verdict can be read once pytest.main returns; being
    GivenAsFlags, it has the run name each option as run-conformance's flag, as the user gave it."""

    config = None

    def pytest_configure(self, config) -> None:
        self.config = config


def main(argv: list[str] | None = None, *, exiting: bool = False) -> int:
    """`exiting`: the process ends as this returns (entry), so what the run built stays frozen
    rather than walked by one more full collection (~0.4 s of a whole-corpus run)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    passthrough: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, passthrough = argv[:cut], argv[cut + 1:]
    args, unknown = build_parser().parse_known_args(argv)
    passthrough = [*unknown, *passthrough]

    unmet = options.needs_unmet(lambda dest: getattr(args, dest))
    if unmet:
        print(f"run-conformance: {unmet}", file=sys.stderr)
        return SETUP_ERROR
    if commands.wanted(lambda dest: getattr(args, dest)):  # --list-backends, --check-adapter: no run, no corpus
        try:
            settings = options.Settings(lambda dest: getattr(args, dest))
        except options.OptionError as e:
            print(f"run-conformance: {e}", file=sys.stderr)
            return SETUP_ERROR
        return commands.run(settings)
    try:
        cases = Path(args.cases).resolve() if args.cases else default_cases()
    except SystemExit as e:
        print(e, file=sys.stderr)
        return SETUP_ERROR
    except corpus_home.CorpusError as e:  # no packaged index, or the corpus generated differs from it
        print(f"run-conformance: {e}", file=sys.stderr)
        return SETUP_ERROR
    except Exception as e:  # the generator failed: say so in one line, not a traceback
        print(f"run-conformance: generating the corpus failed: {type(e).__name__}: {e}",
              file=sys.stderr)
        return SETUP_ERROR
    if not cases.is_dir():
        print(f"run-conformance: cases directory {cases} does not exist", file=sys.stderr)
        return SETUP_ERROR
    report_dir = Path(args.report_dir) if args.report_dir else report_dir_for(args.backend)
    report_dir = report_dir.resolve()
    report_dir.mkdir(parents=True, exist_ok=True)

    import pytest

    catcher = _ConfigCatcher()
    try:
        rc = int(pytest.main(pytest_args(args, cases, report_dir, passthrough), plugins=[catcher]))
    finally:
        if not exiting:
            # the run's items and results, frozen from the run's start on (fastpath.FastPath.gc_run_starts)
            gc.unfreeze()
    from onnx_conformance.harness.plugin import VERDICT  # only now: pytest must import the plugin itself to load it

    verdict = catcher.config.stash.get(VERDICT, None) if catcher.config is not None else None
    if verdict is not None:
        return verdict.exit_code
    if rc == pytest.ExitCode.NO_TESTS_COLLECTED:
        return NOTHING_RAN
    if rc == pytest.ExitCode.TESTS_FAILED:
        return REGRESSED
    return rc if rc == 0 else SETUP_ERROR


def entry() -> None:
    """The command: main(), then an exit without tearing down what the run built (86,000 items,
    cases and results: about 2 s of freeing memory the process is giving back anyway). Every
    report is written and closed by then; the exit handlers still run and the streams are flushed."""
    try:
        rc = main(exiting=True)
    except SystemExit as e:  # argparse's --help and usage errors
        rc = e.code if isinstance(e.code, int) else (0 if e.code is None else SETUP_ERROR)
        if e.code is not None and not isinstance(e.code, int):
            print(e.code, file=sys.stderr)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    os._exit(rc)


if __name__ == "__main__":
    entry()
