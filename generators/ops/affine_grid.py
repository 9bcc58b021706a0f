"""AffineGrid: each output position is theta applied to the position (x, y[, z], 1) of an evenly spaced grid
over [-1, 1] (resize_family.affine_grid), exact, rounded once."""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators.case import Case, Operator
from onnx_conformance.generators.resize_family import affine_grid
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = Operator("AffineGrid", primary="T1")

# Two affine matrices each (rotation, shear, scale and offset), dyadic so every type holds them near exactly.
THETA_2D = [[[1.5, -0.75, 0.625], [0.5, 2.25, -1.125]],
            [[-0.25, 1.0, 0.375], [1.25, 0.5, 0.75]]]
THETA_3D = [[[1.5, -0.75, 0.25, 0.625], [0.5, 2.25, -0.5, -1.125], [0.125, 0.25, 0.875, 0.5]],
            [[-0.25, 1.0, 0.5, 0.375], [1.25, 0.5, -0.75, 0.75], [0.0, -0.5, 1.5, -0.25]]]


def case(t, theta, size, align_corners):
    theta = np.array(theta, np.float64).astype(numpy_of(t.dtype))
    size = np.array(size, np.int64)
    grid, tol = affine_grid(theta, size, t.dtype, bool(align_corners))
    return Case({"theta": theta, "size": size}, {"grid": grid}, {"align_corners": align_corners}, tolerance=tol)


def example(name, theta, size, align_corners):
    def fn(v, t, rng):
        return case(t, theta, size, align_corners)
    fn.__doc__ = f"onnx's test_affine_grid_{name}: N=2, C=3, size {size[2:]}, align_corners={align_corners} (our own theta)"
    OPERATOR.example(fn, name=name)


# onnx's documented examples build theta from trigonometric functions; ours are dyadic matrices of the same shapes
example("2d", THETA_2D, [2, 3, 5, 6], 0)
example("2d_align_corners", THETA_2D, [2, 3, 5, 6], 1)
example("3d", THETA_3D, [2, 3, 4, 5, 6], 0)
example("3d_align_corners", THETA_3D, [2, 3, 4, 5, 6], 1)


@OPERATOR.example
def random_theta_2d(v, t, rng):
    """Random theta in the type's range, an odd 3x5 grid, one matrix."""
    theta = rng.uniform(-4, 4, size=(1, 2, 3))
    return case(t, theta, [1, 1, 3, 5], 0)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"(bfloat16|float16|double): reference evaluator: output 0 dtype float != expected (bfloat16|float16|double)",
    "the evaluator's AffineGrid returns float32 whatever theta's type; grid has theta's type (T1)")
