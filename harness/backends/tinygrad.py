"""tinygrad's ONNX runner (tinygrad.nn.onnx.OnnxRunner) on its CPU device, kernels compiled by clang.

This file is named tinygrad.py so that `--backend tinygrad` finds it; with absolute imports (the
`from __future__` line below), `import tinygrad` here still means the library, not this module.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Sequence

import ml_dtypes
import numpy as np
import onnx
from tinygrad import Tensor, dtypes as tiny_dtypes
from tinygrad.helpers import DEV, NUM_CPU_THREADS, PARALLEL
from tinygrad.nn.onnx import OnnxDataType, OnnxRunner

from onnx_conformance.harness import dtypes
from onnx_conformance.harness.backends.base import Adapter, Capabilities, Signature, Unsupported

SCOREBOARD = {
    "order": 8,
    "sampled": "tinygrad generates and compiles each new kernel (its Python code generation, then clang), 0.08 to "
               "0.13 s of CPU a case here: the whole corpus would take one to one and a half hours at -n 2, one case "
               "per cell about ten minutes",
}

# tinygrad's own words when it declines rather than finds the model wrong, each from a real failure
# (tests/test_backend_tinygrad.py triggers them):
_DECLINED = (
    # An element type its parser's OnnxDataType does not list: "17 is not a valid OnnxDataType" (float8e4m3fn).
    # (Cast-1's string `to`, "'FLOAT' is not a valid OnnxDataType", is the attribute misread: an error.)
    re.compile(r"^\d+ is not a valid OnnxDataType"),
    # An attribute kind its parser's AttributeType does not list (it has FLOAT up to STRINGS): a sparse
    # tensor, "11 is not a valid AttributeType" (Constant's sparse_value), a type, "13 ..." (If's empty optional).
    re.compile(r"^\d+ is not a valid AttributeType"),
    # A sequence whose tensors differ in shape, which the runner cannot hold (the spec's sequences may):
    # "Shapes for input x sequence must be homogeneous".
    re.compile(r"Shapes for input .* sequence must be homogeneous"),
)
# The runner's lookup: "op='NoSuchOp' is not supported", "op='X' is not supported for domain ... and version N".
# Unsupported only when the spec defines the operator; for one nobody defines, the model is wrong.
_NO_OP = re.compile(r"op='([\w.]+)' is not supported")


class TinygradAdapter(Adapter):
    name = "tinygrad"
    option_help = {
        "device": "tinygrad's DEV target (default CPU:CLANG: the CPU device, kernels compiled by clang, "
                  "which must be on PATH; CPU:LLVM and CPU:X86 are its other CPU compilers)",
        "threads": "NUM_CPU_THREADS, threads a kernel may use (default 1: the runner already runs one executor per core with -n)",
    }

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        threads = self.options.get("threads", "1")
        if not threads.isdigit() or threads == "0":
            raise ValueError(f"threads must be a positive whole number, got {threads!r}")
        # Set in this process only (tinygrad's own ContextVars, not the environment), so no other
        # backend's process and no DEV the user exported elsewhere is touched.
        DEV.value = self.options.get("device", "CPU:CLANG")
        NUM_CPU_THREADS.value = int(threads)
        # No pool of compile processes beside each executor (tinygrad's default: one per core): the
        # runner already keeps every core busy, and a pool outlives a case the runner kills.
        PARALLEL.value = 0
        try:
            Tensor([1], device=DEV.device).realize()  # opens the device: a missing compiler is said at load
        except Exception as exc:  # noqa: BLE001 - one line for the user
            raise ValueError(f"device {DEV!r} does not open: {type(exc).__name__}: {exc}") from None

    @property
    def version(self) -> str:
        # tinygrad has no __version__. The device follows it, and the C compiler where it compiles kernels:
        # the verdicts depend on it (clang 14 rejects the casts to __bf16 tinygrad emits for bfloat16 kernels).
        device = repr(DEV)
        if DEV.device == "CPU" and DEV.renderer in ("", "CLANG"):
            device += f", {_clang_version()}"
        return f"{_dist_version()} ({device})"

    @functools.cached_property
    def capabilities(self) -> Capabilities:
        # OnnxRunner refuses no opset and no IR version: it takes each operator's newest
        # implementation at or below the model's opset (OnnxRunner._select_op) and reads no IR
        # version. So the range is what the installed onnx defines; element types are those its
        # protobuf parser's OnnxDataType lists.
        names = {t.name.lower() for t in OnnxDataType}
        return Capabilities(opset=(1, onnx.defs.onnx_opset_version()), ir=(1, onnx.IR_VERSION), dtypes=frozenset(names))

    def prepare(self, model_path: str, signature: Signature | None = None) -> Any:
        try:
            return OnnxRunner(model_path), signature
        except AssertionError as exc:
            # The parser knows tensors, sequences and optionals of them only; a map's type reaches
            # its `assert "tensor_type" in type_obj` as what it parsed of it: "AssertionError: {}".
            maps = [v.name for v in (*signature.inputs, *signature.outputs) if "map(" in v.type] if signature else []
            if maps:
                raise Unsupported(f"graph value {maps[0]!r} is a map, which tinygrad's ONNX parser does not read "
                                  f"(AssertionError: {exc})") from exc
            raise

    def run(self, prepared: Any, inputs: Sequence[Any]) -> list[Any]:
        runner, signature = prepared
        if len(inputs) != len(signature.inputs):
            raise ValueError(f"got {len(inputs)} inputs, the model declares {len(signature.inputs)}")
        for k, (value, x) in enumerate(zip(signature.inputs, inputs)):
            # The runner takes a numpy array's own type and only warns when it is not the declared one.
            if value.type.startswith("tensor(") and dtypes.name_of_numpy(x.dtype) != value.element:
                raise TypeError(f"input {k} is {dtypes.name_of_numpy(x.dtype)}, the model declares {value.element}")
        feeds = {value.name: _to_tiny(x) for value, x in zip(signature.inputs, inputs)}
        outputs = runner(feeds)
        return [_from_tiny(outputs[value.name]) for value in signature.outputs]

    def classify(self, exc: BaseException, stage: str) -> str:
        text = str(exc)
        match = _NO_OP.search(text)
        if match:
            return "unsupported" if match.group(1) in _spec_operators() else "error"
        if super().classify(exc, stage) == "unsupported" or any(p.search(text) for p in _DECLINED):
            return "unsupported"
        return "error"


def _to_tiny(x: Any) -> Any:
    """A value as OnnxRunner takes it: a Tensor of the array's own type (bfloat16 from its bits), a list of them, or None."""
    if x is None:
        return None
    if isinstance(x, list):
        return [_to_tiny(v) for v in x]
    if x.dtype == ml_dtypes.bfloat16:  # numpy has no bfloat16, so tinygrad cannot read it from the array
        return Tensor(x.view(np.uint16)).bitcast(tiny_dtypes.bfloat16)
    return Tensor(x)


