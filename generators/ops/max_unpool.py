"""MaxUnpool: each X value put at its flat index I in a zero output; the output shape from output_shape or the attributes.

Without output_shape the output spatial size is the one a MaxPool with these attributes would have
pooled from: (in - 1) * stride + kernel - pad_begin - pad_end (the inverse of MaxPool's floor
formula, as onnx's shape inference computes it). I holds 'linear indices ... computed considering
the tensor as flattened 1-D tensor, assuming row-major storage', 'in the range [0, N x C x D1 x ... x
Dn)': flat positions in the output tensor itself. Every position no index names is zero ('all the
non-maximal values ... are set to zero'); two equal indices with different values leave the value
undefined.
"""

import math

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Const, Declared, Operator
from onnx_conformance.generators.pool_family import maximum, random, windows
from onnx_conformance.generators.semantics import Rejected, Undefined

OPERATOR = Operator("MaxUnpool", primary="T1")


def default_shape(x_shape, kernel, strides=None, pads=None):
    nd = len(kernel)
    strides = strides or [1] * nd
    pads = pads or [0] * (2 * nd)
    return tuple(x_shape[:2]) + tuple((x_shape[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + nd]
                                      for i in range(nd))


INDICES_SHAPE = "I: 'Dimensions must be the same as input tensor X.'"


def unpool(x, index, shape):
    """A zero tensor of `shape` with X's values at the flat positions I names."""
    flat = np.zeros(math.prod(shape), dtype=x.dtype)
    idx = index.reshape(-1)
    values_ = x.reshape(-1)
    placed = {}
    for i, e in zip(idx.tolist(), values_):
        if i in placed and placed[i].tobytes() != e.tobytes():
            raise Undefined("two indices name one output position with different values: the spec does not "
                            "say which one it holds")
        placed[i] = e
    flat[idx] = values_
    return flat.reshape(shape)


@OPERATOR.semantics
def max_unpool(v, attrs, inputs):
    """output: zeros of output_shape (else the size a MaxPool with these attributes pooled from:
    (in - 1) * stride + kernel - pad_begin - pad_end), X's values placed at I's flat row-major positions
    ('in the range [0, N x C x D1 x ... x Dn)')."""
    x, index, out_shape = inputs["X"], np.asarray(inputs["I"]), inputs.get("output_shape")
    kernel = attrs.get("kernel_shape")
    if x.ndim < 3 or kernel is None or len(kernel) != x.ndim - 2:
        raise Rejected("kernel_shape: 'The size of the kernel along each axis.'")
    if index.shape != x.shape:
        raise Rejected(INDICES_SHAPE)
    if out_shape is not None:
        shape = tuple(int(d) for d in np.asarray(out_shape).reshape(-1))
        if len(shape) != x.ndim or any(d < 0 for d in shape):
            raise Rejected("output_shape: the shape of the output, one dimension per dimension of X")
    else:
        shape = default_shape(x.shape, list(kernel), attrs.get("strides"), attrs.get("pads"))
        if any(d < 0 for d in shape):
            raise Rejected("pads: larger than the unpooled size (in - 1) * stride + kernel")
    if index.size and (index.min() < 0 or index.max() >= math.prod(shape)):
        raise Rejected("I: 'So the values in indices are in the range [0, N x C x D1 x ... x Dn).'")
    return {"output": unpool(x, index.astype(np.int64), shape)}


def case(v, t, x, index, kernel_shape, strides=None, pads=None, output_shape=None, const_shape=True):
    """The case: output_shape an initializer (const_shape) or fed, the semantics' output, compared exactly."""
    attrs = {k: a for k, a in (("kernel_shape", kernel_shape), ("strides", strides), ("pads", pads)) if a is not None}
    inputs = {"X": x, "I": index.astype(np.int64)}
    if output_shape is not None:
        arr = np.array(output_shape, dtype=np.int64)
        inputs["output_shape"] = Const(arr) if const_shape else arr
    else:
        inputs["output_shape"] = None
    return OPERATOR.expect(v, inputs, attrs, tolerance={"ulp": 0} if values.is_float(t.dtype) else None)


def doc(t, rows):
    return np.array(rows, dtype=np.float64).astype(t.np())


@OPERATOR.example
def export_without_output_shape(v, t, rng):
    """onnx's test_maxunpool_export_without_output_shape."""
    return case(v, t, doc(t, [[[[1, 2], [3, 4]]]]), np.array([[[[5, 7], [13, 15]]]]), [2, 2], [2, 2])


@OPERATOR.example
def export_with_output_shape(v, t, rng):
    """onnx's test_maxunpool_export_with_output_shape places X at rows and columns 1 and 3 of a 5 x 5 output
    but feeds the indices 5, 7, 13, 15 of a 4 x 4 one; the spec's indices are flat positions in the output
    ('in the range [0, N x C x D1 x ... x Dn)'), so the same placement is 6, 8, 16, 18 here."""
    return case(v, t, doc(t, [[[[5, 6], [7, 8]]]]), np.array([[[[6, 8], [16, 18]]]]), [2, 2], [2, 2],
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
    return case(v, t, pooled, index, kernel, strides, pads,
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
    return case(v, t, x, np.array([[[[0, 3], [9, 14]]]]), [2, 2], [2, 2])


@OPERATOR.rejection
def indices_shape_differs(v, t, rng):
    """'Dimensions must be the same as input tensor X.' (I)"""
    x = random(t, (1, 1, 2, 2), rng)
    index = np.array([[[[0, 3, 9]]]], dtype=np.int64)
    return OPERATOR.reject(v, {"X": x, "I": index, "output_shape": None}, {"kernel_shape": [2, 2], "strides": [2, 2]},
                           {"output": Declared(t.dtype, [None] * 4)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^(export_with_output_shape|round_trip_output_shape) \S+: reference evaluator raised IndexError",
    "the evaluator reads I as flat positions in the default-sized output and pads that to output_shape; the spec's "
    "indices are positions in the output itself, 'in the range [0, N x C x D1 x ... x Dn)' (onnxruntime agrees)",
)
