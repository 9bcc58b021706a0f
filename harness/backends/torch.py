"""PyTorch on the CPU, running the torch.fx module that onnx2torch builds from the ONNX model.

torchvision: onnx2torch imports it at load, but only for two converters, NonMaxSuppression
(node_converters/nms.py) and RoiAlign (node_converters/roialign.py); every other converter is
plain torch. PyPI's torchvision does not import beside the CPU torch this project pins
("operator torchvision::nms does not exist"), so when `import torchvision` fails this module
registers those two converter modules as empty ones before importing onnx2torch. onnx2torch
then loads without them, and a model using NonMaxSuppression or RoiAlign reads as unsupported
through onnx2torch's own "Converter is not implemented". With a working torchvision nothing is
replaced.

This file is named torch.py so that `--backend torch` finds it; with absolute imports (the
`from __future__` line below), `import torch` here still means PyTorch, not this module.
"""

from __future__ import annotations

import re
import sys
import types
from typing import Any, Sequence

import numpy as np
import onnx
import torch

from onnx_conformance.harness import dtypes
from onnx_conformance.harness.backends.base import Adapter, Capabilities

# On the committed scoreboard (registry.scoreboard_backends): its place in the table.
SCOREBOARD = {"order": 5}

_TORCHVISION_CONVERTERS = ("onnx2torch.node_converters.nms", "onnx2torch.node_converters.roialign")


def _import_onnx2torch() -> tuple[types.ModuleType, bool]:
    """onnx2torch, and whether its torchvision converters had to be left out."""
    try:
        import torchvision  # noqa: F401 - only to learn whether it imports
    except Exception:  # noqa: BLE001 - ImportError, or RuntimeError from a mismatched build
        for name in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
            del sys.modules[name]  # half-imported submodules of the failed import
        for name in _TORCHVISION_CONVERTERS:
            if name not in sys.modules:
                stub = types.ModuleType(name, "left out: torchvision does not import here")
                stub.__all__ = []
                sys.modules[name] = stub
        shimmed = True
    else:
        shimmed = False
    import onnx2torch

    return onnx2torch, shimmed


onnx2torch, TORCHVISION_CONVERTERS_LEFT_OUT = _import_onnx2torch()

# torch dtypes numpy has no type for, with the ONNX type whose bits they hold. torch names them
# differently from the spec, so the pairing is written out once here.
_RAW_BITS = {
    torch.bfloat16: "bfloat16",
    torch.float8_e4m3fn: "float8e4m3fn",
    torch.float8_e4m3fnuz: "float8e4m3fnuz",
    torch.float8_e5m2: "float8e5m2",
    torch.float8_e5m2fnuz: "float8e5m2fnuz",
}
_TORCH_OF = {name: dt for dt, name in _RAW_BITS.items()}
_SAME_WIDTH_INT = {1: torch.uint8, 2: torch.int16}

# torch's words when it lacks a kernel for a dtype, beyond the NotImplementedError it usually
# raises: '"min_all" not implemented for \'UInt16\'' also comes as a RuntimeError, and
# "mean(): could not infer output dtype. Input dtype must be either a floating point or complex
# dtype. Got: Int" is ReduceMean on integers, which the spec allows since ReduceMean-18;
# "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Int" is
# ReduceL1/ReduceL2 on integers (onnx2torch maps them to torch.norm).
_DECLINED = (
    re.compile(r"\"\w+\" not implemented for '\w+'"),
    re.compile(r"Input dtype must be either a floating point or complex dtype"),
    re.compile(r"Expected a floating point or complex tensor as input"),
)
# onnx2torch's "Converter is not implemented (OperationDescription(domain='', operation_type=
# 'NoSuchOp', version=13))" also comes for operators nobody defines; those models are wrong.
_NO_CONVERTER = re.compile(r"Converter is not implemented \(OperationDescription\(domain='([^']*)', operation_type='(\w+)'")


