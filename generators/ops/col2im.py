"""Col2Im: column blocks put back into an N-d image, overlapping values summed (as PyTorch's fold)."""

import itertools
import math
import re
from fractions import Fraction

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator, type_of
from onnx_conformance.generators.movement import data, ints_of
from onnx_conformance.generators.rounding import round_to
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, described
from onnx_conformance.generators.spatial_family import documented, expect_defined
from onnx_conformance.generators.values import int_range, is_int
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = Operator("Col2Im", primary="T")


@OPERATOR.semantics
def col2im(v, attrs, inputs):
    """Each block's elements placed back at their pixels (blocks in lexicographic order, each element at
    position * stride + offset * dilation - pad_begin); where blocks overlap the values are summed
    ("Col2Im behaves similarly to PyTorch's fold"), exactly, and rounded once; a pixel no block covers is zero."""
    x = inputs["input"]
    image, block = ints_of(inputs["image_shape"]), ints_of(inputs["block_shape"])
    nd = len(image)
    strides = attr(attrs, "strides", [1] * nd)
    pads = attr(attrs, "pads", [0] * (2 * nd))
    dilations = attr(attrs, "dilations", [1] * nd)
    if nd < 2 or len(block) != nd:
        raise Rejected("image_shape, block_shape: " + _description(v, "image_shape", r"[^.,]*size of at least 2"))
    if len(strides) != nd or len(dilations) != nd or len(pads) != 2 * nd or min(pads) < 0 \
            or min(strides) < 1 or min(dilations) < 1 or min(block) < 1:
        raise Rejected("strides, pads, dilations: one value per spatial axis (pads: two), a stride and a dilation "
                       "of at least 1, pads that \"can take any value greater than or equal to 0\"")
    counts = block_counts(image, block, strides, pads, dilations)
    size = int(np.prod(block))
    if x.ndim != 3 or size == 0 or x.shape[1] % size or x.shape[2] != int(np.prod(counts)):
        raise Rejected("input: " + _description(v, "input", r"This is a 3-dimensional tensor[^.]*\."))
    n, c = x.shape[0], x.shape[1] // size
    hits = pixel_sources(image, block, strides, pads, dilations, counts)
    overlapping = any(len(h) > 1 for h in hits.values())
    kind = type_of(x)
    if overlapping and kind in ("bool", "string"):
        raise Undefined("blocks overlap here and overlapping values are summed (\"Col2Im behaves similarly to "
                        "PyTorch's fold\"); the spec defines no sum of " + kind)
    out = np.empty((n, c, *image), dtype=x.dtype)
    out[...] = "" if x.dtype == object else np.zeros((), x.dtype)
    blocks = x.reshape(n, c, size, x.shape[2])
    for pixel, h in hits.items():
        terms = [blocks[:, :, ki, li] for ki, li in h]
        for at in np.ndindex(n, c):
            out[at + pixel] = terms[0][at] if len(terms) == 1 else exact_sum([term[at] for term in terms], kind)
    return {"output": out}


def block_counts(image, block, strides, pads, dilations) -> list[int]:
    """Blocks per spatial axis: the convolution formula on the padded image with the dilated block."""
    nd = len(image)
    return [max(0, (image[d] + pads[d] + pads[d + nd] - (dilations[d] * (block[d] - 1) + 1)) // strides[d] + 1)
            for d in range(nd)]


def pixel_sources(image, block, strides, pads, dilations, counts) -> dict:
    """Each image pixel any block covers -> the (element of the block, block) pairs placed there."""
    nd = len(image)
    hits = {}
    for li, pos in enumerate(itertools.product(*map(range, counts))):
        for ki, k in enumerate(itertools.product(*map(range, block))):
            pixel = tuple(pos[d] * strides[d] + k[d] * dilations[d] - pads[d] for d in range(nd))
            if all(0 <= p < image[d] for d, p in enumerate(pixel)):
                hits.setdefault(pixel, []).append((ki, li))
    return hits


def exact_sum(terms: list, kind: str):
    """The sum of values of one type, exact and rounded once to it (componentwise for complex);
    an integer sum outside the type's range has no value in the spec."""
    if is_int(kind):
        total = sum(int(t) for t in terms)
        lo, hi = int_range(kind)
        if not lo <= total <= hi:
            raise Undefined(f"the exact sum {total} of overlapping values is outside {kind}'s range [{lo}, {hi}]; "
                            "the spec says nothing of overflow")
        return total
    if kind.startswith("complex"):
        part = "float" if kind == "complex64" else "double"
        re_, im = (_real_sum([getattr(t, p) for t in terms], part) for p in ("real", "imag"))
        return complex(float(re_), float(im))
    return _real_sum(terms, kind)


def _real_sum(terms: list, kind: str):
    """The exact sum of real floats rounded once; with an infinity or NaN among them, IEEE's sum."""
    values = [float(t) for t in terms]
    if all(math.isfinite(t) for t in values):
        return round_to(sum(Fraction(t) for t in values), kind)
    return np.array(math.fsum(values) if not any(math.isnan(t) for t in values) and len(
        {math.copysign(1, t) for t in values if math.isinf(t)}) == 1 else math.nan).astype(numpy_of(kind))


def _description(v, name: str, pattern: str) -> str:
    """The words of an input's description that `pattern` matches (its sentences are not all split by spaces)."""
    return re.search(pattern, described(v, name)).group(0).strip()


def example(doc_input, image, block, **attrs):
    def make(v, t, rng):
        x = documented(t, doc_input, rng)
        inputs = {"input": x, "image_shape": np.array(image, np.int64), "block_shape": np.array(block, np.int64)}
        case = expect_defined(OPERATOR, v, inputs, attrs)
        if isinstance(case, NotApplicable) or not overlaps(image, block, **attrs):
            return case
        exact = OPERATOR.run(v, dict(inputs, input=np.asarray(doc_input, np.float64)), attrs)["output"]
        out = case.outputs["output"]
        if not np.array_equal((out.real if out.dtype.kind == "c" else out).astype(np.float64), exact):
            # Only the documented sums exactly: a rounded sum would test an accumulation order the spec leaves open.
            return NotApplicable(f"the documented sums do not fit {t.dtype}; the spec says nothing of overflow")
        return case

    return make


def overlaps(image, block, strides=None, pads=None, dilations=None) -> bool:
    """Whether two blocks cover one pixel (its value is then a sum)."""
    nd = len(image)
    strides, pads, dilations = strides or [1] * nd, pads or [0] * (2 * nd), dilations or [1] * nd
    hits = pixel_sources(image, block, strides, pads, dilations, block_counts(image, block, strides, pads, dilations))
    return any(len(h) > 1 for h in hits.values())


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
    return OPERATOR.expect(v, {"input": x, "image_shape": np.array([3, 3], np.int64),
                               "block_shape": np.array([3, 1], np.int64)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    'string: .*Issues with types',
    "the evaluator's Col2Im cannot run on strings (numpy arithmetic on an object array); our value is the blocks placed by the spec's rule",
)
