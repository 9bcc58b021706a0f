"""onnx's own backend-test Runner over a corpus on disk, as a pytest module (the peer runner).

    ONNX_NODE_CASES=DIR python -m pytest bench/onnx_runner_cases.py [-n N] [--junitxml FILE]

`onnx.backend.test.runner.Runner` is used unchanged, driving `onnxruntime.backend` (or the
module named by ONNX_RUNNER_BACKEND). Its node cases come from DIR (written by
`generate-cases --onnx-node-tests --out DIR`) as `TestCase(model_dir=...)`, which is how the
Runner read `onnx/backend/test/data/node/` when onnx shipped it as files: it takes its on-disk
path, `onnx.load` + `backend.prepare(model)` + `_load_proto` per declared type. onnx 1.23's
`load_model_tests(kind="node")` ignores any directory and rebuilds the cases in memory, so it is
replaced for the duration of the Runner's constructor, and the other kinds (real, simple,
pytorch-*) are left out. Each case gives two tests, `<case>_cpu` and `<case>_cuda`.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import onnx.backend.test.runner as onnx_runner
from onnx.backend.test.case.test_case import TestCase

# The Runner's defaults for a case without data.json (onnx/backend/test/loader/__init__.py).
RTOL, ATOL = 1e-3, 1e-7


def disk_cases(root: Path) -> list[TestCase]:
    found = sorted({p.parent for p in Path(root).rglob("model.onnx")}, key=lambda p: p.name)
    return [TestCase(name=d.name, model_name=d.name, url=None, model_dir=str(d), model=None,
                     data_sets=None, kind="node", rtol=RTOL, atol=ATOL) for d in found]


def runner_for(root: Path, backend, parent_module: str | None = None) -> onnx_runner.Runner:
    cases = disk_cases(root)
    original = onnx_runner.load_model_tests
    onnx_runner.load_model_tests = lambda data_dir=None, kind=None: cases if kind == "node" else []
    try:
        return onnx_runner.Runner(backend, parent_module)
    finally:
        onnx_runner.load_model_tests = original


_root = os.environ.get("ONNX_NODE_CASES")
if _root:
    _backend = importlib.import_module(os.environ.get("ONNX_RUNNER_BACKEND", "onnxruntime.backend"))
    globals().update(runner_for(Path(_root), _backend, __name__).test_cases)