class TorchAdapter(Adapter):
    name = "torch"
    option_help = {
        "num_threads": "torch intra-op threads (default 1: the runner already runs cases in parallel)",
    }

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        try:
            torch.set_num_threads(int(self.options.get("num_threads", "1")))
        except ValueError:
            raise ValueError(f"num_threads must be an integer, got {self.options['num_threads']!r}") from None

    @property
    def version(self) -> str:
        return f"torch {torch.__version__}, onnx2torch {_onnx2torch_version()}"

    # onnx2torch refuses IR versions below 3 ("Onnx IR is too old (minimal supported version is
    # 3)") and otherwise has no opset limit of its own: each converter is registered per
    # operator since_version, and a missing one says "Converter is not implemented".
    capabilities = Capabilities(opset=(1, onnx.defs.onnx_opset_version()), ir=(3, onnx.IR_VERSION))

    def prepare(self, model_path: str) -> Any:
        model = onnx.load(model_path)
        initialized = {init.name for init in model.graph.initializer}
        declared = [
            (i.name, dtypes.name_of(i.type.tensor_type.elem_type)) for i in model.graph.input if i.name not in initialized
        ]
        module = onnx2torch.convert(model)
        module.eval()
        return module, declared

    def run(self, prepared: Any, inputs: Sequence[np.ndarray]) -> list[Any]:
        module, declared = prepared
        if len(inputs) != len(declared):
            raise ValueError(f"got {len(inputs)} inputs, the model declares {len(declared)}")
        feeds = []
        for k, (x, (_, want)) in enumerate(zip(inputs, declared)):
            got = dtypes.name_of_numpy(x.dtype)
            # The fx module takes any dtype and computes in it; a float64 feed into a float
            # input would grade a model nobody wrote.
            if got != want:
                raise TypeError(f"input {k} is {got}, the model declares {want}")
            feeds.append(_to_torch(x))
        with torch.no_grad():
            outputs = module(*feeds)
        if not isinstance(outputs, (tuple, list)):
            outputs = [outputs]
        return [_from_torch(o) for o in outputs]

    def classify(self, exc: BaseException, stage: str) -> str:
        # NotImplementedError covers onnx2torch's "Converter is not implemented
        # (OperationDescription(domain='', operation_type='ReduceMin', version=18))", its
        # "Onnx IR is too old", and torch's '"min_all" not implemented for 'UInt32''.
        match = _NO_CONVERTER.search(str(exc))
        if match:
            return "unsupported" if onnx.defs.has(match.group(2), match.group(1)) else "error"
        if super().classify(exc, stage) == "unsupported":
            return "unsupported"
        if any(p.search(str(exc)) for p in _DECLINED):
            return "unsupported"
        return "error"


def _onnx2torch_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("onnx2torch")
    except PackageNotFoundError:
        return "unknown"


def _to_torch(x: np.ndarray) -> torch.Tensor:
    x = x if x.flags.c_contiguous else x.copy(order="C")
    name = dtypes.name_of_numpy(x.dtype)
    if name in _TORCH_OF:
        bits = torch.from_numpy(x.view(f"u{x.dtype.itemsize}").copy())
        if x.dtype.itemsize == 2:
            bits = bits.view(torch.int16)  # torch views uint16 as bfloat16 only through int16
        return bits.view(_TORCH_OF[name])
    return torch.from_numpy(x.copy())


def _from_torch(value: Any) -> Any:
    """An output as numpy of the dtype torch computed; only bit-exact reinterpretations.

    A dtype other than the model declares (torch.prod of int8 gives int64) comes back as it is,
    so the comparator reports it.
    """
    if not isinstance(value, torch.Tensor):
        return value
    value = value.detach().cpu().contiguous()
    if value.dtype in _RAW_BITS:
        target = dtypes.numpy_of(_RAW_BITS[value.dtype])
        return value.view(_SAME_WIDTH_INT[target.itemsize]).numpy().view(target)
    return value.numpy()

