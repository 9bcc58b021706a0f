"""Any backend speaking onnx's standard Backend API (onnx.backend.base): prepare(model) -> rep.run(inputs)."""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import unittest
from types import ModuleType
from typing import Any, Sequence

import numpy as np
import onnx

from onnx_conformance.harness.backends.base import Adapter, Unsupported

# Generic words a backend uses when it declines rather than fails. Heuristic by necessity:
# the Backend API has no error vocabulary, so backend-specific rules belong in a real adapter.
_DECLINED_WORDS = re.compile(r"not (yet )?(implemented|supported)|unsupported|NOT_IMPLEMENTED", re.I)


class StandardAdapter(Adapter):
    """Wraps a module (or Backend subclass) with `prepare(model, device)` and `supports_device`.

    Chosen by the registry for a dotted name such as `onnxruntime.backend`, or directly as
    `--backend standard --backend-option module=onnxruntime.backend`.
    """

    name = "standard"
    option_help = {
        "module": "dotted name of the module implementing the onnx Backend API",
        "device": "device string passed to prepare() and supports_device() (default CPU)",
    }

    def __init__(self, options: dict[str, str] | None = None, api: Any = None):
        super().__init__(options)
        if api is None:
            module = self.options.get("module")
            if not module:
                raise ValueError("option module=<dotted module name> is required")
            api = importlib.import_module(module)
        self.api = api
        self.name = api.__name__ if isinstance(api, ModuleType) else f"{api.__module__}.{api.__qualname__}"
        self.device = self.options.get("device", "CPU")
        supports = getattr(api, "supports_device", None)
        if callable(supports) and not supports(self.device):
            raise ValueError(f"{self.name} does not support device {self.device!r} (supports_device returned False)")

    @property
    def version(self) -> str:
        own = getattr(self.api, "__version__", None)
        if isinstance(own, str):
            return own
        # A Backend class or a submodule: the version of the distribution that ships it.
        top = getattr(self.api, "__module__", None) or self.name
        top = top.split(".")[0]
        try:
            return importlib.metadata.version(top)
        except importlib.metadata.PackageNotFoundError:
            module = importlib.import_module(top)
            return str(getattr(module, "__version__", "unknown"))

    def prepare(self, model_path: str) -> Any:
        model = onnx.load(model_path)
        is_compatible = getattr(self.api, "is_compatible", None)
        if callable(is_compatible) and not is_compatible(model, self.device):
            raise Unsupported(f"{self.name}.is_compatible returned False for device {self.device!r}")
        return self.api.prepare(model, device=self.device)

    def run(self, rep: Any, inputs: Sequence[np.ndarray]) -> list[Any]:
        outputs = rep.run(list(inputs))
        if isinstance(outputs, dict):
            outputs = list(outputs.values())
        # Backends return tuples, namedtuples or lists; a numpy scalar keeps its dtype in asarray.
        return [np.asarray(o) if isinstance(o, np.generic) else o for o in outputs]

    def classify(self, exc: BaseException, stage: str) -> str:
        # unittest.SkipTest is how Backend implementations decline in onnx's own test runner
        # (onnxruntime.backend raises it for unreleased opsets).
        if isinstance(exc, (Unsupported, NotImplementedError, unittest.SkipTest)):
            return "unsupported"
        # Runtimes built with pybind define their own not-implemented types
        # (onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented), unrelated to Python's.
        if any(re.search(r"NotImplemented|Unsupported", cls.__name__) for cls in type(exc).__mro__):
            return "unsupported"
        if _DECLINED_WORDS.search(str(exc).split("\n", 1)[0]):
            return "unsupported"
        return "error"
