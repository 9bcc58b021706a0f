"""explore-cases' cases: a drawn node built into a case (the semantics' outputs, the model, its files), and a find written into --out's corpus."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

WRITTEN_BY = "explore-cases"  # index.json's mark: a folder explore-cases may add finds to


class Discarded(Exception):
    """A draw that makes no case; `why` is how the summary counts it."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


@dataclass
class Probe:
    """A drawn node built into a case: its name, files, index facts and expected outputs."""

    name: str
    files: dict
    meta: dict
    expected: list
    output_types: list


def build(op, v, family, t, opset: int, drawn) -> Probe:
    """The drawn node as a case: expected outputs from the semantics, the model (onnx's full check), the
    files, named by their hash. Raises Discarded where the spec rejects the inputs, leaves them
    undefined, the family's rule does not apply or onnx's checker refuses the model; anything else
    a family or a semantics raises is the harness's own problem and passes through."""
    import onnx

    from onnx_conformance.generators.case import case_name, type_of
    from onnx_conformance.generators.emit import build_model
    from onnx_conformance.generators.protos import Built, files_of
    from onnx_conformance.generators.semantics import NotDeterministic, Rejected, Undefined
    from onnx_conformance.harness.dtypes import element_of
    from onnx_conformance.harness.strategies.common import Discard

    try:
        with np.errstate(all="ignore"):
            case = family.case(op, v, t, drawn)
    except Rejected:
        raise Discarded("rejected by the spec") from None
    except Undefined:
        raise Discarded("undefined by the spec") from None
    except (NotDeterministic, Discard):
        raise Discarded("no single value") from None
    try:
        model, feeds = build_model(op, v, opset, case, f"explore_{op.name}")
        onnx.checker.check_model(model, full_check=True)
    except Exception:  # noqa: BLE001 - onnx's checker or shape inference refuses the model
        raise Discarded("refused by onnx.checker") from None
    outputs = [(n, x) for n, x in case.outputs.items() if x is not None]
    built = Built("", {}, model, feeds, outputs, [element_of(type_of(x)) for _, x in outputs])
    files = files_of(built)
    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(rel.encode() + b"\0" + hashlib.sha256(files[rel]).digest())
    example = f"explore_{digest.hexdigest()[:10]}"
    meta = {"op": op.name, "domain": op.domain, "opset": opset, "since_version": v.since_version,
            "dtype": t.dtype, "types": dict(t), "example": example, "kind": case.kind,
            "reason": case.error, "tolerance": case.tolerance}
    if case.quality:
        meta["quality"] = case.quality
    name = case_name(op.name, example, opset, t.dtype, t.suffix)
    return Probe(name, files, meta, [x for _, x in outputs], built.output_types)


def write_files(folder: Path, files: dict) -> None:
    for rel, data in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


class FolderError(Exception):
    """--out cannot take finds; one line for the user."""


class FindsFolder:
    """--out: node/<case>/ for each find and index.json in the corpus's format, each entry with `found`.
    A folder explore-cases wrote before is added to; any other non-empty folder is refused."""

    def __init__(self, out: Path):
        from onnx_conformance.generators.emit import INDEX_FORMAT

        self.out = out
        index_path = out / "index.json"
        if index_path.exists():
            try:
                self.index = json.loads(index_path.read_text())
            except (OSError, ValueError) as e:
                raise FolderError(f"{index_path}: unreadable ({e})") from None
            if self.index.get("written_by") != WRITTEN_BY:
                raise FolderError(f"{out}: holds a corpus explore-cases did not write; choose another --out")
            return
        if out.exists() and any(out.iterdir()):
            raise FolderError(f"{out}: exists and is not empty; choose another --out")
        import onnx

        self.index = {"format": INDEX_FORMAT, "onnx_version": onnx.__version__, "written_by": WRITTEN_BY,
                      "cases": {}, "not_applicable": []}

    def __contains__(self, name: str) -> bool:
        return name in self.index["cases"]

    def add(self, probe: Probe, found: dict) -> None:
        """The case and its index entry, each written aside and moved in place: a stopped run leaves
        every find whole."""
        from onnx_conformance.generators.emit import index_bytes

        node = self.out / "node"
        node.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".find-", dir=node))
        try:
            write_files(staging, probe.files)
            os.replace(staging, node / probe.name)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        entry = dict(probe.meta)
        entry["files"] = {rel: hashlib.sha256(data).hexdigest() for rel, data in sorted(probe.files.items())}
        entry["found"] = found
        cases = self.index["cases"]
        cases[probe.name] = entry
        self.index["cases"] = dict(sorted(cases.items()))
        tmp = self.out / ".index.json.tmp"
        tmp.write_bytes(index_bytes(self.index))
        os.replace(tmp, self.out / "index.json")


def command(backend: str, options: dict, cases: str, name: str) -> str:
    """The run-conformance command that runs one find again."""
    parts = ["run-conformance", "--backend", backend]
    for key, value in options.items():
        parts += ["--backend-option", f"{key}={value}"]
    parts += ["--cases", cases, "-k", name]
    return " ".join(shlex.quote(x) for x in parts)
