"""Backends whose random operators draw from the wrong distribution, to prove the distribution verdict sees it.

Both answer with onnx's reference evaluator and then skew what a random node drew:
`WideUniform` stretches RandomUniform(Like)'s range to twice its width (low + 2 (x - low)), and
`WideNormal` scales RandomNormal(Like)'s deviations from the mean by 1.25. Every other output is
the reference evaluator's own.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper

from onnx_conformance.harness.backends.base import Adapter


class _Skewed(Adapter):
    ops: tuple[str, ...] = ()
    keys: tuple[str, str] = ("", "")
    defaults: tuple[float, float] = (0.0, 1.0)
    factor = 1.0

    @property
    def version(self) -> str:
        return "0.1"

    def prepare(self, model_path: str):
        from onnx.reference import ReferenceEvaluator

        model = onnx.load(model_path)
        node = model.graph.node[0]
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        centre = float(attrs.get(self.keys[0], self.defaults[0]))
        return ReferenceEvaluator(model), node.op_type in self.ops, centre

    def run(self, prepared, inputs):
        evaluator, skew, centre = prepared
        outputs = evaluator.run(None, dict(zip(evaluator.input_names, inputs)))
        if not skew:
            return outputs
        out = outputs[0]
        wide = centre + self.factor * (out.astype(np.float64) - centre)
        return [wide.astype(out.dtype), *outputs[1:]]


class WideUniform(_Skewed):
    """A uniform twice as wide: [low, low + 2 (high - low))."""

    name = "wide-uniform"
    ops = ("RandomUniform", "RandomUniformLike")
    keys = ("low", "high")
    factor = 2.0


class WideNormal(_Skewed):
    """A normal whose scale is 25% too large."""

    name = "wide-normal"
    ops = ("RandomNormal", "RandomNormalLike")
    keys = ("mean", "scale")
    factor = 1.25
