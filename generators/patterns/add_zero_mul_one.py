"""Add of zero and Mul by one, which optimizers remove as no-ops (onnxruntime's NoopElimination of
x+0, x-0, x*1, x/1, OpenVINO's NopElimination EliminateEltwise, onnxscript's and onnx-simplifier's
no-op rules, TVM's SimplifyExpr).

x + 0 is not always x. `add_zero_broadcasts` adds a (2, 3) block of zeros to x (3,): the result
has x's values on two rows; removing the Add returns (3,). `mul_one_broadcasts` multiplies x (3, 1)
by ones (1, 4): (3, 4). `add_empty` adds a zero-sized constant (0,) to x (2, 1): the result is
(2, 0), empty; a rule that treats a constant with no elements as "all zero" removes the Add and
returns x. `negative_zero` adds +0 to x holding -0.0 (and other values) and takes the reciprocal:
-0 + 0 is +0 (round to nearest), so 1/y is +inf where x was -0; with the Add removed, it is -inf."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, NotApplicable, cast_to
from onnx_conformance.generators.patterns._layout_data import distinct

FAMILY = GraphFamily("Add(0)/Mul(1)", "pattern", targets=(
    "onnxruntime: NoopElimination (x+0, x-0, x*1, x/1)",
    "OpenVINO: NopElimination (EliminateEltwise)",
    "ONNX optimizer / onnx-simplifier: eliminate_nop_with_unit",
))


def _binary(op, x, constant):
    return Graph([helper.make_node(op, ["x", "c"], ["y"])], inputs={"x": x}, outputs=["y"], weights={"c": constant})


@FAMILY.example
def add_zero_broadcasts(t, rng):
    """x (3,) + zeros (2, 3): (2, 3)."""
    return _binary("Add", distinct(t, rng, (3,)), cast_to(np.zeros((2, 3)), t))


@FAMILY.example
def mul_one_broadcasts(t, rng):
    """x (3, 1) * ones (1, 4): (3, 4)."""
    return _binary("Mul", distinct(t, rng, (3, 1)), cast_to(np.ones((1, 4)), t))


@FAMILY.example
def add_empty(t, rng):
    """x (2, 1) + a constant of shape (0,): (2, 0)."""
    return _binary("Add", distinct(t, rng, (2, 1)), cast_to(np.zeros((0,)), t))


@FAMILY.example
def negative_zero(t, rng):
    """1 / (x + 0) with x = (-0.0, 0.0, 2, -0.5): (+inf, +inf, 0.5, -2)."""
    if t not in FLOATS:
        return NotApplicable(f"{t} has no negative zero (and Reciprocal takes floating types only)")
    return Graph([helper.make_node("Add", ["x", "c"], ["s"]), helper.make_node("Reciprocal", ["s"], ["y"])],
                 inputs={"x": cast_to([-0.0, 0.0, 2.0, -0.5], t)}, outputs=["y"], weights={"c": cast_to(0.0, t)})
