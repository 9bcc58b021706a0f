"""Chains of Add (and Mul) with constants whose order matters in floating point: (x + a) + b is not
x + (a + b) when a cancels b and x is lost in x + a. OpenVINO's LinOpSequenceFusion (AddAddFusion,
MulMulFusion) and TVM's SimplifyExpr/FoldConstant fold such constants together; onnxruntime's
ConstantFolding must fold only what is constant, never reassociate x's sum.

What each example catches: `cancellation` is (x + 1e20) + -1e20 with |x| <= 1000: in float, bfloat16
and double x + 1e20 rounds to 1e20 (double's spacing there is 16384), so the graph's value is 0,
and a backend that folds the constants first returns x; in integers the constants are 2^(bits-2)
and its negative, and the graph is exactly x for |x| <= 50 (a backend computing integers in a floating type loses
x there); `subtract_back` is (x + a) - a with the same a (unsigned types included); `mul_overflow`
is (x * 1e300) * 1e-300 in double, where x * 1e300 overflows to inf for |x| >= 1.8e8 and the graph's
value is inf there (a folded x * 1 is finite). float16 is not applicable to the sums and float and
bfloat16 to the products: the wide reading keeps those intermediates in double, where x survives (or
nothing overflows), so the tolerance would accept the reordered chain (see graphs.py)."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.patterns._fusion_data import quarters
from onnx_conformance.harness.dtypes import numpy_of

FAMILY = GraphFamily("Add+Add(reassociation)", "pattern", targets=(
    "OpenVINO: LinOpSequenceFusion (AddAddFusion, MulMulFusion)",
    "TVM: SimplifyExpr, FoldConstant",
    "onnxruntime: ConstantFolding (folds constants only, never reassociates)",
))

NO_FLOAT16 = ("float16's largest value (65504) is too small for double to lose x in x + a: the wide reading "
              "keeps x, and the tolerance would accept the reordered sum")


def _big(t):
    """1e20 in floating types; 2^(bits - 2) in integers, so x + a neither overflows nor fits a float's mantissa."""
    return 1e20 if t in FLOATS else 2 ** (np.iinfo(numpy_of(t)).bits - 2)


def _x(t, rng, shape):
    return quarters(t, rng, shape, -1000, 1000) if t in FLOATS else quarters(t, rng, shape, -50, 50)


@FAMILY.example
def cancellation(t, rng):
    """(x + a) + (-a), a = 1e20 (floats) or 2^(bits - 2) (integers); x in [-1000, 1000]."""
    if t == "float16":
        return NotApplicable(NO_FLOAT16)
    if t.startswith("uint"):
        return NotApplicable("the cancelling constant -a is negative")
    return Graph([helper.make_node("Add", ["x", "a"], ["xa"]), helper.make_node("Add", ["xa", "b"], ["y"])],
                 inputs={"x": _x(t, rng, (3, 6))}, outputs=["y"],
                 weights={"a": cast_to(_big(t), t), "b": cast_to(-_big(t), t)})


@FAMILY.example
def subtract_back(t, rng):
    """(x + a) - a."""
    if t == "float16":
        return NotApplicable(NO_FLOAT16)
    return Graph([helper.make_node("Add", ["a", "x"], ["xa"]), helper.make_node("Sub", ["xa", "a"], ["y"])],
                 inputs={"x": _x(t, rng, (3, 6))}, outputs=["y"], weights={"a": cast_to(_big(t), t)})


@FAMILY.example
def mul_overflow(t, rng):
    """(x * 1e300) * 1e-300 in double, x from 1 to 1e12: inf where x * 1e300 overflows."""
    if t != "double":
        return NotApplicable("only double's own range overflows where the wide reading's does: in narrower floats "
                             "the wide reading does not overflow, in integers overflow is undefined")
    x = cast_to([[1.0, -3.5, 1e8, 1.7e8, 1.8e8, -2e8], [5e8, -1e10, 1e12, 0.0, 0.25, -1e9]], t)
    return Graph([helper.make_node("Mul", ["x", "big"], ["xb"]), helper.make_node("Mul", ["xb", "small"], ["y"])],
                 inputs={"x": x}, outputs=["y"], weights={"big": cast_to(1e300, t), "small": cast_to(1e-300, t)})
