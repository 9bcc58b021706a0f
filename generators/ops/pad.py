"""Pad: the input padded (or, by negative pads, cropped) along each axis in constant, reflect, edge or wrap mode."""

import numpy as np

from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import data, declared, indices
from onnx_conformance.generators.spatial_family import documented, pad

OPERATOR = Operator("Pad", primary="T")

# Example 1 of the schema doc.
DOC_DATA = [[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]]


def widths(pads, rank, axes=None):
    """[x1_begin, x2_begin, ..., x1_end, x2_end, ...] over `axes` (all axes by default) -> (begin, end) per axis."""
    axes = list(range(rank)) if axes is None else [a % rank for a in axes]
    out = [(0, 0)] * rank
    for i, a in enumerate(axes):
        out[a] = (pads[i], pads[i + len(axes)])
    return out


def produced(v, t):
    """The constant the examples pad with, as the node is given it and as the output holds it:
    the documented 1.2, made once in the element type."""
    if not v.has_input("constant_value"):
        # Pad-1/2 hold `value` as a float attribute: the node's value is float32(1.2).
        return 1.2, np.array(np.float32(1.2)).astype(t.np())
    if t.dtype == "string":
        c = np.array("pad·✓", dtype=object)
    elif t.dtype == "bool":
        c = np.array(True)
    else:
        c = np.array(1.2).astype(t.np())
    return c, c


def default_constant(v, t):
    """The constant when none is given: "defaults to 0, empty string, or False" (13+), "defaults to 0" before."""
    if t.dtype == "string":
        return np.array("", dtype=object)
    if t.dtype == "bool":
        return np.array(False)
    if t.dtype == "float8e8m0":
        return None
    return np.zeros((), dtype=t.np())


def node(v, t, x, pads, mode=None, value=None, axes=None):
    """Inputs and attributes in this version's spelling: pads and value as attributes (1-10), as inputs (11+)."""
    attrs = {} if mode is None else {"mode": mode}
    if v.has_input("pads"):
        inputs = {"data": x, "pads": indices(pads), "constant_value": value}
        if v.has_input("axes"):
            inputs["axes"] = None if axes is None else indices(axes, t["Tind"])
        return inputs, attrs
    attrs["paddings" if v.has_attribute("paddings") else "pads"] = list(pads)
    if value is not None:
        attrs["value"] = value
    return {"data": x}, attrs


def skip(v, t):
    """Why an example without `axes` is not emitted for this binding, if it is not."""
    if "Tind" in t and t.suffix:
        return NotApplicable("this example gives no `axes`, so Tind plays no part in it")
    return None


def mode_example(mode):
    def example(v, t, rng):
        na = skip(v, t)
        if na:
            return na
        if mode == "wrap" and "wrap" not in (v.schema.attributes["mode"].description or ""):
            return NotApplicable(f"wrap is not a mode of Pad-{v.since_version}: "
                                 + v.schema.attributes["mode"].description)
        x = data(t, (1, 3, 3, 3), rng)
        pads = [0, 0, 1, 1, 0, 0, 1, 1]
        inputs, attrs = node(v, t, x, pads, mode)
        return Case(inputs, {"output": pad(x, widths(pads, 4), mode)}, attrs)

    return example


for _mode in ("edge", "reflect", "wrap"):
    OPERATOR.example(mode_example(_mode), name=f"{_mode}_pad")


@OPERATOR.example
def constant_pad(v, t, rng):
    na = skip(v, t)
    if na:
        return na
    x = data(t, (1, 3, 3, 3), rng)
    pads = [0, 0, 1, 3, 0, 0, 2, 4]
    value, c = produced(v, t)
    inputs, attrs = node(v, t, x, pads, "constant", value)
    return Case(inputs, {"output": pad(x, widths(pads, 4), "constant", c)}, attrs)


def axes_example(axes):
    def example(v, t, rng):
        if not v.has_input("axes"):
            return NotApplicable(f"Pad-{v.since_version} has no `axes` input (it came in version 18)")
        x = data(t, (1, 3, 3, 3), rng)
        pads = [0, 3, 0, 4]
        value, c = produced(v, t)
        inputs, attrs = node(v, t, x, pads, "constant", value, axes)
        return Case(inputs, {"output": pad(x, widths(pads, 4, axes), "constant", c)}, attrs)

    return example


OPERATOR.example(axes_example([1, 3]), name="constant_pad_axes")
OPERATOR.example(axes_example([-3, -1]), name="constant_pad_negative_axes")


@OPERATOR.example
def default_value(v, t, rng):
    """Example 1 of the doc (pads [0, 2, 0, 0]) with neither constant nor mode given: the defaults."""
    na = skip(v, t)
    if na:
        return na
    c = default_constant(v, t)
    if c is None:
        return NotApplicable("the default constant is 0 (\"defaults to 0, empty string, or False\"), "
                             "which float8e8m0 cannot represent (it has no zero)")
    x = documented(t, DOC_DATA, rng)
    pads = [0, 2, 0, 0]
    inputs, attrs = node(v, t, x, pads)
    return Case(inputs, {"output": pad(x, widths(pads, 2), "constant", c)}, attrs)


@OPERATOR.example
def negative_pads(v, t, rng):
    """Negative pads remove elements; here removal and padding on the same axis, odd element counts."""
    na = skip(v, t)
    if na:
        return na
    if v.has_attribute("paddings"):
        return NotApplicable("Pad-1's `paddings` is \"the padding element count\"; removing elements "
                             "with negative pads is stated from version 2 on (\"add or remove (if negative)\")")
    x = data(t, (3, 5), rng)
    pads = [-1, 2, 0, -3]
    value, c = produced(v, t)
    inputs, attrs = node(v, t, x, pads, "constant", value)
    return Case(inputs, {"output": pad(x, widths(pads, 2), "constant", c)}, attrs)


@OPERATOR.example
def empty(v, t, rng):
    """A zero-sized axis padded with the constant: the output is the constant alone."""
    na = skip(v, t)
    if na:
        return na
    x = data(t, (0, 3), rng)
    pads = [1, 0, 2, 0]
    value, c = produced(v, t)
    inputs, attrs = node(v, t, x, pads, "constant", value)
    return Case(inputs, {"output": pad(x, widths(pads, 2), "constant", c)}, attrs)


@OPERATOR.rejection
def axes_out_of_range(v, t, rng):
    if not v.has_input("axes"):
        return NotApplicable(f"Pad-{v.since_version} has no `axes` input (it came in version 18)")
    x = data(t, (2, 3), rng)
    inputs, attrs = node(v, t, x, [1, 1], "constant", produced(v, t)[0], [2])
    return Case(inputs, {"output": declared(t.dtype, 2)}, attrs,
                error="`axes`: Accepted range is [-r, r-1] where r = rank(data).")


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    "^negative_pads .*index can't contain negative values",
    'the evaluator pads with np.pad, which cannot crop: negative pads remove elements per the spec',
)
OPERATOR.reference_differs(
    "^default_value string: .*got '0' expected ''",
    "the evaluator pads strings with '0'; from version 13 the spec's default is the empty string",
)
