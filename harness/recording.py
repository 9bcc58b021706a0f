"""An adapter around another that also keeps each answer it gives: what explore-cases --against compares two backends by.

It runs in the same executor processes as any backend (harness/executor.py), so a crash or a hang
is still that case's verdict; what it adds is the outputs, written as value files beside the case
(`<case>.answer/<tag>/output_K.pb`) for the explorer to read back.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from onnx_conformance.harness.backends.base import Adapter, Signature, prepare_model

INNER, TAG = "explore_inner", "explore_tag"  # the options it takes for itself; the rest go to the inner adapter


def answer_dir(case_dir: str, tag: str) -> str:
    return os.path.join(f"{case_dir.rstrip(os.sep)}.answer", tag)


class Recording(Adapter):
    name = "recording"

    def __init__(self, options: dict[str, str] | None = None):
        options = dict(options or {})
        from onnx_conformance.harness.backends import registry

        self.tag = options.pop(TAG, "answer")
        inner = options.pop(INNER)
        super().__init__({})
        self.inner = registry.load(inner, options)
        self.name = getattr(self.inner, "name", inner)
        self.capabilities = getattr(self.inner, "capabilities", None)

    @property
    def version(self) -> str:
        return self.inner.version

    def prepare(self, model_path: str) -> Any:
        return model_path, self.inner.prepare(model_path)

    def prepare_checked(self, model_path: str, model: bytes | None, signature: Signature | None = None) -> Any:
        # as the harness would call the inner adapter: the signature only where it asks for one
        return model_path, prepare_model(self.inner, model_path, model, signature=signature)

    def run(self, prepared: Any, inputs: Sequence[Any]) -> list[Any]:
        from onnx_conformance.generators.protos import value_proto

        model_path, inner = prepared
        outputs = self.inner.run(inner, inputs)
        folder = answer_dir(os.path.dirname(model_path), self.tag)
        os.makedirs(folder, exist_ok=True)
        for k, value in enumerate(list(outputs)):
            try:
                data = value_proto(f"output_{k}", value).SerializeToString()
            except Exception:  # noqa: BLE001 - an answer of no writable kind: the comparison says so
                continue
            with open(os.path.join(folder, f"output_{k}.pb"), "wb") as f:
                f.write(data)
        return outputs

    def classify(self, exc: BaseException, stage: str) -> str:
        return self.inner.classify(exc, stage)
