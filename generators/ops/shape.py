"""Shape: the input's dimensions as a 1-D int64 tensor, from version 15 only those from `start` up to `end`."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import attr

OPERATOR = Operator("Shape", primary="T")


@OPERATOR.semantics
def shape(v, attrs, inputs):
    """The dimensions; from version 15 those in [start, end): a negative axis has r added, then both are
    'clamped to the range [0, r]', and 'If start > end, the result will be an empty shape'."""
    dims = np.shape(inputs["data"])
    start, end = (attr(attrs, "start", 0), attr(attrs, "end")) if v.has_attribute("start") else (0, None)
    # Python's slice clamps as the spec says: negative axes + r, then into [0, r]; start > end is empty.
    return {"shape": np.array(dims[start:end], dtype=np.int64)}


def shape_case(v, t, rng, shape, start=None, end=None):
    attrs = {k: a for k, a in (("start", start), ("end", end)) if a is not None}
    if attrs and not v.has_attribute("start"):
        return NotApplicable(f"Shape-{v.since_version} has no attributes start and end (from version 15: "
                             "\"Optional attributes start and end can be used to compute a slice of the input "
                             "tensor's shape.\")")
    return OPERATOR.expect(v, {"data": data(t, shape, rng)}, attrs)


def documented(shape, start=None, end=None):
    return lambda v, t, rng: shape_case(v, t, rng, shape, start, end)


OPERATOR.example(documented((2, 3)), name="example")
OPERATOR.example(documented((3, 4, 5)), name="shape")
# The documented slices of a [3, 4, 5] tensor's shape (version 15 on).
for _name, _start, _end in [("start_1", 1, None), ("end_1", None, 1), ("start_negative_1", -1, None),
                            ("end_negative_1", None, -1), ("start_1_end_negative_1", 1, -1),
                            ("start_1_end_2", 1, 2), ("clip_start", -10, None), ("clip_end", None, 10),
                            ("start_greater_than_end", 2, 1)]:
    OPERATOR.example(documented((3, 4, 5), _start, _end), name=_name)


@OPERATOR.example
def rank0(v, t, rng):
    """A scalar has no dimensions: an empty shape."""
    return shape_case(v, t, rng, ())


@OPERATOR.example
def zero_dim(v, t, rng):
    return shape_case(v, t, rng, (2, 0, 3))
