"""AffineGrid: each output position is theta applied to the position (x, y[, z], 1) of an evenly spaced grid
over [-1, 1] (resize_family.affine_grid), exact, rounded once."""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators.case import Operator, type_of
from onnx_conformance.generators.resize_family import affine_grid
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = Operator("AffineGrid", primary="T1")


@OPERATOR.semantics
def affine_grid_semantics(v, attrs, inputs):
    """grid[n, ..., :] = theta[n] @ (x, y[, z], 1) over an evenly spaced grid of `size`'s spatial dimensions
    in [-1, 1] (pixel centres, or the corner pixels' centres at -1 and 1 with align_corners), exact."""
    theta, size = np.asarray(inputs["theta"]), np.asarray(inputs["size"]).reshape(-1).tolist()
    r = len(size) - 2
    if r not in (2, 3) or theta.shape != (size[0], r, r + 1):
        raise Rejected(v.sentence(r"theta") or "theta is [N, 2, 3] for 2D or [N, 3, 4] for 3D")
    grid, _ = affine_grid(theta, size, type_of(theta), bool(attr(attrs, "align_corners", 0)))
    return {"grid": grid}

# Two affine matrices each (rotation, shear, scale and offset), dyadic so every type holds them near exactly.
THETA_2D = [[[1.5, -0.75, 0.625], [0.5, 2.25, -1.125]],
            [[-0.25, 1.0, 0.375], [1.25, 0.5, 0.75]]]
THETA_3D = [[[1.5, -0.75, 0.25, 0.625], [0.5, 2.25, -0.5, -1.125], [0.125, 0.25, 0.875, 0.5]],
            [[-0.25, 1.0, 0.5, 0.375], [1.25, 0.5, -0.75, 0.75], [0.0, -0.5, 1.5, -0.25]]]


def case(v, t, theta, size, align_corners):
    theta = np.array(theta, np.float64).astype(numpy_of(t.dtype))
    size = np.array(size, np.int64)
    _, tol = affine_grid(theta, size, t.dtype, bool(align_corners))
    return OPERATOR.expect(v, {"theta": theta, "size": size}, {"align_corners": align_corners}, tolerance=tol)


def example(name, theta, size, align_corners):
    def fn(v, t, rng):
        return case(v, t, theta, size, align_corners)
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
    return case(v, t, theta, [1, 1, 3, 5], 0)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"(bfloat16|float16|double): reference evaluator: output 0 dtype float != expected (bfloat16|float16|double)",
    "the evaluator's AffineGrid returns float32 whatever theta's type; grid has theta's type (T1)")
