"""Pad: the input padded (or, by negative pads, cropped) along each axis in constant, reflect, edge or wrap mode."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator, type_of
from onnx_conformance.generators.movement import data, declared, indices, ints_of
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, described, rule
from onnx_conformance.generators.spatial_family import documented, expect_defined, pad

OPERATOR = Operator("Pad", primary="T")

# Example 1 of the schema doc.
DOC_DATA = [[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]]
AXES_RULE = "`axes`: Accepted range is [-r, r-1] where r = rank(data)."


@OPERATOR.semantics
def pad_semantics(v, attrs, inputs):
    """x padded by pads[i] before and pads[i + num_axes] after axis axes[i] (all axes by default), a
    negative pad removing elements (from version 2); in `mode` constant (with `value` / `constant_value`,
    by default 0, "empty string, or False"), reflect, edge or (from version 19) wrap."""
    x = inputs["data"]
    mode = attr(attrs, "mode", "constant")
    if mode not in _modes(v):
        raise Rejected("mode: " + described(v, "mode"))
    if v.has_input("pads"):
        pads, constant = ints_of(inputs["pads"]), inputs.get("constant_value")
    else:
        pads = attrs.get("paddings" if v.has_attribute("paddings") else "pads")
        constant = np.array(np.float32(attr(attrs, "value", 0.0))).astype(x.dtype)  # a float attribute, cast to T
    if inputs.get("axes") is None:
        axes = list(range(x.ndim))
    else:
        axes = ints_of(inputs["axes"])
        if any(not -x.ndim <= a < x.ndim for a in axes):
            raise Rejected(AXES_RULE)
        axes = [a % x.ndim for a in axes]
        if len(set(axes)) != len(axes):
            raise Undefined("axes: Behavior is undefined if an axis is repeated.")
    if pads is None or len(pads) != 2 * len(axes):
        name = "paddings" if v.has_attribute("paddings") else "pads"
        raise Rejected(rule(v, r"rank should be double|of shape \[2 \*", name))
    if v.has_attribute("paddings") and min(pads) < 0:
        raise Undefined("Pad-1's `paddings` is \"the padding element count\": it states no removal")
    widths = widths_of(pads, x.ndim, axes)
    if any(n + b + e < 0 for n, (b, e) in zip(x.shape, widths)):
        raise Undefined("pads remove more elements than the axis has: the spec gives no shape")
    if mode == "constant":
        return {"output": pad(x, widths, "constant", _constant(v, x, constant, widths))}
    for n, (b, e) in zip(x.shape, widths):
        if (b > 0 or e > 0) and n == 0:
            raise Undefined(f"{mode} padding of an empty axis: there is no value to repeat")
        if mode == "reflect" and max(b, e) > n - 1:
            raise Undefined("reflect mode mirrors \"on the first and last values of the vector\": "
                            "a pad as wide as the axis goes beyond one mirror image, which the spec does not define")
        if mode in ("reflect", "wrap") and min(b, e) < 0 < max(b, e):
            raise Undefined(f"{mode} padding on an axis also cropped: the spec does not say whether the "
                            "vector mirrored or wrapped is the input's or the cropped one")
    return {"output": pad(x, widths, mode)}


def _modes(v) -> tuple:
    """The modes the version's `mode` description lists (wrap from version 19)."""
    return ("constant", "reflect", "edge", "wrap") if "wrap" in v.schema.attributes["mode"].description \
        else ("constant", "reflect", "edge")


def _constant(v, x, given, widths):
    """The padding value in x's type: the one given, else "0, empty string, or False"."""
    if given is not None:
        c = np.asarray(given)
        if c.size != 1:
            raise Rejected("constant_value: " + described(v, "constant_value"))
        return c.reshape(())
    if x.dtype == object:
        return np.array("", dtype=object)
    if x.dtype == bool:
        return np.array(False)
    if type_of(x) == "float8e8m0" and any(b > 0 or e > 0 for b, e in widths):
        raise Undefined("the default constant is 0 (\"defaults to 0, empty string, or False\"), "
                        "which float8e8m0 cannot represent (it has no zero)")
    return np.zeros((), dtype=x.dtype)


def widths_of(pads, rank, axes=None):
    """[x1_begin, x2_begin, ..., x1_end, x2_end, ...] over `axes` (all axes by default) -> (begin, end) per axis."""
    axes = list(range(rank)) if axes is None else [a % rank for a in axes]
    out = [(0, 0)] * rank
    for i, a in enumerate(axes):
        out[a] = (pads[i], pads[i + len(axes)])
    return out


def produced(v, t):
    """The constant the examples pad with, as the node is given it: the documented 1.2 (Pad-1/2: a float
    attribute, float32(1.2) in the node), made once in the element type from version 11."""
    if not v.has_input("constant_value"):
        return 1.2
    if t.dtype == "string":
        return np.array("pad·✓", dtype=object)
    if t.dtype == "bool":
        return np.array(True)
    return np.array(1.2).astype(t.np())


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
        return OPERATOR.expect(v, *node(v, t, x, pads, mode))

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
    return OPERATOR.expect(v, *node(v, t, x, pads, "constant", produced(v, t)))


def axes_example(axes):
    def example(v, t, rng):
        if not v.has_input("axes"):
            return NotApplicable(f"Pad-{v.since_version} has no `axes` input (it came in version 18)")
        x = data(t, (1, 3, 3, 3), rng)
        pads = [0, 3, 0, 4]
        return OPERATOR.expect(v, *node(v, t, x, pads, "constant", produced(v, t), axes))

    return example


OPERATOR.example(axes_example([1, 3]), name="constant_pad_axes")
OPERATOR.example(axes_example([-3, -1]), name="constant_pad_negative_axes")


@OPERATOR.example
def default_value(v, t, rng):
    """Example 1 of the doc (pads [0, 2, 0, 0]) with neither constant nor mode given: the defaults."""
    na = skip(v, t)
    if na:
        return na
    x = documented(t, DOC_DATA, rng)
    return expect_defined(OPERATOR, v, *node(v, t, x, [0, 2, 0, 0]))


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
    return OPERATOR.expect(v, *node(v, t, x, pads, "constant", produced(v, t)))


@OPERATOR.example
def empty(v, t, rng):
    """A zero-sized axis padded with the constant: the output is the constant alone."""
    na = skip(v, t)
    if na:
        return na
    x = data(t, (0, 3), rng)
    pads = [1, 0, 2, 0]
    return OPERATOR.expect(v, *node(v, t, x, pads, "constant", produced(v, t)))


@OPERATOR.rejection
def axes_out_of_range(v, t, rng):
    if not v.has_input("axes"):
        return NotApplicable(f"Pad-{v.since_version} has no `axes` input (it came in version 18)")
    x = data(t, (2, 3), rng)
    inputs, attrs = node(v, t, x, [1, 1], "constant", produced(v, t), [2])
    return OPERATOR.reject(v, inputs, attrs, {"output": declared(t.dtype, 2)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    "^negative_pads .*index can't contain negative values",
    'the evaluator pads with np.pad, which cannot crop: negative pads remove elements per the spec',
)
OPERATOR.reference_differs(
    "^default_value string: .*got '0' expected ''",
    "the evaluator pads strings with '0'; from version 13 the spec's default is the empty string",
)
