"""Adapters each carrying one mistake an adapter writer makes, over a correct adapter: what --check-adapter must name.

Each class is the onnxruntime adapter (every type, as OrtValues) or the template (its plain API, fed by
name) with one thing done wrong, as found in adapters written from the README alone (issue 32).
"""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.backends.onnxruntime import OnnxRuntimeAdapter
from onnx_conformance.harness.backends.template import TemplateAdapter


class RankOneOutputs(OnnxRuntimeAdapter):
    """np.atleast_1d on every output: a rank-0 result comes back as (1,)."""

    def run(self, session, inputs):
        return [np.atleast_1d(o) if isinstance(o, np.ndarray) else o for o in super().run(session, inputs)]


class RankOneInputs(OnnxRuntimeAdapter):
    """np.ascontiguousarray on every input (it makes a 0-d array (1,)); the runtime takes (1,) and gives it back."""

    def run(self, session, inputs):
        return super().run(session, [np.ascontiguousarray(x) if isinstance(x, np.ndarray) else x for x in inputs])


class RankZeroRefused(OnnxRuntimeAdapter):
    """A runtime without rank-0 tensors, which the adapter does not decline."""

    def run(self, session, inputs):
        if any(isinstance(x, np.ndarray) and x.ndim == 0 for x in inputs):
            raise RuntimeError("cannot bind a tensor of rank 0")
        return super().run(session, inputs)


class WidenedOutputs(OnnxRuntimeAdapter):
    """bfloat16 and float8 results cast to float32, numpy's nearest type."""

    def run(self, session, inputs):
        return [o.astype(np.float32) if isinstance(o, np.ndarray) and o.dtype.type.__module__.startswith("ml_dtypes")
                else o for o in super().run(session, inputs)]


class ReversedOutputs(OnnxRuntimeAdapter):
    """Outputs in the reverse of graph order."""

    def run(self, session, inputs):
        return list(reversed(super().run(session, inputs)))


class NotAList(OnnxRuntimeAdapter):
    """The runtime's dict of outputs by name, returned as it is."""

    def run(self, session, inputs):
        return {f"output_{k}": o for k, o in enumerate(super().run(session, inputs))}


class SortedNameFeeds(TemplateAdapter):
    """Inputs zipped with the input names in sorted order, not in graph order."""

    def run(self, prepared, inputs):
        session, signature = prepared
        feeds = dict(zip(sorted(v.name for v in signature.inputs), inputs))
        return list(session.run([v.name for v in signature.outputs], feeds))


class InitializersFed(TemplateAdapter):
    """The model's initializers counted among its inputs, as a runtime listing its constants would."""

    def prepare(self, model_path, signature=None):
        import onnx

        graph = onnx.load(model_path).graph
        names = [t.name for t in graph.initializer] + [v.name for v in graph.input]
        session, signature = super().prepare(model_path, signature)
        return session, signature, names

    def run(self, prepared, inputs):
        session, signature, names = prepared
        return list(session.run([v.name for v in signature.outputs], dict(zip(names, inputs))))


class SequencesAsArrays(OnnxRuntimeAdapter):
    """np.asarray on every list input: a sequence stacked into one array (or refused by numpy)."""

    def run(self, session, inputs):
        return super().run(session, [np.asarray(x) if isinstance(x, list) else x for x in inputs])


class SequencesReturnedAsArrays(OnnxRuntimeAdapter):
    """Every list output returned as a numpy array of objects, as a runtime without sequences holds them."""

    def run(self, session, inputs):
        return [_objects(o) if isinstance(o, list) else o for o in super().run(session, inputs)]


def _objects(items: list) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


class EmptyOptionalAsArray(OnnxRuntimeAdapter):
    """An empty optional result returned as an empty array, not None."""

    def run(self, session, inputs):
        return [np.zeros(0, np.float32) if o is None else o for o in super().run(session, inputs)]


class DeclinesWithValueError(OnnxRuntimeAdapter):
    """A runtime without sequences, said with a ValueError rather than Unsupported."""

    def run(self, session, inputs):
        if any(isinstance(x, list) for x in inputs):
            raise ValueError("sequences are not supported by this runtime")
        return super().run(session, inputs)


class MapsAsValues(OnnxRuntimeAdapter):
    """A map fed as the array of its values."""

    def run(self, session, inputs):
        return super().run(session, [np.stack(list(x.values())) if isinstance(x, dict) else x for x in inputs])



class RankOneOutputsDeclared(RankOneOutputs):
    """RankOneOutputs declaring Size's (1,) the runtime's own (not Identity's), and a break it does not show."""

    runtime_breaks = {"rank-0 out": (("Size",), "this toy's runtime gives Size's result as (1,)"),
                      "dtype": (("float16",), "declared, never seen")}
