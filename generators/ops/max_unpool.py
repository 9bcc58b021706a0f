"""MaxUnpool: each X value put at its flat index I in a zero output; the output shape from output_shape or the attributes.

Without output_shape the output spatial size is the one a MaxPool with these attributes would have
pooled from: (in - 1) * stride + kernel - pad_begin - pad_end (the inverse of MaxPool's floor
formula, as onnx's shape inference computes it). I holds 'linear indices ... computed considering
the tensor as flattened 1-D tensor, assuming row-major storage', 'in the range [0, N x C x D1 x ... x
Dn)': flat positions in the output tensor itself. Every position no index names is zero ('all the
non-maximal values ... are set to zero'); two equal indices would leave the value undefined (none here).
"""

import math

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Case, Const, Declared, Operator
from onnx_conformance.generators.pool_family import maximum, random, windows

OPERATOR = Operator("MaxUnpool", primary="T1")


def default_shape(x_shape, kernel, strides=None, pads=None):
    nd = len(kernel)
    strides = strides or [1] * nd
    pads = pads or [0] * (2 * nd)
    return tuple(x_shape[:2]) + tuple((x_shape[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + nd]
                                      for i in range(nd))


def unpool(x, index, shape):
    flat = np.zeros(math.prod(shape), dtype=x.dtype)
    idx = index.reshape(-1)
    assert len(set(idx.tolist())) == idx.size, "distinct indices"
    flat[idx] = x.reshape(-1)
    return flat.reshape(shape)


def max_unpool(v, t, x, index, kernel_shape, strides=None, pads=None, output_shape=None, const_shape=True):
    attrs = {k: a for k, a in (("kernel_shape", kernel_shape), ("strides", strides), ("pads", pads)) if a is not None}
    shape = tuple(output_shape) if output_shape is not None else default_shape(x.shape, kernel_shape, strides, pads)
    inputs = {"X": x, "I": index.astype(np.int64)}
    if output_shape is not None:
        arr = np.array(output_shape, dtype=np.int64)
        inputs["output_shape"] = Const(arr) if const_shape else arr
    else:
        inputs["output_shape"] = None
    return Case(inputs, {"output": unpool(x, index, shape)}, attrs,
                tolerance={"ulp": 0} if values.is_float(t.dtype) else None)


def doc(t, rows):
    return np.array(rows, dtype=np.float64).astype(t.np())


@OPERATOR.example
def export_without_output_shape(v, t, rng):
    """onnx's test_maxunpool_export_without_output_shape."""
    return max_unpool(v, t, doc(t, [[[[1, 2], [3, 4]]]]), np.array([[[[5, 7], [13, 15]]]]), [2, 2], [2, 2])


@OPERATOR.example
def export_with_output_shape(v, t, rng):
    """onnx's test_maxunpool_export_with_output_shape places X at rows and columns 1 and 3 of a 5 x 5 output
    but feeds the indices 5, 7, 13, 15 of a 4 x 4 one; the spec's indices are flat positions in the output
    ('in the range [0, N x C x D1 x ... x Dn)'), so the same placement is 6, 8, 16, 18 here."""
    return max_unpool(v, t, doc(t, [[[[5, 6], [7, 8]]]]), np.array([[[[6, 8], [16, 18]]]]), [2, 2], [2, 2],
                      output_shape=[1, 1, 5, 5], const_shape=False)


def round_trip(v, t, rng, shape, kernel, strides=None, pads=None, output_shape=None):
    """Unpool what a MaxPool with the same attributes gives for random distinct data (windows that do not
    overlap, so no position is the maximum of two; the shape is the default one unless output_shape)."""
    class _V:  # the walker's version text: explicit padding, floor mode (no version-specific rule applies)
        doc = ""
        op, since_version = "MaxPool", 12
    x = random(t, shape, rng)
    pooled_shape, wins, _ = windows(_V, shape[2:], kernel, strides, pads)
    y, index = maximum(x, pooled_shape, wins)
    if index is None or len(set(index.reshape(-1).tolist())) != index.size:
        raise ValueError("pick data whose maxima are distinct positions")
    pooled = np.array([float(e) for e in y.reshape(-1)]).astype(t.np()).reshape(y.shape)
    return max_unpool(v, t, pooled, index, kernel, strides, pads,
                      output_shape=shape if output_shape else None)


@OPERATOR.example
def round_trip_2d_batch(v, t, rng):
    """N = 2, C = 3: the indices run over the whole output, image and channel included."""
    return round_trip(v, t, rng, (2, 3, 4, 6), [2, 2], [2, 2])


@OPERATOR.example
def round_trip_1d(v, t, rng):
    return round_trip(v, t, rng, (1, 2, 8), [2], [2])


@OPERATOR.example
def round_trip_3d(v, t, rng):
    return round_trip(v, t, rng, (1, 1, 4, 4, 4), [2, 2, 2], [2, 2, 2])


@OPERATOR.example
def round_trip_pads(v, t, rng):
    """Pads shrink the default output: (3 - 1) * 2 + 2 - 1 - 0 = 5 rows."""
    return round_trip(v, t, rng, (1, 2, 5, 5), [2, 2], [2, 2], pads=[1, 1, 0, 0])


@OPERATOR.example
def round_trip_output_shape(v, t, rng):
    """5 x 7 pooled by 2 x 2 stride 2 gives 2 x 3, whose default unpooled size is 4 x 6: output_shape restores 5 x 7."""
    return round_trip(v, t, rng, (1, 2, 5, 7), [2, 2], [2, 2], output_shape=True)


@OPERATOR.example
def ieee_specials(v, t, rng):
    """NaN, the infinities and -0.0 are moved as they are."""
    x = np.array([[[[np.nan, np.inf], [-np.inf, -0.0]]]]).astype(t.np())
    return max_unpool(v, t, x, np.array([[[[0, 3], [9, 14]]]]), [2, 2], [2, 2])


@OPERATOR.rejection
def indices_shape_differs(v, t, rng):
    """'Dimensions must be the same as input tensor X.' (I)"""
    x = random(t, (1, 1, 2, 2), rng)
    index = np.array([[[[0, 3, 9]]]], dtype=np.int64)
    return Case({"X": x, "I": index, "output_shape": None}, {"output": Declared(t.dtype, [None] * 4)},
                {"kernel_shape": [2, 2], "strides": [2, 2]},
                error="I: 'Dimensions must be the same as input tensor X.'")


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^(export_with_output_shape|round_trip_output_shape) \S+: reference evaluator raised IndexError",
    "the evaluator reads I as flat positions in the default-sized output and pads that to output_shape; the spec's "
    "indices are positions in the output itself, 'in the range [0, N x C x D1 x ... x Dn)' (onnxruntime agrees)",
)
