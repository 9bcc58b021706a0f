"""Backends that rewrite a graph before running it with onnx's reference evaluator, for the tolerance
for graphs (generators/graphs.py): one that is right and keeps intermediates wider than their types
(a fusing backend), and ones whose rewrite is wrong, as optimizer bugs are."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper
from onnx.reference import ReferenceEvaluator

from onnx_conformance.harness.backends.base import Adapter
from onnx_conformance.harness.dtypes import numpy_of, name_of

_NARROW = {TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.FLOAT}


class Wide(Adapter):
    """Every float16, bfloat16 and float tensor of the graph held in double (inputs, initializers,
    intermediates), a Cast still casting to its type first; outputs rounded once to their types."""

    name = "toy-wide"
    version = "0.1"

    def prepare(self, model_path: str):
        model = onnx.load(model_path)
        declared = [numpy_of(name_of(o.type.tensor_type.elem_type)) for o in model.graph.output]
        graph = model.graph
        for info in list(graph.input) + list(graph.output) + list(graph.value_info):
            if info.type.tensor_type.elem_type in _NARROW:
                info.type.tensor_type.elem_type = TensorProto.DOUBLE
        for k, init in enumerate(graph.initializer):
            if init.data_type in _NARROW:
                graph.initializer[k].CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init).astype(np.float64), init.name))
        nodes = []
        for node in graph.node:
            nodes.append(node)
            to = next((a for a in node.attribute if a.name == "to"), None)
            if node.op_type == "Cast" and to is not None and to.i in _NARROW:
                # cast to the narrow type (its rounding happens), then hold the result in double
                narrow = node.output[0] + "__narrow"
                widened = onnx.helper.make_node("Cast", [narrow], [node.output[0]], to=TensorProto.DOUBLE)
                node.output[0] = narrow
                nodes.append(widened)
        graph.ClearField("node")
        graph.node.extend(nodes)
        return ReferenceEvaluator(model), declared

    def run(self, prepared, inputs):
        evaluator, declared = prepared
        wide = [x.astype(np.float64) if isinstance(x, np.ndarray) and x.dtype.kind == "f" or
                getattr(x, "dtype", None) == numpy_of("bfloat16") else x for x in inputs]
        outputs = evaluator.run(None, dict(zip(evaluator.input_names, wide)))
        return [np.asarray(y).astype(t) for y, t in zip(outputs, declared)]


class Rewrite(Adapter):
    """The reference evaluator after one wrong rewrite, chosen by `--backend-option rule=NAME`:
    drop_epsilon (an initializer named epsilon set to 0), remove_casts (a Cast pair bypassed), or
    last_axis (an initializer named axes pointing at the last axis)."""

    name = "toy-rewrite"
    version = "0.1"
    option_help = {"rule": "drop_epsilon, remove_casts or last_axis"}

    def prepare(self, model_path: str):
        model = onnx.load(model_path)
        getattr(self, "_" + self.options["rule"])(model.graph)
        return ReferenceEvaluator(model)

    def run(self, evaluator, inputs):
        return evaluator.run(None, dict(zip(evaluator.input_names, inputs)))

    @staticmethod
    def _drop_epsilon(graph):
        for k, init in enumerate(graph.initializer):
            if init.name == "epsilon":
                zero = np.zeros_like(numpy_helper.to_array(init))
                graph.initializer[k].CopyFrom(numpy_helper.from_array(zero, init.name))

    @staticmethod
    def _remove_casts(graph):
        casts = [n for n in graph.node if n.op_type == "Cast"]
        if len(casts) == 2:
            first, second = casts
            kept = [n for n in graph.node if n.op_type != "Cast"]
            for node in kept:
                node.input[:] = [first.input[0] if name == second.output[0] else name for name in node.input]
            graph.ClearField("node")
            graph.node.extend(kept)

    @staticmethod
    def _last_axis(graph):
        for k, init in enumerate(graph.initializer):
            if init.name == "axes":
                graph.initializer[k].CopyFrom(numpy_helper.from_array(np.array([-1], dtype=np.int64), "axes"))
