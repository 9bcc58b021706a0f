"""A backend that answers with onnx's reference evaluator, except where an option says otherwise.

Options name a case and a behaviour (`--backend-option test_add=abort`); `default=<behaviour>`
applies to every other case and `delay=<seconds>` slows every case down (for the kill test).
"""

from __future__ import annotations

import ctypes
import os
import time
from pathlib import Path

import numpy as np

from onnx_conformance.harness.backends.base import Adapter, Capabilities


class ToyAdapter(Adapter):
    name = "toy"

    def __init__(self, options=None):
        super().__init__(options)
        # Imported at start, which has its own minute: the first case's budget (a second in the
        # executor's tests) is then the case's, not a loaded machine's import of onnx.reference.
        import onnx.reference  # noqa: F401

        doomed = {case for case, behaviour in self.options.items() if behaviour == "abort_ahead"}
        if doomed:
            # The harness's own check of a case's model, made ahead of its turn while the
            # executor's batch waits, dies for these cases: as a crash in the checks would.
            from onnx_conformance.harness import safety

            check = safety.check_model_ahead

            def dying(case_dir, *args, **kwargs):
                if Path(case_dir).name in doomed:
                    os.abort()
                return check(case_dir, *args, **kwargs)

            safety.check_model_ahead = dying

    @property
    def version(self) -> str:
        return "0.1"

    def _behaviour(self, model_path: str) -> str:
        case = Path(model_path).parent.name
        return self.options.get(case, self.options.get("default", "correct"))

    def prepare(self, model_path: str):
        from onnx.reference import ReferenceEvaluator

        time.sleep(float(self.options.get("delay", 0)))
        behaviour = self._behaviour(model_path)
        if behaviour == "notimpl":
            raise NotImplementedError("toy has no kernel for this operator")
        if behaviour == "load_error":
            raise ValueError(f"toy rejects {model_path}:\nsecond line of the message")
        return ReferenceEvaluator(model_path), behaviour

    def run(self, prepared, inputs):
        evaluator, behaviour = prepared
        if behaviour == "abort":
            os.abort()
        if behaviour == "segv":
            ctypes.string_at(0)
        if behaviour == "exit":
            os._exit(3)
        if behaviour == "hang":
            time.sleep(3600)
        if behaviour == "error":
            raise RuntimeError("toy kernel failed")
        if behaviour == "silent":
            return [np.zeros(1, np.float32)]
        outputs = evaluator.run(None, dict(zip(evaluator.input_names, inputs)))
        if behaviour == "wrong_values":
            return [o + np.ones_like(o) for o in outputs]
        if behaviour == "wrong_shape":
            return [o[np.newaxis] for o in outputs]
        return outputs


class OldToy(ToyAdapter):
    """Declares opsets 1..12 only, so newer cases are unsupported before anything loads."""

    name = "old-toy"
    capabilities = Capabilities(opset=(1, 12))


class BrokenToy(ToyAdapter):
    """Fails while being constructed, as a backend with a missing shared library would."""

    def __init__(self, options=None):
        raise RuntimeError("libtoy.so: cannot open shared object file")


class EchoAdapter(Adapter):
    """Answers every case with its inputs and does no work: what is left is the runner's overhead."""

    name = "echo"

    def prepare(self, model_path: str):
        return None

    def run(self, prepared, inputs):
        return list(inputs)
