"""onnx's own ReferenceEvaluator: the spec's executable reading, slow but complete."""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np
import onnx
import onnx.checker
from onnx.reference import ReferenceEvaluator
from onnx.reference.op_run import RuntimeContextError, RuntimeTypeError

from harness.backends.base import Adapter, Capabilities, Unsupported

# "No implementation for operator 'DequantizeLinear' domain '' and version 10, found 19, 21, ...":
# the evaluator lacks that version of an operator the spec defines.
_NO_VERSION = re.compile(r"No implementation for operator '[^']*' domain '[^']*' and version \d+")


class ReferenceAdapter(Adapter):
    name = "reference"
    option_help = {
        "check": "1 (default) runs onnx.checker with full_check first, so invalid models are "
        "rejected as a conformant backend must; 0 feeds them to the evaluator as they are",
    }

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        check = self.options.get("check", "1")
        if check not in ("0", "1"):
            raise ValueError(f"check must be 0 or 1, got {check!r}")
        self.check = check == "1"

    @property
    def version(self) -> str:
        return onnx.__version__

    capabilities = Capabilities(
        opset=(1, onnx.defs.onnx_opset_version()),
        ir=(1, onnx.IR_VERSION),
    )

    def prepare(self, model_path: str) -> Any:
        model = onnx.load(model_path)
        if self.check:
            # The evaluator itself runs whatever it is given (Add on bool, Abs on string), which
            # would let every expect-error case through.
            onnx.checker.check_model(model, full_check=True)
        return ReferenceEvaluator(model)

    def run(self, evaluator: Any, inputs: Sequence[np.ndarray]) -> list[Any]:
        names = evaluator.input_names
        if len(inputs) != len(names):
            raise ValueError(f"got {len(inputs)} inputs, the model declares {len(names)}")
        outputs = evaluator.run(None, dict(zip(names, inputs)))
        # A numpy scalar keeps its dtype through asarray; lists (sequences) and None stay as they are.
        return [np.asarray(o) if isinstance(o, np.generic) else o for o in outputs]

    def classify(self, exc: BaseException, stage: str) -> str:
        # NotImplementedError covers RuntimeImplementationError ("No registered implementation
        # for operator 'MaxRoiPool'") and "Node type 'Foo' from domain 'com.x' is unknown".
        if isinstance(exc, (Unsupported, NotImplementedError, RuntimeContextError)):
            return "unsupported"
        # "Output type mismatch: input 'int4' != output 'int8' (operator 'Abs')": numpy computed
        # the op in a wider type; the evaluator cannot produce that dtype.
        if isinstance(exc, RuntimeTypeError):
            return "unsupported"
        if _NO_VERSION.search(str(exc)):
            return "unsupported"
        # "Issues with types ... (unary operator 'Abs')" wraps numpy's own complaint; a TypeError
        # underneath ("bad operand type for abs(): 'str'", "ufunc ... did not contain a loop")
        # means numpy has no implementation for the dtype, a ValueError means wrong shapes.
        root = _root_cause(exc)
        if root is not exc and isinstance(exc, TypeError) and isinstance(root, TypeError):
            return "unsupported"
        return "error"


def _root_cause(exc: BaseException) -> BaseException:
    seen = {id(exc)}
    while exc.__cause__ is not None and id(exc.__cause__) not in seen:
        exc = exc.__cause__
        seen.add(id(exc))
    return exc
