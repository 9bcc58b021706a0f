"""explore-cases' verdicts: a drawn case run on the backend (and, with --against, the other one) in run-conformance's executors, and what makes it a find."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from onnx_conformance.harness.explore_cases import Probe, write_files
from onnx_conformance.harness.statuses import CRASH, ERROR, FAIL, TIMEOUT, UNSUPPORTED

INTERESTING = (FAIL, ERROR, CRASH, TIMEOUT)
RECORDING = "onnx_conformance.harness.recording:Recording"


@dataclass
class Verdict:
    """`key`: what kind of find the case is (its status; with --against, how the two disagree), None
    when it is none; each backend's result as the executor gave it; both answers where they differ."""

    key: str | None
    result: dict
    other: dict | None = None
    answers: dict | None = None

    @property
    def declined(self) -> str | None:
        """The backend's reason where either backend declined the case."""
        for r in (self.result, self.other):
            if r is not None and r["status"] == UNSUPPORTED:
                return r["detail"]
        return None


class Judge:
    """The executors a search runs its cases in: the backend's, and with --against the other's, each
    wrapped in harness/recording.py's adapter so their answers can be compared."""

    def __init__(self, backend: str, options: dict, against: str | None, against_options: dict, timeout: float):
        from onnx_conformance.harness.executor import Executor

        self.scratch = Path(tempfile.mkdtemp(prefix="explore-cases-", dir=memory_folder()))
        if against is None:
            self.primary, self.other = Executor(backend, options, timeout=timeout), None
        else:
            from onnx_conformance.harness.recording import INNER, TAG

            self.primary = Executor(RECORDING, {**options, INNER: backend, TAG: "a"}, timeout=timeout)
            self.other = Executor(RECORDING, {**against_options, INNER: against, TAG: "b"}, timeout=timeout)

    def start(self) -> tuple[dict, dict | None]:
        """Each backend's name and version; BackendUnavailable (harness/executor.py) says why one failed."""
        return self.primary.start(), (self.other.start() if self.other is not None else None)

    def judge(self, probe: Probe) -> Verdict:
        from onnx_conformance.harness.corpus import Case

        folder = self.scratch / probe.name
        write_files(folder, probe.files)
        meta = probe.meta
        case = Case(name=probe.name, path=str(folder), op=meta["op"], opset=meta["opset"],
                    since_version=meta["since_version"], dtype=meta["dtype"], example=meta["example"],
                    kind=meta["kind"], domain=meta["domain"], tolerance=meta["tolerance"],
                    types=meta["types"], quality=meta.get("quality"))
        try:
            result = self.primary.run(case)
            if self.other is None:
                return Verdict(result["status"] if result["status"] in INTERESTING else None, result)
            return _differential(probe, folder, result, self.other.run(case))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            shutil.rmtree(f"{folder}.answer", ignore_errors=True)

    def close(self) -> None:
        for executor in (self.primary, self.other):
            if executor is not None:
                executor.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def memory_folder() -> str | None:
    """Where each drawn case is written for the executor to read: a memory file system where there is
    one (creating and removing a case's five files and folders there took 2 ms against 13 ms on this
    project's disk), else the system's temporary folder."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


def _differential(probe: Probe, folder: Path, result: dict, other: dict) -> Verdict:
    """Where the two backends disagree: both answered and the answers differ beyond the case's
    tolerance, or one answered and the other did not (an error, a crash, a hang)."""
    from onnx_conformance.harness.compare import compare_outputs

    if UNSUPPORTED in (result["status"], other["status"]):
        return Verdict(None, result, other)
    mine, theirs = _answer(folder, "a"), _answer(folder, "b")
    if mine is not None and theirs is not None:
        got = compare_outputs([x for x, _ in theirs], [x for x, _ in mine], probe.meta["tolerance"],
                              [n for _, n in theirs])
        if got.status == "pass":
            return Verdict(None, result, other)
        return Verdict("disagree", result, other, _summarise(probe, mine, theirs, got))
    if mine is None and theirs is None:
        return Verdict(None, result, other)
    return Verdict(f"{result['status']}/{other['status']}", result, other)


def _answer(folder: Path, tag: str) -> list | None:
    """What a backend answered for the case (harness/recording.py wrote it): [(array, type name)]."""
    from onnx_conformance.harness.corpus import read_tensor
    from onnx_conformance.harness.layout import numbered
    from onnx_conformance.harness.recording import answer_dir

    where = answer_dir(str(folder), tag)
    if not os.path.isdir(where):
        return None
    return [read_tensor(os.path.join(where, n)) for n in numbered(os.listdir(where), "output_")]


def _summarise(probe: Probe, mine: list, theirs: list, got) -> dict:
    """Both answers, and the exact value, where they first differ."""
    k = 0
    if got.detail.startswith("output "):
        try:
            k = int(got.detail.split()[1].rstrip(":"))
        except ValueError:
            k = 0
    index = list(got.first_bad_index) if got.first_bad_index is not None else None
    out = {"output": k, "index": index, "detail": got.detail}

    def at(arr) -> str:
        a = np.asarray(arr)
        if index is None or a.ndim != len(index):
            return f"shape {tuple(a.shape)}"
        try:
            return repr(a[tuple(index)].item())
        except Exception:  # noqa: BLE001 - an index the other answer's shape does not have
            return "?"

    for key, answers in (("backend", [x for x, _ in mine]), ("against", [x for x, _ in theirs]),
                         ("exact", probe.expected)):
        if k < len(answers):
            out[key] = at(answers[k])
    return out
