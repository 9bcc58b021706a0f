"""IREE: ONNX imported to MLIR by iree.compiler's ONNX importer, compiled for llvm-cpu, run on the local-sync driver.

Compiling takes about a second a model, so compiled modules are kept by the sha256 of the model
bytes (with the graph renamed "main", plus compiler version, target and flags): in memory for the
process, and on disk under `cache_dir`, so a second run of the corpus compiles nothing. Compile failures are kept too (as
the compiler's message), since they cost as much as successes. Models with external data are
keyed by model.onnx alone; such a corpus needs `cache_dir=` pointed somewhere disposable.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import onnx
import iree.compiler
import iree.compiler.version
import iree.compiler.tools
import iree.runtime as rt
import iree.runtime.version
from iree.compiler import ir
from iree.compiler.extras import onnx_importer

from onnx_conformance.harness import dtypes
from onnx_conformance.harness.backends.base import Adapter, Capabilities

# On the committed scoreboard (registry.scoreboard_backends), on one case per cell, and why.
SCOREBOARD = {
    "order": 6,
    "sampled": "IREE compiles every model ahead of time, about 0.25 s a case on a 2-core machine: the whole "
               "corpus would take about 6 hours at -n 2, one case per cell about half an hour",
}

# IREE's own words when it declines a model rather than finds it wrong, each from a real failure
# (tests/test_backend_iree.py triggers them):
_DECLINED = (
    # No lowering for an operator, or for this operator at the model's opset, or with a dynamic
    # input it needs constant: torch-mlir leaves the node as torch.operator "onnx.X" and IREE says
    # "failed to legalize operation 'torch.operator' that was explicitly marked illegal".
    re.compile(r"failed to legalize operation 'torch\.\w+(\.\w+)*'"),
    # An element type the importer has no MLIR type for: "Unknown ONNX tensor element type: 27".
    re.compile(r"Unknown ONNX tensor element type"),
)


class CompileError(Exception):
    """iree-compile refused the imported module; the message is the compiler's diagnostics."""


class IreeAdapter(Adapter):
    name = "iree"
    option_help = {
        "cache_dir": "where compiled modules are kept (default $XDG_CACHE_HOME or ~/.cache, "
        "then onnx-conformance/iree); 'none' keeps them in memory only",
        "target": "iree-compile --iree-hal-target-backends (default llvm-cpu)",
        "driver": "iree runtime driver (default local-sync)",
        "flags": "extra iree-compile flags, space-separated (e.g. --iree-input-demote-f64-to-f32=false; "
        "the default demotes double to float, as users get it)",
    }

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        self.target = self.options.get("target", "llvm-cpu")
        self.driver = self.options.get("driver", "local-sync")
        cache = self.options.get("cache_dir") or str(_default_cache_dir())
        self.cache_dir = None if cache == "none" else Path(cache).expanduser()
        try:
            self.config = rt.Config(self.driver)
        except Exception as exc:  # noqa: BLE001 - one line for the user
            raise ValueError(f"driver {self.driver!r} is not available: {exc}") from None
        self.compiled: dict[str, bytes | CompileError] = {}
        # Host-CPU code generation: the cache would otherwise hand a module built for another
        # machine's CPU to this one; the target triple and features are in the flags.
        self.flags = [f"--iree-hal-target-backends={self.target}"]
        if self.target == "llvm-cpu":
            self.flags.append("--iree-llvmcpu-target-cpu=host")
        self.flags += self.options.get("flags", "").split()

    @property
    def version(self) -> str:
        return f"iree-base-compiler {iree.compiler.version.VERSION}, iree-base-runtime {rt.version.VERSION}"

    # The importer and iree-compile refuse no opset or IR version; each node is lowered by the
    # torch-mlir pattern for its operator at the model's opset, and a missing one is declined
    # as above. So the range is what the installed onnx defines.
    capabilities = Capabilities(opset=(1, onnx.defs.onnx_opset_version()), ir=(1, onnx.IR_VERSION))

    def prepare(self, model_path: str) -> Any:
        model = onnx.load_from_string(Path(model_path).read_bytes())
        outputs = [dtypes.name_of(o.type.tensor_type.elem_type) for o in model.graph.output]
        # The graph's name has no meaning but is part of every case's bytes (the corpus names it
        # after the case): one name for all lets cases that differ only by data share a module.
        model.graph.name = "main"
        vmfb = self._compiled(model.SerializeToString(), model_path)
        context = rt.SystemContext(config=self.config)
        module = rt.VmModule.copy_buffer(context.instance, vmfb)
        context.add_vm_module(module)
        entry = [f for f in module.function_names if f != "__init" and not f.endswith("$async")]
        if len(entry) != 1:
            raise RuntimeError(f"compiled module has functions {module.function_names}, expected one entry point")
        return context.modules[module.name][entry[0]], outputs

    def run(self, prepared: Any, inputs: Sequence[np.ndarray]) -> list[Any]:
        function, declared = prepared
        device = self.config.device
        # asdevicearray names each buffer by the numpy dtype (uint32 as UINT_32, bfloat16 as
        # BFLOAT_16); the module checks them against its signature, so nothing is cast here.
        args = [rt.asdevicearray(device, np.asarray(x)) for x in inputs]
        results = function(*args)
        if not isinstance(results, (tuple, list)):
            results = [results]
        return [_to_numpy(r, declared[k] if k < len(declared) else None) for k, r in enumerate(results)]

    def classify(self, exc: BaseException, stage: str) -> str:
        if super().classify(exc, stage) == "unsupported":
            return "unsupported"
        if any(p.search(str(exc)) for p in _DECLINED):
            return "unsupported"
        return "error"

    # --- compiling, cached ----------------------------------------------------------------

    def _compiled(self, data: bytes, model_path: str) -> bytes:
        key = hashlib.sha256(
            b"\0".join([data, iree.compiler.version.VERSION.encode(), *(f.encode() for f in self.flags)])
        ).hexdigest()
        found = self.compiled.get(key)
        if found is None and self.cache_dir is not None:
            found = _read_cached(self.cache_dir, key)
        if found is None:
            try:
                found = iree.compiler.tools.compile_str(
                    _import(data, model_path), input_type="auto", extra_args=self.flags
                )
            except iree.compiler.tools.CompilerToolError as exc:
                found = CompileError(_diagnostics(str(exc)))
                if _killed(str(exc)):  # the OOM killer or a user, not the model: try again next time
                    raise found from exc
            if self.cache_dir is not None:
                _write_cached(self.cache_dir, key, found)
        self.compiled[key] = found
        if isinstance(found, CompileError):
            raise found
        return found


