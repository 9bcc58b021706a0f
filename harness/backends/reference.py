"""onnx's own ReferenceEvaluator: the spec's executable reading, slow but complete."""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np
import onnx
import onnx.checker
from onnx.reference import ReferenceEvaluator
from onnx.reference.op_run import RuntimeContextError, RuntimeTypeError

from onnx_conformance.harness.backends.base import Adapter, Capabilities, Unsupported

# On the committed scoreboard (registry.scoreboard_backends): its place in the table.
SCOREBOARD = {"order": 2}

# "No implementation for operator 'DequantizeLinear' domain '' and version 10, found 19, 21, ...":
# the evaluator lacks that version of an operator the spec defines.
_NO_VERSION = re.compile(r"No implementation for operator '[^']*' domain '[^']*' and version \d+")


# The operator name the evaluator puts at the end of its "Issues with types" wrapper.
_OPERATOR = re.compile(r"\(\w* ?operator '([^']+)'\)")
# Root causes meaning "no implementation for this dtype", as numpy and the evaluator word them:
#   "ReduceLogSum does not support integer input (got int32). ..."   (onnx's op_reduce_log_sum)
#   "ufunc 'sqrt' not supported for the input types, ..."             (numpy, no loop)
#   "ufunc 'add' did not contain a loop with signature matching types" (numpy)
#   "bad operand type for abs(): 'str'"                               (Python, object arrays)
# Other TypeErrors underneath, such as "return arrays must be of ArrayType" on a 0-d input,
# are the evaluator failing on a valid case: error.
_NO_TYPE = re.compile(r"does not support|not supported for the input types|did not contain a loop|bad operand type")


class ReferenceAdapter(Adapter):
    name = "reference"
    option_help = {
        "check": "1 (default) runs onnx.checker with full_check first, so invalid models are "
        "rejected as a conformant backend must; 0 feeds them to the evaluator as they are",
    }

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        self.check = self.flag("check")

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
        try:
            outputs = evaluator.run(None, dict(zip(names, inputs)))
        except TypeError as exc:
            # "Issues with types [...] (operator 'ReduceLogSum_1')" hides the words that say what
            # went wrong; report those, with the operator, as the failure.
            root = _root_cause(exc)
            if root is exc:
                raise
            op = _OPERATOR.search(str(exc))
            where = f"{op.group(1)}: " if op else ""
            if _declines_dtype(root):
                raise Unsupported(f"{where}{root}") from exc
            raise type(exc)(f"{where}{type(root).__name__}: {root}") from exc
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
        if _declines_dtype(_root_cause(exc)):
            return "unsupported"
        return "error"


def _declines_dtype(exc: BaseException) -> bool:
    """An implementation, or numpy under it, saying it has nothing for this element type."""
    if not isinstance(exc, TypeError):
        return False
    if any(cls.__name__.startswith("UFunc") or cls.__name__ == "_UFuncNoLoopError" for cls in type(exc).__mro__):
        return True
    return bool(_NO_TYPE.search(str(exc)))


def _root_cause(exc: BaseException) -> BaseException:
    seen = {id(exc)}
    while exc.__cause__ is not None and id(exc.__cause__) not in seen:
        exc = exc.__cause__
        seen.add(id(exc))
    return exc
