"""ArgMax after an increasing function, which the ONNX optimizer's eliminate_nop_monotone_argmax
removes (Log, Exp, Sqrt, and Softmax/LogSoftmax along the ArgMax's axis); TVM and
onnx-simplifier-style rewriters do likewise.

An increasing function keeps the order in exact arithmetic, but rounded to its type it can merge
neighbours into ties, and ArgMax breaks ties by position. `distinct` has values far apart: the
removal is right. `exp_saturates` has two values past Exp's overflow (and two past its underflow)
in one row: both become inf (0), tied, so ArgMax takes the first, where ArgMax of x takes the larger,
second one. `sqrt_ties` has 4 and the next value of the type up, whose square roots round to the
same 2, and asks for the last index (select_last_index=1) of a row where the larger value comes
first. `softmax_other_axis` runs Softmax along axis 0 and ArgMax along 1: Softmax is increasing only
along its own axis, so the rows' order changes.

`exp_saturates` and `sqrt_ties` exist in double only: in a narrower type a runtime may keep Exp's
and Sqrt's results wider (the tolerance for graphs allows it; onnxruntime's and OpenVINO's CPU
kernels compute float16 in float), and then the tie is gone and ArgMax rightly takes the larger
element, as the removal would. In double there is nothing wider to keep them in."""

import ml_dtypes
import numpy as np
from onnx import helper

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.harness.dtypes import numpy_of

FAMILY = GraphFamily("Exp+ArgMax", "pattern", targets=(
    "ONNX optimizer: eliminate_nop_monotone_argmax (Log, Exp, Sqrt, Softmax/LogSoftmax on the same axis)",
    "TVM: SimplifyExpr (argmax of a monotone function)",
), types=FLOATS)

# Past exp's overflow and underflow in each type: ln(largest finite) + 1, ln(smallest subnormal / 2) - 1.
_EXP_OUT = {"float16": (12, -19), "bfloat16": (90, -110), "float": (90, -110), "double": (711, -760)}


def _graph(op, x, argmax, **op_attributes):
    return Graph([helper.make_node(op, ["x"], ["m"], **op_attributes),
                  helper.make_node("ArgMax", ["m"], ["y"], **argmax)],
                 inputs={"x": x}, outputs=["y"])


@FAMILY.example
def distinct(t, rng):
    """Exp of rows whose values are at least 0.5 apart; ArgMax along -1, keepdims 0."""
    x = rng.permutation(np.arange(12)).reshape(3, 4) / 2 - 3
    return _graph("Exp", cast_to(x, t), {"axis": -1, "keepdims": 0})


_WIDER = ("the tie exists only with each node rounded to the type; a runtime may keep the result wider "
          "than float16, bfloat16 or float in a graph, and then ArgMax rightly takes the larger element")


@FAMILY.example
def exp_saturates(t, rng):
    """Exp of rows (big, big + 1, 0) and (small, small + 1, small - 1): ArgMax of x is 1 in both,
    of Exp 0 (inf, inf, 1 and 0, 0, 0)."""
    if t != "double":
        return NotApplicable(_WIDER)
    big, small = _EXP_OUT[t]
    return _graph("Exp", cast_to([[big, big + 1, 0], [small, small + 1, small - 1]], t), {"axis": 1})


@FAMILY.example
def sqrt_ties(t, rng):
    """Sqrt of rows (4 + ulp, 4, 1) and (1, 9, 4): the first row ties at 2, select_last_index=1 gives 1."""
    if t != "double":
        return NotApplicable(_WIDER)
    up = float(np.asarray(4.0, numpy_of(t)) * (1 + float(ml_dtypes.finfo(numpy_of(t)).eps)))
    return _graph("Sqrt", cast_to([[up, 4.0, 1.0], [1.0, 9.0, 4.0]], t), {"axis": 1, "select_last_index": 1})


@FAMILY.example
def softmax_other_axis(t, rng):
    """Softmax along axis 0 of (3, 4), ArgMax along 1: x's column maxima move the rows' argmax."""
    x = [[0.0, 1.0, 0.5, -1.0], [0.0, 5.0, 0.5, 2.0], [3.0, 0.0, 0.5, -2.0]]
    return _graph("Softmax", cast_to(x, t), {"axis": 1, "keepdims": 0}, axis=0)
