"""Det: the determinant of each square matrix in the [*, M, M] input."""

import math

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.linalg_family import cast, det, rounded, tolerance
from onnx_conformance.generators.semantics import Rejected, Undefined
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("Det")


@OPERATOR.semantics
def determinant(v, attrs, inputs):
    """Y[*] = det(X[*, :, :]) of each square matrix, exact, rounded once to X's type."""
    x = inputs["X"]
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise Rejected(v.sentence(r"inner-most 2 dimensions form square matrices"))
    if not all(math.isfinite(float(e)) for e in x.reshape(-1)):
        # an elimination's inf - inf or 0 * inf depends on its order, which the spec does not fix
        raise Undefined("the determinant of a matrix with NaN or infinite entries: the spec names no formula")
    return {"Y": rounded(det(x), name_of_numpy(x.dtype))}


def case(v, t, x):
    return OPERATOR.expect(v, {"X": x}, tolerance=tolerance(t))


@OPERATOR.example(name="2d")
def two_d(v, t, rng):
    return case(v, t, cast(np.arange(4).reshape(2, 2), t))


@OPERATOR.example
def nd(v, t, rng):
    return case(v, t, cast([[[1, 2], [3, 4]], [[1, 2], [2, 1]], [[1, 3], [3, 1]]], t))


@OPERATOR.example
def batch_diagonally_dominant(v, t, rng):
    """3x3 matrices in a [2, 2] batch, well conditioned (a diagonal far above its row): every
    elimination order gives the determinant within a few roundings."""
    off = np.abs(values.sample(t.dtype, (2, 2, 3, 3), rng, specials=False)).astype(np.float64) / 64
    x = off + np.eye(3) * (4 + np.arange(3))
    return case(v, t, x.astype(t.np()))


@OPERATOR.example
def empty_batch(v, t, rng):
    return case(v, t, np.zeros((0, 2, 2), t.np()))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^\w+ float16: .*Issues with types",
    "the evaluator calls numpy.linalg.det, which has no float16 implementation",
)
OPERATOR.reference_differs(
    r"^\w+ bfloat16: .*dtype double != expected bfloat16",
    "the evaluator returns numpy.linalg.det's double result without casting it back to bfloat16",
)
