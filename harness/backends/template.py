"""The adapter writer's template: a complete adapter to copy, with onnxruntime's plain InferenceSession standing in for your runtime.

Copy this file into your own package, rename the class, replace each `ort.` call with your runtime's,
register it by entry point (README, "Writing an adapter"), then check it before any real run:
    run-conformance --backend myrt --check-adapter
It runs here as it stands: `run-conformance --backend onnx_conformance.harness.backends.template`
(tests/test_adapter_guide.py runs it through --check-adapter and on a slice of the corpus).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from onnx_conformance.harness.backends.base import Adapter, Capabilities, Signature, Unsupported

# The element types the runtime holds, by ONNX's names ('float', not 'float32'). onnxruntime's plain
# `run` takes and gives numpy arrays only, and numpy has no bfloat16, float8 or 4-bit type, so those are
# not claimed (the built-in onnxruntime adapter passes them as raw bits: do that where your runtime can);
# nor complex64/complex128, which onnxruntime has no tensors of ("MLDataType for: tensor(complex64) is
# not currently registered or supported", found by --check-adapter). A case of a type left out reads
# `unsupported: dtype bfloat16 not supported by the backend` before anything loads. The names also
# filter sequences, optionals and maps by their element type: without 'string', seq(tensor(string))
# and map(int64, string) are declined too.
_TYPES = frozenset({
    "bool", "string", "float16", "float", "double",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
})

# The runtime's own words for "I do not have this": the status is then `unsupported`, not `error`.
# Each pattern should be one you have seen in a real refusal (quote it in a comment, as here):
#   "[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Identity(25) node"
#   "Unsupported model IR version: 14, max supported IR version: 13"
_DECLINED = re.compile(r"NOT_IMPLEMENTED : |Unsupported model IR version|is till opset \d+")


class TemplateAdapter(Adapter):
    name = "template"  # what reports call the backend; usually your entry point's name
    # The options this adapter takes, each with a line of help: `--backend-option threads=4` reaches
    # self.options["threads"]; an option not listed here stops the run at load, naming the known ones.
    option_help = {
        "threads": "intra-op threads (default 1: the runner already runs one executor per core with -n)",
        "optimize": "1 (default) runs the runtime's graph optimizations, 0 turns them off",
    }
    # What the runtime supports, checked before a case is read: a case outside it is `unsupported`
    # with the reason. opset: ai.onnx opsets (a case of another domain, ai.onnx.ml, by its own
    # domain's); ir: model IR versions; dtypes: element types (above). None claims nothing.
    capabilities = Capabilities(opset=(1, 26), ir=(3, 13), dtypes=_TYPES)

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)  # checks the keys against option_help
        threads = self.options.get("threads", "1")
        if not threads.isdigit():  # a bad value is a ValueError here: the run stops at load and says so
            raise ValueError(f"threads must be a whole number, got {threads!r}")
        self.threads = int(threads)
        self.optimize = self.flag("optimize")  # a 0/1 option; anything else stops the run

    @property
    def version(self) -> str:
        import onnxruntime as ort  # import the runtime inside the adapter: nothing else loads it

        return ort.__version__

    def prepare(self, model_path: str, signature: Signature | None = None) -> Any:
        """Stage load: compile or load the model once. `signature` (given because this method names
        it) holds the graph's inputs and outputs, names and types, in order: no need to parse the
        model again. Whatever this returns is handed to run()."""
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = self.threads
        so.log_severity_level = 4  # the error comes back as the exception; no second copy on stderr
        if not self.optimize:
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        session = ort.InferenceSession(model_path, sess_options=so, providers=["CPUExecutionProvider"])
        return session, signature

    def run(self, prepared: Any, inputs: Sequence[Any]) -> list[Any]:
        """Stage run. `inputs`: one value per graph input that is not an initializer, in graph order,
        each as the graph declares it: a numpy array (ml_dtypes for bfloat16 and float8; rank-0 stays
        0-d), a list of arrays (a sequence), an array, list or None (an optional; None when empty), a
        dict of key -> 0-d array (a map). Return one value per graph output, in graph order, in the
        same forms, each in the type and shape the runtime produced: never cast or reshape a result
        to what the case expects (a widened result is a dtype `fail`, which is what it is)."""
        session, signature = prepared
        # Feed by name, from the signature: position K is the graph's K-th input.
        feeds = {value.name: x for value, x in zip(signature.inputs, inputs)}
        return list(session.run([value.name for value in signature.outputs], feeds))

    def classify(self, exc: BaseException, stage: str) -> str:
        """An exception from prepare or run: 'unsupported' when the runtime declined (no kernel,
        type or opset not supported), else 'error'. The base already reads Unsupported and
        NotImplementedError as declines; add the runtime's own words."""
        if isinstance(exc, (Unsupported, NotImplementedError)) or _DECLINED.search(str(exc)):
            return "unsupported"
        return "error"
