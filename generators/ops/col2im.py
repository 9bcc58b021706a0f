"""Col2Im: column blocks put back into an N-d image, overlapping values summed (as PyTorch's fold)."""

import itertools

import numpy as np

from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.spatial_family import documented

OPERATOR = Operator("Col2Im", primary="T")


def col2im(x, image, block, strides=None, pads=None, dilations=None):
    """Each block's elements placed back at their pixels; where blocks overlap the values are summed.

    Returns (image, overlapping): without overlap the result is pure movement (an uncovered pixel
    is zero); with it, the sum is done exactly (int64/float64/complex128 on small integers) and cast once.
    """
    nd = len(image)
    strides = strides or [1] * nd
    pads = pads or [0] * (2 * nd)
    dilations = dilations or [1] * nd
    n, ck, _ = x.shape
    c = ck // int(np.prod(block))
    counts = [(image[d] + pads[d] + pads[d + nd] - (dilations[d] * (block[d] - 1) + 1)) // strides[d] + 1
              for d in range(nd)]
    assert x.shape[2] == np.prod(counts), "L is the number of blocks"
    hits = {}
    for li, pos in enumerate(itertools.product(*map(range, counts))):
        for ki, k in enumerate(itertools.product(*map(range, block))):
            pixel = tuple(pos[d] * strides[d] + k[d] * dilations[d] - pads[d] for d in range(nd))
            if all(0 <= p < image[d] for d, p in enumerate(pixel)):
                hits.setdefault(pixel, []).append((ki, li))
    overlapping = any(len(h) > 1 for h in hits.values())
    if overlapping and x.dtype.kind in "bO":
        return None, True
    if overlapping:
        acc = x.astype(np.complex128 if x.dtype.kind == "c" else np.int64 if x.dtype.kind in "iu" else np.float64)
        out = np.zeros((n, c, *image), dtype=acc.dtype)
    else:
        acc = x
        out = np.empty((n, c, *image), dtype=x.dtype)
        out[...] = "" if x.dtype == object else np.zeros((), x.dtype)
    blocks = acc.reshape(n, c, -1, x.shape[2])
    for pixel, h in hits.items():
        total = blocks[:, :, h[0][0], h[0][1]]
        for ki, li in h[1:]:
            total = total + blocks[:, :, ki, li]
        out[(slice(None), slice(None), *pixel)] = total
    return out.astype(x.dtype), overlapping


def example(doc_input, image, block, **attrs):
    def make(v, t, rng):
        x = documented(t, doc_input, rng)
        out, overlapping = col2im(x, image, block, **attrs)
        if overlapping and out is None:
            return NotApplicable("blocks overlap here and overlapping values are summed (\"Col2Im behaves "
                                 "similarly to PyTorch's fold\"); the spec defines no sum of " + t.dtype)
        if overlapping and not np.array_equal((out.real if out.dtype.kind == "c" else out).astype(np.float64), col2im(np.asarray(doc_input, np.float64),
                                                                              image, block, **attrs)[0]):
            return NotApplicable(f"the documented sums do not fit {t.dtype}; the spec says nothing of overflow")
        inputs = {"input": x, "image_shape": np.array(image, np.int64), "block_shape": np.array(block, np.int64)}
        return Case(inputs, {"output": out}, attrs)

    return make


# The documented examples (onnx's Col2Im tests), their data as given.
COL2IM = [[[1, 6, 11, 16, 21], [2, 7, 12, 17, 22], [3, 8, 13, 18, 23], [4, 9, 14, 19, 24], [5, 0, 15, 20, 25]]]
STRIDES = [[[0] * 4, [1] * 4, [1] * 4, [1] * 4, [0] * 4, [0] * 4, [0] * 4, [1] * 4, [0] * 4]]
PADS = [[[r + 5 * j for j in range(15)] for r in range(1, 6)]]
DILATIONS = [[[r + 4 * j for j in range(5)] for r in range(1, 5)]]
FIVE_D = [[[r + 5 * j + 60 * (r > 5) - 5 * (r > 5) for j in range(12)] for r in range(1, 11)]]

OPERATOR.example(example(COL2IM, [5, 5], [1, 5]), name="col2im")
OPERATOR.example(example(STRIDES, [5, 5], [3, 3], strides=[2, 2]), name="strides")
OPERATOR.example(example(PADS, [5, 5], [1, 5], pads=[0, 1, 0, 1]), name="pads")
OPERATOR.example(example(DILATIONS, [6, 6], [2, 2], dilations=[1, 5]), name="dilations")
OPERATOR.example(example(FIVE_D, [3, 4, 5], [1, 1, 5]), name="5d")


@OPERATOR.example
def exact_cover(v, t, rng):
    """3x1 blocks tiling a 3x3 image once each: pure movement of every kind of value, an odd element count."""
    x = data(t, (1, 3, 3), rng)
    out, _ = col2im(x, [3, 3], [3, 1])
    inputs = {"input": x, "image_shape": np.array([3, 3], np.int64), "block_shape": np.array([3, 1], np.int64)}
    return Case(inputs, {"output": out})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    'string: .*Issues with types',
    "the evaluator's Col2Im cannot run on strings (numpy arithmetic on an object array); our value is the blocks placed by the spec's rule",
)
