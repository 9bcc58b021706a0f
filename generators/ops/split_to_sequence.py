"""SplitToSequence: the input split along `axis` into a sequence, by a chunk length, a list of lengths, or into ones."""

import numpy as np

from onnx_conformance.generators.case import Operator, Seq, type_of
from onnx_conformance.generators.movement import axis_in, data, indices
from onnx_conformance.generators.semantics import Rejected, attr, described
from onnx_conformance.generators.sequence_family import documented, paired, unpaired

OPERATOR = Operator("SplitToSequence", primary="T", defaults=paired("S", "T"))


@OPERATOR.semantics
def split_to_sequence(v, attrs, inputs):
    """Chunks along axis: of length `split` each (a scalar; the last may be shorter), of the lengths
    listed (a 1-D split, summing to the axis' size), or of length 1 without split, the axis then
    dropped where keepdims is 0 ("If input 'split' is specified, this attribute is ignored")."""
    x, split = inputs["input"], inputs.get("split")
    axis = axis_in(attr(attrs, "axis", 0), x.ndim, described(v, "axis"))
    n = x.shape[axis]
    if split is None or np.ndim(split) == 0:
        size = 1 if split is None else int(split)
        if size <= 0:
            raise Rejected(v.sentence(r"must contain only positive numbers"))
        lengths = [min(size, n - start) for start in range(0, n, size)]
    else:
        if np.ndim(split) != 1:
            raise Rejected(v.sentence(r"either a scalar"))
        lengths = [int(k) for k in split]
        if any(k < 0 for k in lengths):  # the input's description: "All values must be >= 0"
            raise Rejected(described(v, "split"))
        if sum(lengths) != n:
            raise Rejected(v.sentence(r"sum of entries in 'split' must be equal"))
    items = [np.ascontiguousarray(p) for p in np.split(x, np.cumsum(lengths)[:-1], axis=axis)] if lengths else []
    if split is None and attr(attrs, "keepdims", 1) == 0:
        items = [np.squeeze(p, axis=axis) for p in items]
    return {"output_sequence": Seq(items, type_of(x))}


def split_case(v, t, x, axis=0, split=None, keepdims=None):
    attrs = {"axis": axis}
    if keepdims is not None:
        attrs["keepdims"] = keepdims
    return OPERATOR.expect(v, {"input": x, "split": None if split is None else indices(split, t["I"])}, attrs)


def arange18(t, rng):
    """The documented data, 0..17 in shape [3, 6]."""
    return documented(t["T"], [np.arange(18).reshape(3, 6)], rng)[0]


@OPERATOR.example(name="1")
def scalar_split(v, t, rng):
    """A scalar split 2 along axis 1: 'chunks all of size 'split''."""
    return unpaired(t) or split_case(v, t, arange18(t, rng), axis=1, split=2)


@OPERATOR.example(name="2")
def list_split(v, t, rng):
    """A 1-D split [1, 2] along axis 0: 'lengths of the parts on 'axis' specified in 'split''."""
    return unpaired(t) or split_case(v, t, arange18(t, rng), axis=0, split=[1, 2])


@OPERATOR.example
def nokeepdims(v, t, rng):
    """split omitted (a default scalar 1), keepdims 0: the split axis is dropped ('Keep the split dimension or not')."""
    return unpaired(t) or split_case(v, t, arange18(t, rng), axis=1, keepdims=0)


@OPERATOR.example
def keepdims(v, t, rng):
    """split omitted, keepdims at its default 1: chunks of length one keep the axis."""
    return unpaired(t) or split_case(v, t, data(t, (3, 2), rng))


@OPERATOR.example
def uneven(v, t, rng):
    """A scalar split not dividing the axis: 'The last chunk alone may be smaller than 'split''; negative axis."""
    return unpaired(t) or split_case(v, t, data(t, (2, 5), rng), axis=-1, split=2)
