"""CenterCropPad: each chosen axis cropped or zero-padded to the given size, centred."""

import numpy as np

from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import data, indices
from onnx_conformance.generators.spatial_family import pad

OPERATOR = Operator("CenterCropPad", primary="T")


def center(x, sizes, axes=None):
    """The spec's window: a crop starts at floor((n - size) / 2); a pad puts the odd pixel on the right."""
    axes = list(range(x.ndim)) if axes is None else [a % x.ndim for a in axes]
    widths = [(0, 0)] * x.ndim
    for a, size in zip(axes, sizes):
        n = x.shape[a]
        begin = -((n - size) // 2) if n >= size else (size - n) // 2
        widths[a] = (begin, size - n - begin)
    return widths


def example(shape, sizes, axes=None):
    def make(v, t, rng):
        x = data(t, shape, rng)
        widths = center(x, sizes, axes)
        if t.dtype == "string" and any(b > 0 or e > 0 for b, e in widths):
            return NotApplicable(v.sentence(r"padding value") + " A string has no zero.")
        out = pad(x, widths, "constant", np.zeros((), dtype=t.np()) if t.dtype != "string" else None)
        attrs = {} if axes is None else {"axes": list(axes)}
        return Case({"input_data": x, "shape": indices(sizes, t["Tind"])}, {"output_data": out}, attrs)

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
