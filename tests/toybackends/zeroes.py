"""onnx's Backend API over onnxruntime.backend, answering every ReduceMean with zeros: wrong at
every value, not only at the values the corpus marks as needing more intermediate precision."""

from __future__ import annotations

import numpy as np
from onnx.backend.base import Backend, BackendRep


class _Zeroes(BackendRep):
    def __init__(self, rep):
        self.rep = rep

    def run(self, inputs, **kwargs):
        return [np.zeros_like(np.asarray(o)) for o in self.rep.run(inputs, **kwargs)]


class ZeroesBackend(Backend):
    @classmethod
    def prepare(cls, model, device: str = "CPU", **kwargs):
        import onnxruntime.backend

        rep = onnxruntime.backend.prepare(model, device, **kwargs)
        return _Zeroes(rep) if any(n.op_type == "ReduceMean" for n in model.graph.node) else rep

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"
