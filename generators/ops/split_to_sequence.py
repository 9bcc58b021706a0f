"""SplitToSequence: the input split along `axis` into a sequence, by a chunk length, a list of lengths, or into ones."""

import numpy as np

from onnx_conformance.generators.case import Case, Operator, Seq
from onnx_conformance.generators.movement import data, indices
from onnx_conformance.generators.sequence_family import documented, paired, unpaired

OPERATOR = Operator("SplitToSequence", primary="T", defaults=paired("S", "T"))


def split_case(t, x, parts, axis=0, split=None, keepdims=None):
    bounds = np.cumsum(parts)[:-1]
    items = [np.ascontiguousarray(p) for p in np.split(x, bounds, axis=axis)]
    if keepdims == 0:
        items = [np.squeeze(p, axis=axis) for p in items]
    attrs = {"axis": axis}
    if keepdims is not None:
        attrs["keepdims"] = keepdims
    inputs = {"input": x, "split": None if split is None else indices(split, t["I"])}
    return Case(inputs, {"output_sequence": Seq(items, t["T"])}, attrs)


def arange18(t, rng):
    """The documented data, 0..17 in shape [3, 6]."""
    return documented(t["T"], [np.arange(18).reshape(3, 6)], rng)[0]


@OPERATOR.example(name="1")
def scalar_split(v, t, rng):
    """A scalar split 2 along axis 1: 'chunks all of size 'split''."""
    return unpaired(t) or split_case(t, arange18(t, rng), [2, 2, 2], axis=1, split=2)


@OPERATOR.example(name="2")
def list_split(v, t, rng):
    """A 1-D split [1, 2] along axis 0: 'lengths of the parts on 'axis' specified in 'split''."""
    return unpaired(t) or split_case(t, arange18(t, rng), [1, 2], axis=0, split=[1, 2])


@OPERATOR.example
def nokeepdims(v, t, rng):
    """split omitted (a default scalar 1), keepdims 0: the split axis is dropped ('Keep the split dimension or not')."""
    return unpaired(t) or split_case(t, arange18(t, rng), [1] * 6, axis=1, keepdims=0)


@OPERATOR.example
def keepdims(v, t, rng):
    """split omitted, keepdims at its default 1: chunks of length one keep the axis."""
    return unpaired(t) or split_case(t, data(t, (3, 2), rng), [1] * 3)


@OPERATOR.example
def uneven(v, t, rng):
    """A scalar split not dividing the axis: 'The last chunk alone may be smaller than 'split''; negative axis."""
    return unpaired(t) or split_case(t, data(t, (2, 5), rng), [2, 2, 1], axis=-1, split=2)
