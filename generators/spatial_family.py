"""What Pad, CenterCropPad, DepthToSpace, SpaceToDepth and Col2Im share: the padding oracle, the block rearrangements
and their rules, documented data per type, cases where the spec defines a value.

Every oracle here is an index operation on the input's own elements (plus, for padding, one
constant already in the element type), so the expected output is exact in every type.
"""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import Rejected, Undefined, described

# Types whose documented (float) example data is taken as it is, cast once to the type.
FLOATS = ("float16", "bfloat16", "float", "double", "complex64", "complex128")


def documented(t, values, rng: np.random.Generator) -> np.ndarray:
    """The documented example data cast once to the type where every value survives the cast
    (or the type is a float type the doc's floats are meant for); else typed test data of that shape."""
    arr = np.array(values, dtype=np.float64)
    if t.dtype in FLOATS:
        return arr.astype(t.np())
    if t.dtype not in ("string", "bool"):
        cast = arr.astype(t.np())
        if np.array_equal(cast.astype(np.float64), arr):
            return cast
    return data(t, arr.shape, rng)


def expect_defined(operator, v, inputs: dict, attrs: dict | None = None, **fields):
    """The operator's case on these inputs, or, where the spec defines no value for them, not applicable
    with the spec's reason (the semantics' Undefined)."""
    try:
        return operator.expect(v, inputs, attrs, **fields)
    except Undefined as e:
        return NotApplicable(e.reason)


def pad(x: np.ndarray, widths, mode: str = "constant", constant=None) -> np.ndarray:
    """x padded by widths[axis] = (begin, end) per axis; a negative width removes elements (constant mode).

    `constant` is a scalar already of x's type. Reflect mirrors on the first and last values
    (so a width must stay below the dimension); wrap treats each axis as a ring.
    """
    shape = tuple(n + b + e for n, (b, e) in zip(x.shape, widths))
    if mode == "constant":
        out = np.empty(shape, dtype=x.dtype)
        out[...] = constant
        src, dst = [], []
        for n, (b, e) in zip(x.shape, widths):
            start, stop = max(0, -b), n - max(0, -e)
            if stop <= start:
                return out
            src.append(slice(start, stop))
            dst.append(slice(max(0, b), max(0, b) + stop - start))
        out[tuple(dst)] = x[tuple(src)]
        return out
    index = []
    for n, (b, e) in zip(x.shape, widths):
        s = np.arange(-b, n + e)
        if mode == "edge":
            s = np.clip(s, 0, n - 1)
        elif mode == "reflect":
            assert max(b, e) <= n - 1, "reflect beyond one mirror image"
            s = np.where(s < 0, -s, np.where(s >= n, 2 * (n - 1) - s, s))
        elif mode == "wrap":
            s = np.mod(s, n)
        else:
            raise ValueError(mode)
        index.append(s)
    return x[np.ix_(*index)]


def block_rule(v, inputs: dict, attrs: dict) -> tuple[np.ndarray, int, str]:
    """DepthToSpace's and SpaceToDepth's input, blocksize and mode, checked against what the version states:
    an input "of [N,C,H,W]", a positive blocksize, and mode DCR (the default) or CRD where the version has it."""
    x = inputs["input"]
    if x.ndim != 4:
        raise Rejected("input: " + described(v, "input"))
    bs = attrs.get("blocksize")
    if bs is None or bs < 1:
        raise Rejected("blocksize: " + described(v, "blocksize")
                       + f" (a positive block size is required; given {bs})")
    mode = attrs.get("mode", "DCR")
    if mode not in ("DCR", "CRD") or (mode != "DCR" and not v.has_attribute("mode")):
        rule = described(v, "mode") if v.has_attribute("mode") else "no mode attribute"
        raise Rejected(f"mode: {rule} (given {mode})")
    return x, bs, mode


def output_rule(v) -> str:
    """The output's description: the shape it states, the rule a block size that does not divide breaks."""
    return "output: " + described(v, "output")


def depth_to_space(x: np.ndarray, bs: int, mode: str = "DCR") -> np.ndarray:
    """The spec's reshape/transpose/reshape for DCR and CRD."""
    b, c, h, w = x.shape
    if mode == "DCR":
        tmp = x.reshape(b, bs, bs, c // bs**2, h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        tmp = x.reshape(b, c // bs**2, bs, bs, h, w).transpose(0, 1, 4, 2, 5, 3)
    return tmp.reshape(b, c // bs**2, h * bs, w * bs)


def space_to_depth(x: np.ndarray, bs: int, mode: str = "DCR") -> np.ndarray:
    """The inverse of depth_to_space in the same mode ("the reverse transformation of SpaceToDepth")."""
    b, c, h, w = x.shape
    tmp = x.reshape(b, c, h // bs, bs, w // bs, bs)
    order = (0, 3, 5, 1, 2, 4) if mode == "DCR" else (0, 1, 3, 5, 2, 4)
    return tmp.transpose(order).reshape(b, c * bs * bs, h // bs, w // bs)
