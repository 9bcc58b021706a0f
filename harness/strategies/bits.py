"""Bit reinterpretation: BitCast between every pair of types of one bit-width, over every encoding of note (NaN payloads, signed zeros, subnormals, integer extremes).

The binding names both types; a pair of different widths is 'The target data type must have the
same bit-width as the input data type' and makes no node (the draw is discarded). Inputs hold the
type's edges (common.edges: every NaN encoding of note, each of the 256 codes of an 8-bit float)
beside its ordinary values. A byte other than 0 and 1 read as bool has no value in the spec; such a
draw is discarded by the semantics.
"""

from __future__ import annotations

from hypothesis import strategies as st

from onnx_conformance.generators.ops.bit_cast import width
from onnx_conformance.harness.dtypes import elem_type_of
from onnx_conformance.harness.strategies.common import Discard, Family, Probe, shapes, tensors


class Bits(Family):
    name = "bit reinterpretation"
    operators = ("BitCast",)

    def strategy(self, op, v, t):
        return _bit_cast(op, v, t)

    def case(self, op, v, t, probe):
        if width(t["T1"]) != width(t["T2"]):  # no node: nothing was drawn
            raise Discard(f"{t['T1']} and {t['T2']}: '{v.sentence(r'must have the same bit-width')}'")
        return super().case(op, v, t, probe)


@st.composite
def _bit_cast(draw, op, v, t):
    if width(t["T1"]) != width(t["T2"]):
        return Probe({})
    x = draw(tensors(t["T1"], draw(shapes(0, 5), label="input shape")), label="input")
    return Probe({"input": x}, {"to": elem_type_of(t["T2"])})
