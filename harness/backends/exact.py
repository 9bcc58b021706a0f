"""This project's own exact semantics as a backend: any model run node by node, each output exact or correctly rounded."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import onnx
import onnx.checker

from onnx_conformance.harness.backends.base import Adapter, Capabilities, Unsupported


class ExactAdapter(Adapter):
    name = "exact"
    option_help = {
        "check": "1 (default) runs onnx.checker with full_check first, so invalid models are rejected "
        "as a conformant backend must; 0 evaluates them as they are",
    }

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        self.check = self.flag("check")

    @property
    def version(self) -> str:
        return f"onnx-conformance semantics (onnx {onnx.__version__} schemas)"

    capabilities = Capabilities(opset=(1, onnx.defs.onnx_opset_version()), ir=(1, onnx.IR_VERSION))

    def prepare(self, model_path: str) -> Any:
        return self._prepare(onnx.load(model_path))

    def prepare_checked(self, model_path: str, model: bytes | None) -> Any:
        if model is None:
            return self._prepare(onnx.load(model_path))
        return self._prepare(onnx.load_from_string(model), model)

    def _prepare(self, model: onnx.ModelProto, raw: bytes | None = None) -> Any:
        from onnx_conformance.generators.exact import Evaluator

        if self.check:  # the bytes read, where there are: the model checked as it was parsed, not reserialized
            onnx.checker.check_model(raw if raw is not None else model, full_check=True)
        return model, Evaluator.for_model(model)

    def run(self, prepared: Any, inputs: Sequence[np.ndarray]) -> list[Any]:
        from onnx_conformance.generators.exact import CannotEvaluate
        from onnx_conformance.generators.semantics import NotDeterministic, Undefined

        model, evaluator = prepared
        try:
            return evaluator.run_model(model, list(inputs))
        except CannotEvaluate as e:
            raise Unsupported(str(e)) from e
        except NotDeterministic as e:
            raise Unsupported(f"random: {e.reason}") from e
        except Undefined as e:
            raise Unsupported(f"the spec defines no value here: {e.reason}") from e
