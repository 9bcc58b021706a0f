"""Det: the determinant of each square matrix in the [*, M, M] input."""

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Case, Operator
from onnx_conformance.generators.linalg_family import cast, det, to_type, tolerance

OPERATOR = Operator("Det")


def case(t, x):
    return Case({"X": x}, {"Y": to_type(det(x), t.dtype)}, tolerance=tolerance(t))


@OPERATOR.example(name="2d")
def two_d(v, t, rng):
    return case(t, cast(np.arange(4).reshape(2, 2), t))


@OPERATOR.example
def nd(v, t, rng):
    return case(t, cast([[[1, 2], [3, 4]], [[1, 2], [2, 1]], [[1, 3], [3, 1]]], t))


@OPERATOR.example
def batch_diagonally_dominant(v, t, rng):
    """3x3 matrices in a [2, 2] batch, well conditioned (a diagonal far above its row): every
    elimination order gives the determinant within a few roundings."""
    off = np.abs(values.sample(t.dtype, (2, 2, 3, 3), rng, specials=False)).astype(np.float64) / 64
    x = off + np.eye(3) * (4 + np.arange(3))
    return case(t, x.astype(t.np()))


@OPERATOR.example
def empty_batch(v, t, rng):
    return case(t, np.zeros((0, 2, 2), t.np()))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^\w+ float16: .*Issues with types",
    "the evaluator calls numpy.linalg.det, which has no float16 implementation",
)
OPERATOR.reference_differs(
    r"^\w+ bfloat16: .*dtype double != expected bfloat16",
    "the evaluator returns numpy.linalg.det's double result without casting it back to bfloat16",
)
