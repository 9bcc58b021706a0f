"""PRelu: y = slope * x for x < 0, x otherwise, slope broadcast to x; the product rounded once."""

import math

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.activation_family import INF, NAN, Activation, array, edges, element
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.semantics import Rejected, Undefined

OPERATOR = Operator("PRelu")


def prelu(a, x, slope):
    """slope * x for x < 0, x otherwise (NaN: x itself); IEEE 754 gives 0 * inf and NaN * x NaN."""
    if isinstance(x, float):  # NaN, +-inf
        if math.isnan(x) or x > 0:
            return x
        if slope == 0 or (isinstance(slope, float) and math.isnan(slope)):
            return NAN
        return -INF if slope > 0 else INF
    return slope * x if x < 0 else x


def spread(v, x, others):
    """slope against X: from version 7 'its shape must be unidirectional broadcastable to X'; before,
    'If `Slope` is of size 1, the value is shared', else it is X's own shape (elementwise)."""
    (slope,) = others
    if v.since_version >= 7:
        lead = x.ndim - slope.ndim
        if lead < 0 or any(s not in (1, d) for s, d in zip(slope.shape, x.shape[lead:])):
            raise Rejected(v.schema.inputs[1].description)
        return [slope]
    if slope.size == 1:
        return [slope.reshape(())]
    if slope.shape != x.shape:
        raise Undefined(f"PRelu-{v.since_version} defines a slope of size 1 or of X's shape "
                        "(unidirectional broadcasting comes in version 7)")
    return [slope]


PRELU = Activation(OPERATOR, prelu, lambda dtype: budget("mul", dtype), spread=spread)


def prelu_case(v, t, x, slope):
    """The case, where an integer product would overflow (undefined) the slope there set to 1."""
    if values.is_int(t.dtype):
        lo, hi = values.int_range(t.dtype)
        full = np.broadcast_to(slope, x.shape) if slope.ndim <= x.ndim else slope
        if full.shape == x.shape:
            fixed = np.array([s if lo <= element(e) * element(s) <= hi else 1
                              for e, s in zip(x.reshape(-1).tolist(), full.reshape(-1).tolist())], dtype=t.np())
            if slope.shape == x.shape:
                slope = fixed.reshape(x.shape)
    return PRELU.case(v, t, x, slope=slope)


def broadcast(name, slope_shape, since=7, x_shape=(3, 4, 5)):
    """A documented or spec broadcasting form of slope against x (of shape [3, 4, 5] unless given)."""

    def example(v, t, rng):
        if v.since_version < since:
            return NotApplicable(f"version {v.since_version} has no unidirectional broadcasting of slope "
                                 "(version 7 brings it); only a slope of x's shape or of size 1")
        x = values.sample(t.dtype, x_shape, rng, specials=False)
        slope = values.sample(t.dtype, slope_shape, rng, specials=False)
        return prelu_case(v, t, x, slope)

    OPERATOR.example(example, name=name)


broadcast("prelu", (3, 4, 5), since=1)
broadcast("broadcast", (5,))
broadcast("broadcast_channel", (4, 1))
# 'If `Slope` is of size 1, the value is shared across different channels' (versions 1 and 6)
broadcast("broadcast_scalar", (1,), since=1)
broadcast("broadcast_rank0", ())
# A 1-D slope as long as both dim 1 and the last dim: unidirectional broadcasting aligns it with the
# last axis; a kernel applying it per channel (axis 1, as Caffe's PReLU) mixes the slopes up.
broadcast("broadcast_last_axis_equal_to_channels", (3,), x_shape=(2, 3, 3))


@OPERATOR.example
def dtype_range(v, t, rng):
    """The type's limits, subnormals, +-inf and NaN against ordinary slopes."""
    x = array(edges(t.dtype), t.dtype)
    slope = values.sample(t.dtype, x.shape, rng, specials=False)
    return prelu_case(v, t, x, slope)
