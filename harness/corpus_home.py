"""Where the default corpus lives: a checkout's cases/, or for an installed package a per-user cache keyed by its index."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

ENV = "ONNX_CONFORMANCE_CACHE"
# A checkout (or an editable install of one): the folder holding harness/, generators/ and cases/.
# Installed from a wheel: site-packages/onnx_conformance, which holds the index as package data.
PACKAGE = Path(__file__).resolve().parent.parent
CHECKOUT_CASES = PACKAGE / "cases"
PACKAGED_INDEX = PACKAGE / "corpus" / "index.json"


class CorpusError(Exception):
    """The default corpus cannot be had: the index is missing, or what was generated differs from it."""


def in_checkout() -> bool:
    """A repository checkout keeps its corpus in <repo>/cases, beside the committed index."""
    return (CHECKOUT_CASES / "index.json").is_file()


def cache_root(environ=os.environ) -> Path:
    """$ONNX_CONFORMANCE_CACHE, else $XDG_CACHE_HOME/onnx-conformance, else ~/.cache/onnx-conformance.
    The XDG base directory spec: 'If an implementation encounters a relative path in any of these
    variables it should consider the path invalid and ignore it.'"""
    if environ.get(ENV):
        return Path(environ[ENV]).expanduser()
    xdg = environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "onnx-conformance"


def identity(index: bytes) -> str:
    """onnx-<the index's onnx version>-<its sha256, 16 digits>: the index pins every byte of the corpus
    (and run.json names a corpus by the same sha256)."""
    return f"onnx-{index_onnx_version(index)}-{hashlib.sha256(index).hexdigest()[:16]}"


def index_onnx_version(index: bytes) -> str:
    """The index's top-level onnx_version, read without parsing 70 MB: index_bytes writes top-level keys
    at an indent of one, and every case's fields deeper."""
    at = index.rfind(b'\n "onnx_version": ')
    if at < 0:
        raise CorpusError(f"{PACKAGED_INDEX}: no onnx_version in the index")
    line = index[at + 1:index.index(b"\n", at + 1)].decode().rstrip(",")
    return json.loads("{" + line + "}")["onnx_version"]


def packaged_index() -> bytes:
    try:
        return PACKAGED_INDEX.read_bytes()
    except OSError as e:
        raise CorpusError(f"{PACKAGED_INDEX}: the package's corpus index is missing ({e.strerror}); "
                          "reinstall onnx-conformance, or pass --cases DIR") from None


def default_corpus() -> Path:
    """<repo>/cases in a checkout; else <cache root>/<identity>, generated or not."""
    if in_checkout():
        return CHECKOUT_CASES
    return cache_root() / identity(packaged_index())


def generate_into(final: Path, write: Callable[[Path], object], who: str, replace: bool = False) -> Path:
    """Make the installed package's corpus at `final`, once and atomically: write(tmp) into a folder beside
    it, check that its index.json is the packaged index byte for byte, then rename it into place. A corpus
    already there (another process's, finished first) is kept, or with `replace` replaced. An interrupted
    or wrong generation leaves nothing at `final`."""
    index = packaged_index()
    import onnx

    made_with = index_onnx_version(index)
    if made_with != onnx.__version__:
        raise CorpusError(f"{PACKAGED_INDEX}: the corpus index was made with onnx {made_with}, installed is "
                          f"{onnx.__version__}: pip install onnx=={made_with}")
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".{final.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{who}: generating the corpus into {final} (once; {ENV} puts it elsewhere)", file=sys.stderr)
    try:
        write(tmp)
        got = (tmp / "index.json").read_bytes()
        if got != index:
            raise CorpusError(f"{tmp}: the generated corpus differs from {PACKAGED_INDEX}: {_difference(index, got)}")
        old = final.parent / f".{final.name}.old-{os.getpid()}"
        if final.exists() and (replace or not (final / "node").is_dir()):
            final.rename(old)
        try:
            tmp.rename(final)
        except OSError:
            if not (final / "node").is_dir():  # else another process's corpus, renamed in first: the same bytes
                raise
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final


def _difference(want: bytes, got: bytes) -> str:
    from onnx_conformance.generators.cli import diff_cases

    try:
        a, b = json.loads(want), json.loads(got)
    except ValueError as e:
        return f"not an index ({e})"
    problems = diff_cases(a["cases"], b["cases"], "generated")
    if not problems:
        return "the same cases, other top-level fields"
    return f"{len(problems)} differences, first: {problems[0]}"