def _default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "onnx-conformance" / "iree"


def _import(data: bytes, model_path: str) -> str:
    """The model as torch-dialect MLIR text, as `iree-import-onnx` makes it (checker, shape
    inference with data propagation, then the importer), without the opset upgrade it offers:
    the case's own opset is what is under test."""
    model = onnx.load_from_string(data)
    if model.graph.initializer and any(i.data_location == onnx.TensorProto.EXTERNAL for i in model.graph.initializer):
        onnx.load_external_data_for_model(model, os.path.dirname(os.path.abspath(model_path)))
    onnx.checker.check_model(model)
    model = onnx.shape_inference.infer_shapes(model, data_prop=True)
    context = ir.Context()
    info = onnx_importer.ModelInfo(model)
    module = info.create_module(context=context).operation
    onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()
    module.verify()
    return module.get_asm(assume_verified=True)


def _diagnostics(text: str) -> str:
    """The compiler's own lines from CompilerToolError, without the command line and the advice."""
    body = text.split("Diagnostics:", 1)[-1]
    body = body.split("Invoked with:", 1)[0]
    return body.strip() or text.strip()


def _killed(text: str) -> bool:
    """iree-compile ended by SIGKILL ("Error code: -9")."""
    return re.search(r"Error code: -9\b", text) is not None


def _read_cached(cache_dir: Path, key: str) -> bytes | CompileError | None:
    try:
        return (cache_dir / f"{key}.vmfb").read_bytes()
    except OSError:
        pass
    try:
        return CompileError((cache_dir / f"{key}.error").read_text())
    except OSError:
        return None


def _write_cached(cache_dir: Path, key: str, value: bytes | CompileError) -> None:
    """Written to a temporary name and renamed, so parallel workers never read half a file."""
    name, payload = (f"{key}.error", str(value).encode()) if isinstance(value, CompileError) else (f"{key}.vmfb", value)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.replace(tmp, cache_dir / name)
    except OSError:
        pass  # a read-only or full cache only costs a recompile next time


# Signless HAL integers carry no sign: torch-mlir lowers ONNX uint32 to i32, and the runtime
# shows it as numpy int32. The declared ONNX type is the only thing that says how to read them.
# (Compared as ints: the buffer view gives a plain int, which the enum does not equal.)
_SIGNLESS = {int(t) for t in (rt.HalElementType.INT_8, rt.HalElementType.INT_16, rt.HalElementType.INT_32, rt.HalElementType.INT_64)}


def _to_numpy(value: Any, declared: str | None) -> Any:
    """A result on the host, as the element type IREE produced; only bit-exact reinterpretations.

    A type other than the model declares (a different width, a float for an int) comes back as
    it is, so the comparator reports it.
    """
    if not isinstance(value, rt.DeviceArray):
        return value
    out = value.to_host()
    view = getattr(value, "_buffer_view", None)
    signless = view is not None and int(view.element_type) in _SIGNLESS
    if signless and declared is not None and declared.startswith(("int", "uint")) and declared not in ("int4", "uint4", "int2", "uint2"):
        target = dtypes.numpy_of(declared)
        if target.itemsize == out.dtype.itemsize:
            return out.view(target)
    return out
