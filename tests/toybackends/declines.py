"""onnx's Backend API over onnxruntime.backend, declining every ReduceProd model as a runtime without the kernel would."""

from __future__ import annotations

from onnx.backend.base import Backend


class DecliningBackend(Backend):
    @classmethod
    def prepare(cls, model, device: str = "CPU", **kwargs):
        if any(node.op_type == "ReduceProd" for node in model.graph.node):
            raise NotImplementedError("this runtime has no ReduceProd kernel")
        import onnxruntime.backend

        return onnxruntime.backend.prepare(model, device, **kwargs)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"
