"""Convolution and pooling windows: Conv, ConvTranspose, MaxPool, AveragePool, LpPool and the global pools, over kernels, strides (larger than the kernel too), dilations, pads, auto_pad, ceil_mode, count_include_pad, storage_order and groups.

A drawn node is finished by its operator module's own case function (generators/ops/conv.py's
`case`, max_pool.py's, ...), so its tolerance is the corpus's: an accumulation over the window's
terms with this data's largest sum of magnitudes. Explicit pads are below the kernel's extent on each
side (a window wholly in the padding has no element for MaxPool or an average without the padding to
take); auto_pad and pads are never given together ('This attribute cannot be used simultaneously with
auto_pad attribute'). ConvTranspose's output_padding is below its stride or dilation ('Each padding
value in "output_padding" must be less than the corresponding stride/dilation dimension'). Tensors are
smaller than the other families' (WINDOW_ELEMENTS): the exact semantics sums every window exactly.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from onnx_conformance.harness.strategies.common import Discard, Family, Probe, element_values, tensors

WINDOW_ELEMENTS = 1024  # X's elements at most
WORK = 16384  # multiply-adds of the exact semantics, at most (about 50 ms)
KERNEL_TERMS = 64  # a window's terms (input channels per group x kernel elements) at most
SIZES = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33)  # spatial sizes: around vector widths, and primes
POOLS = ("MaxPool", "AveragePool", "LpPool")
GLOBAL = ("GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")


class Windows(Family):
    name = "convolution and pooling"
    operators = ("Conv", "ConvTranspose", *POOLS, *GLOBAL)

    def strategy(self, op, v, t):
        if op.name in GLOBAL:
            return _global(op, v, t)
        return _windowed(op, v, t)

    def case(self, op, v, t, probe):
        from importlib import import_module

        from onnx_conformance.generators.case import NotApplicable
        from onnx_conformance.generators.ops import snake

        module = import_module(f"onnx_conformance.generators.ops.{snake(op.name)}")
        make = module.convT if op.name == "ConvTranspose" else module.case
        inputs = [probe.inputs[n] for n in ("X", "W", "B") if n in probe.inputs]
        try:
            case = make(v, t, *inputs, **probe.extra)
        except OverflowError:  # conv_family.largest_sum (the tolerance's magnitude) on an infinity beside a huge value
            raise Discard("the corpus's tolerance has no magnitude for this data") from None
        except ValueError as e:  # max_pool.case asked for Indices where a window's maximum is tied
            if str(e).startswith("Indices:"):
                raise Discard(str(e)) from None
            raise
        if isinstance(case, NotApplicable):
            raise Discard(case.reason)
        return case


def _sizes(limit: int):
    return st.one_of(st.integers(1, 5), st.sampled_from([s for s in SIZES if s <= limit] or [1]))


@st.composite
def _geometry(draw, v, nd: int, kernel_room: int):
    """kernel_shape, strides, dilations and the padding (explicit pads, auto_pad, or neither) the version has."""
    kernel = []
    for _ in range(nd):
        k = draw(st.one_of(st.sampled_from([1, 2, 3]), st.integers(1, 7)).filter(lambda k: k <= max(1, kernel_room)),
                 label="kernel")
        kernel.append(k)
        kernel_room //= k
    geometry = {"kernel_shape": kernel}
    if draw(st.booleans(), label="give strides"):  # strides past the kernel too: windows that skip elements
        geometry["strides"] = [draw(st.one_of(st.sampled_from([1, 2, k + 1]), st.integers(1, 9)), label="stride")
                               for k in kernel]
    if v.has_attribute("dilations") and draw(st.booleans(), label="give dilations"):
        geometry["dilations"] = [draw(st.sampled_from([1, 2, 3]), label="dilation") for _ in range(nd)]
    padding = draw(st.sampled_from(["none", "pads", "SAME_UPPER", "SAME_LOWER", "VALID", "NOTSET"]), label="padding")
    if padding == "pads":
        sides = [st.integers(0, k - 1) for k in kernel]
        geometry["pads"] = [draw(s, label="pad begin") for s in sides] + [draw(s, label="pad end") for s in sides]
    elif padding != "none":
        geometry["auto_pad"] = padding
    return geometry


@st.composite
def _windowed(draw, op, v, t):
    nd = draw(st.sampled_from([2, 1, 3]), label="spatial rank")
    conv = op.name in ("Conv", "ConvTranspose")
    group = draw(st.sampled_from([1, 2, 3]), label="group") if conv and draw(st.booleans(), label="give group") else 1
    per_group = draw(st.integers(1, 3), label="channels per group")
    channels = group * per_group if conv else draw(st.integers(1, 4), label="channels")
    geometry = draw(_geometry(v, nd, KERNEL_TERMS // per_group if conv else KERNEL_TERMS), label="geometry")
    kernel = geometry["kernel_shape"]
    reach = [(k - 1) * d + 1 for k, d in zip(kernel, geometry.get("dilations", [1] * nd))]
    batch = draw(st.integers(1, 2), label="N")
    out_per_group = draw(st.integers(1, 3), label="output channels per group") if conv else 1
    # the exact semantics' work: each input element meets each kernel element of each output channel
    room = min(WINDOW_ELEMENTS // (batch * channels), WORK // (batch * channels * out_per_group * math.prod(kernel)))
    spatial = []
    for axis in range(nd):
        pads = geometry.get("pads", [0] * (2 * nd))
        least = 1 if conv and op.name == "ConvTranspose" else max(1, reach[axis] - pads[axis] - pads[axis + nd])
        size = max(least, draw(_sizes(max(1, room)), label="spatial size"))
        spatial.append(size)
        room = max(1, room // size)
    shape = (batch, channels, *spatial)
    # MaxPool: 'the spec does not say how NaN ranks in a maximum', so no NaN is drawn into its windows
    elements = element_values(t.dtype, nan=False) if op.name == "MaxPool" else None
    x = draw(tensors(t.dtype, shape, elements=elements), label="X")
    inputs, extra = {"X": x}, dict(geometry)
    if conv:
        w_shape = ((group * out_per_group, per_group) if op.name == "Conv" else (channels, out_per_group)) + tuple(kernel)
        inputs["W"] = draw(tensors(t.dtype, w_shape, operand=1), label="W")
        if draw(st.booleans(), label="give B"):
            inputs["B"] = draw(tensors(t.dtype, (group * out_per_group,), operand=2), label="B")
        del extra["kernel_shape"]
        extra["kernel_shape"] = draw(st.booleans(), label="give kernel_shape")  # else 'inferred from W'
        if group != 1 or draw(st.booleans(), label="give group=1"):
            extra["group"] = group
        if op.name == "ConvTranspose":
            strides = geometry.get("strides", [1] * nd)
            dilations = geometry.get("dilations", [1] * nd)
            # with auto_pad SAME_*, onnx's shape inference adds output_padding to 'input_shape[i] * strides[i]'
            # and the spec does not: its checker refuses what the semantics computes, so not drawn together
            if geometry.get("auto_pad", "NOTSET") in ("NOTSET", "VALID") and draw(st.booleans(), label="give output_padding"):
                extra["output_padding"] = [draw(st.integers(0, max(s, d) - 1), label="output_padding")
                                           for s, d in zip(strides, dilations)]
            elif draw(st.booleans(), label="give output_shape"):
                full = [s * (i - 1) + (k - 1) * d + 1 for s, i, k, d in zip(strides, spatial, kernel, dilations)]
                extra["output_shape"] = [f + draw(st.integers(0, s - 1), label="output_shape beyond")
                                         for f, s in zip(full, strides)]
                extra.pop("pads", None)
                extra.pop("auto_pad", None)
    else:
        if v.has_attribute("ceil_mode") and draw(st.booleans(), label="give ceil_mode"):
            extra["ceil_mode"] = draw(st.sampled_from([1, 0]), label="ceil_mode")
        if op.name == "AveragePool" and v.has_attribute("count_include_pad") and draw(st.booleans()):
            extra["count_include_pad"] = draw(st.sampled_from([1, 0]), label="count_include_pad")
        if op.name == "MaxPool" and len(v.schema.outputs) > 1 and draw(st.booleans(), label="ask Indices"):
            extra["argmax"] = True
            if draw(st.booleans(), label="give storage_order"):
                extra["storage_order"] = draw(st.sampled_from([1, 0]), label="storage_order")
        if op.name == "LpPool" and draw(st.booleans(), label="give p"):
            extra["p"] = draw(st.sampled_from([1, 2, 3]), label="p")
    return Probe(inputs, extra=extra)


@st.composite
def _global(draw, op, v, t):
    nd = draw(st.sampled_from([2, 1, 3, 0]), label="spatial rank")
    batch, channels = draw(st.integers(1, 2), label="N"), draw(st.integers(1, 4), label="C")
    room = WINDOW_ELEMENTS * 4 // (batch * channels)
    spatial = []
    for _ in range(nd):
        size = draw(_sizes(room), label="spatial size")
        spatial.append(size)
        room = max(1, room // size)
    elements = element_values(t.dtype, nan=False) if op.name == "GlobalMaxPool" else None
    x = draw(tensors(t.dtype, (batch, channels, *spatial), elements=elements), label="X")
    extra = {"p": draw(st.sampled_from([1, 2, 3]), label="p")} if op.name == "GlobalLpPool" and draw(st.booleans()) else {}
    return Probe({"X": x}, extra=extra)