def _from_tiny(t: Any) -> Any:
    """An output in tinygrad's own type and shape; bfloat16 as its bits (Tensor.numpy() would widen it to float)."""
    if t is None:
        return None
    if isinstance(t, (list, tuple)):
        return [_from_tiny(v) for v in t]
    if not isinstance(t, Tensor):  # a Python int the runner returns as it is (Size: `data.numel()`), int64 as numpy reads it
        return np.asarray(t)
    if t.dtype == tiny_dtypes.bfloat16:
        return t.bitcast(tiny_dtypes.uint16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


@functools.lru_cache(maxsize=None)
def _spec_operators() -> frozenset[str]:
    return frozenset(s.name for s in onnx.defs.get_all_schemas_with_history())


@functools.lru_cache(maxsize=None)
def _clang_version() -> str:
    """'clang 14.0.6', from the first line of `clang --version` ('Debian clang version 14.0.6')."""
    import subprocess

    first = subprocess.run(["clang", "--version"], capture_output=True, text=True, check=False).stdout.partition("\n")[0]
    match = re.search(r"clang version (\S+)", first)
    return f"clang {match.group(1)}" if match else "clang (version unknown)"


@functools.lru_cache(maxsize=None)
def _dist_version() -> str:
    from importlib.metadata import version

    return version("tinygrad")
