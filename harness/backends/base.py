"""The contract every backend adapter implements; the runner knows nothing else about a backend."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from onnx_conformance.harness.dtypes import element_of


class Unsupported(Exception):
    """Raised by an adapter when the backend declined a case (not implemented, opset/type unsupported).

    The message is the backend's own words where it has any.
    """


@dataclass
class Capabilities:
    """What an adapter declares it supports; a case outside it is `unsupported` with that reason."""

    opset: tuple[int, int] | None = None  # inclusive range of ai.onnx opsets
    ir: tuple[int, int] | None = None  # inclusive range of IR versions
    dtypes: frozenset[str] | None = None  # ONNX type names ('float', 'bfloat16'); None = no claim

    def reason_unsupported(self, opset: int | None, ir: int | None, dtype: str | None,
                           types: dict[str, str] | None = None) -> str | None:
        """Why a case is outside what the adapter declares, or None. `dtype` and each of `types`
        (the case's type binding) are checked by their element type: 'seq(tensor(int8))' by 'int8'."""
        if self.opset and opset is not None and not (self.opset[0] <= opset <= self.opset[1]):
            side = "above" if opset > self.opset[1] else "below"
            bound = self.opset[1] if side == "above" else self.opset[0]
            word = "maximum" if side == "above" else "minimum"
            return f"opset {opset} {side} the backend's {word} {bound}"
        if self.ir and ir is not None and not (self.ir[0] <= ir <= self.ir[1]):
            side = "above" if ir > self.ir[1] else "below"
            bound = self.ir[1] if side == "above" else self.ir[0]
            word = "maximum" if side == "above" else "minimum"
            return f"IR version {ir} {side} the backend's {word} {bound}"
        if self.dtypes is not None:
            for t in ([dtype] if dtype is not None else []) + sorted(set((types or {}).values()) - {dtype}):
                if element_of(t) not in self.dtypes:
                    return f"dtype {t} not supported by the backend"
        return None


class Adapter:
    """Base adapter. Subclasses set `name`, implement `version`, `prepare` and `run`.

    Life cycle, all inside one isolated executor process:
        adapter = Adapter(options)            # once per executor process
        prepared = adapter.prepare(model_path) # stage "load" (prepare_checked: with the checked bytes)
        outputs = adapter.run(prepared, inputs) # stage "run"; inputs in graph-input order
    Any exception from prepare/run is passed to `classify`, which says `unsupported` or `error`.
    """

    name: str = "base"
    # Options this adapter understands (--backend-option KEY=VALUE), each with a one-line help.
    # Empty means "accept anything", so adapters that predate it keep working.
    option_help: dict[str, str] = {}

    def __init__(self, options: dict[str, str] | None = None):
        self.options = dict(options or {})
        unknown = sorted(set(self.options) - set(self.option_help)) if self.option_help else []
        if unknown:
            known = ", ".join(f"{k} ({v})" for k, v in sorted(self.option_help.items()))
            raise ValueError(f"unknown option {unknown[0]!r}; known options: {known}")

    def flag(self, key: str, default: str = "1") -> bool:
        """A 0/1 option (--backend-option KEY=0|1): anything else stops the run at load."""
        value = self.options.get(key, default)
        if value not in ("0", "1"):
            raise ValueError(f"{key} must be 0 or 1, got {value!r}")
        return value == "1"

    @property
    def version(self) -> str:
        return "unknown"

    capabilities: Capabilities = Capabilities()

    def prepare(self, model_path: str) -> Any:
        raise NotImplementedError

    def prepare_checked(self, model_path: str, model: bytes | None) -> Any:
        """prepare, given also model.onnx's bytes as the safety checks read them (None for a model
        with external data, or too large to hold twice: it loads from its path). This default
        loads from the path; an adapter whose runtime loads a model from memory may load these
        bytes instead: what loads is then exactly what was checked, and the file is not read again."""
        return self.prepare(model_path)

    def run(self, prepared: Any, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        raise NotImplementedError

    def classify(self, exc: BaseException, stage: str) -> str:
        """'unsupported' when the backend declined, else 'error'. Adapters refine by real messages."""
        if isinstance(exc, (Unsupported, NotImplementedError)):
            return "unsupported"
        return "error"
