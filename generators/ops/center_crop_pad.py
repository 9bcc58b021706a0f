"""CenterCropPad: each chosen axis cropped or zero-padded to the given size, centred."""

import numpy as np

from onnx_conformance.generators.case import Operator, type_of
from onnx_conformance.generators.movement import data, indices, ints_of
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.generators.spatial_family import expect_defined, pad

OPERATOR = Operator("CenterCropPad", primary="T")


@OPERATOR.semantics
def center_crop_pad(v, attrs, inputs):
    """Each axis in `axes` (all by default) cropped or padded to shape[i], centred: a crop starts at
    floor((n - size) / 2), a pad puts the odd pixel on the right; "The padding value used is zero"."""
    x, sizes = inputs["input_data"], ints_of(inputs["shape"])
    axes_rule = " ".join(v.schema.attributes["axes"].description.split())
    axes = attr(attrs, "axes", list(range(x.ndim)))
    if any(not -x.ndim <= a < x.ndim for a in axes) or len(axes) != len(sizes):
        raise Rejected(axes_rule)
    axes = [a % x.ndim for a in axes]
    if len(set(axes)) != len(axes):
        raise Undefined("axes: Behavior is undefined if an axis is repeated.")
    if min(sizes, default=0) < 0:
        raise Rejected("shape: " + " ".join(v.schema.inputs[1].description.split()) + f" (given {sizes})")
    widths = center(x, sizes, axes)
    if type_of(x) == "string" and any(b > 0 or e > 0 for b, e in widths):
        raise Undefined(v.sentence(r"padding value") + " A string has no zero.")
    zero = None if x.dtype == object else np.zeros((), dtype=x.dtype)
    return {"output_data": pad(x, widths, "constant", zero)}


def center(x, sizes, axes):
    """The spec's window: a crop starts at floor((n - size) / 2); a pad puts the odd pixel on the right."""
    widths = [(0, 0)] * x.ndim
    for a, size in zip(axes, sizes):
        n = x.shape[a]
        begin = -((n - size) // 2) if n >= size else (size - n) // 2
        widths[a] = (begin, size - n - begin)
    return widths


def example(shape, sizes, axes=None):
    def make(v, t, rng):
        x = data(t, shape, rng)
        attrs = {} if axes is None else {"axes": list(axes)}
        return expect_defined(OPERATOR, v, {"input_data": x, "shape": indices(sizes, t["Tind"])}, attrs)

    return make


# Smaller than the documented tensors, with the same kinds of difference (even, odd) per axis.
OPERATOR.example(example((4, 5, 3), [2, 2, 3]), name="crop")
OPERATOR.example(example((2, 2, 3), [4, 5, 3]), name="pad")
OPERATOR.example(example((5, 3, 3), [3, 5, 3]), name="crop_and_pad")
OPERATOR.example(example((5, 3, 3), [3, 4], [0, 1]), name="crop_axes_hwc")
OPERATOR.example(example((5, 3, 3), [3, 4], [-3, -2]), name="crop_negative_axes_hwc")
OPERATOR.example(example((3, 5, 3), [3, 4], [1, 2]), name="crop_axes_chw")
# A crop to an empty window.
OPERATOR.example(example((3, 4), [0, 3]), name="crop_to_empty")
