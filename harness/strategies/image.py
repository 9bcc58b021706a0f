"""Image operators: GridSample, AffineGrid, NonMaxSuppression, RoiAlign, MaxRoiPool, MaxUnpool, Col2Im, CenterCropPad, DeformConv and CausalConvWithState, over the modes, paddings and attributes each version lists.

A drawn node is finished by its operator module's own case function where it has one (grid_sample's
`sample`, roi_align's, deform_conv's `deform`, ...), so its tolerance is the corpus's. Coordinates
(grids, RoIs, offsets, boxes) are drawn in quarters and eighths, inside the image and past its edges,
and as any float: the semantics is exact in Fractions, so half-way points are decided by the spec's
words (or discarded where the spec leaves them open: MaxRoiPool's rounding of a half-way corner).
NonMaxSuppression's scores are distinct ('the spec names no order' among equal scores); MaxUnpool's
indices are those a MaxPool would return (each in its window), so two never name one position with
different values unless windows overlap.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators import values
from onnx_conformance.harness.dtypes import numpy_of
from onnx_conformance.harness.strategies.common import Discard, Family, Probe, element_values, tensors

WORK = 4096  # output elements x terms (taps, kernel elements, samples) of the exact semantics, at most
SIZES = (1, 2, 3, 4, 5, 7, 8, 9, 16, 17)  # spatial sizes: around vector widths, and primes


class Image(Family):
    name = "image"
    operators = ("GridSample", "AffineGrid", "NonMaxSuppression", "RoiAlign", "MaxRoiPool", "MaxUnpool", "Col2Im",
                 "CenterCropPad", "DeformConv", "CausalConvWithState")

    def strategy(self, op, v, t):
        return DRAWS[op.name](op, v, t)

    def case(self, op, v, t, probe):
        from importlib import import_module

        from onnx_conformance.generators.case import NotApplicable
        from onnx_conformance.generators.ops import snake

        if "costly" in probe.extra:
            raise Discard(probe.extra["costly"])
        module = import_module(f"onnx_conformance.generators.ops.{snake(op.name)}")
        make = {"GridSample": "sample", "DeformConv": "deform", "CausalConvWithState": "causal"}.get(op.name, "case")
        # no case function: the semantics as is (causal_conv_with_state.causal's tolerance has no magnitude
        # for an empty input: conv_family.convolve refuses an empty output)
        if op.name in ("NonMaxSuppression", "Col2Im", "CenterCropPad") or (
                op.name == "CausalConvWithState" and probe.inputs["input"].size == 0):
            attrs = {k: a for k, a in probe.attrs.items() if a is not None}
            case = super().case(op, v, t, Probe(probe.inputs, attrs))
        else:
            try:
                case = getattr(module, make)(v, t, *probe.inputs.values(), **probe.attrs)
            except OverflowError:  # conv_family's magnitude (the tolerance's) on an infinity beside a huge value
                raise Discard("the corpus's tolerance has no magnitude for this data") from None
        if isinstance(case, NotApplicable):
            raise Discard(case.reason)
        return case


def _sizes(limit: int):
    return st.one_of(st.integers(1, 4), st.sampled_from([s for s in SIZES if s <= max(1, limit)]))


def _spatial(draw, nd: int, room: int, label="spatial size", least: int = 1):
    out = []
    for _ in range(nd):
        d = max(least, draw(_sizes(room), label=label))
        out.append(d)
        room = max(1, room // d)
    return out


def _costly(work: int) -> Probe | None:
    """A probe `case` discards: the exact semantics' work is past WORK."""
    if work <= WORK:
        return None
    return Probe({}, extra={"costly": f"{work} terms of exact arithmetic is past what the semantics answers quickly"})


def _coords(draw, shape, type_name: str, low: float, high: float, label: str):
    """Coordinates in eighths between low and high (a half-way and a whole point land exactly), some any
    float32 there."""
    n = math.prod(shape)
    steps = st.integers(int(low * 8), int(high * 8)).map(lambda k: k / 8)
    xs = draw(st.lists(st.one_of(steps, st.floats(low, high, width=32)), min_size=n, max_size=n), label=label)
    return np.array(xs, np.float64).reshape(shape).astype(numpy_of(type_name))


def _float_type(t, name="T1") -> bool:
    return values.is_float(t[name] if name in t else t.dtype)


# ---------------------------------------------------------------------------------------------


@st.composite
def _grid_sample(draw, op, v, t):
    modes = ["bilinear", "nearest", "bicubic"] if v.since_version < 20 else ["linear", "nearest", "cubic"]
    if not _float_type(t):
        modes = ["nearest"]  # 'the spec does not say how an interpolated value is rounded' to another type
    mode = draw(st.sampled_from(modes), label="mode")
    nd = 2 if v.since_version < 20 else draw(st.sampled_from([2, 3, 1]), label="spatial rank")
    n, c = draw(st.integers(1, 2), label="N"), draw(st.integers(1, 3), label="C")
    spatial = _spatial(draw, nd, 256 // (n * c))
    out = _spatial(draw, nd, 64, "output size")
    taps = {"nearest": 1, "linear": 2, "bilinear": 2}.get(mode, 4) ** nd
    # each tap's index through the padding_mode and its weight, in Fractions, three times a draw (the
    # case's tolerance, the expected Y, the exact backend): a quarter of WORK
    costly = _costly(4 * n * c * math.prod(out) * taps)
    if costly:
        return costly
    x = draw(tensors(t["T1"], (n, c, *spatial)), label="X")
    # past [-1, 1] too: the padding_mode decides there (reflection folds a far coordinate many times)
    grid = _coords(draw, (n, *out, nd), t["T2"], -3.0, 3.0, "grid")
    attrs = {"doc": False, "grid_ok": True}
    if mode != modes[0] or draw(st.booleans(), label="give mode"):
        attrs["mode"] = {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode)  # sample() spells it by version
    if draw(st.booleans(), label="give padding_mode"):
        attrs["padding_mode"] = draw(st.sampled_from(["zeros", "border", "reflection"]), label="padding_mode")
    if draw(st.booleans(), label="give align_corners"):
        attrs["align_corners"] = draw(st.sampled_from([1, 0]), label="align_corners")
    return Probe({"X": x, "grid": grid}, attrs)


@st.composite
def _affine_grid(draw, op, v, t):
    nd = draw(st.sampled_from([2, 3]), label="spatial rank")
    n = draw(st.integers(0, 3), label="N")
    spatial = [draw(st.one_of(st.integers(1, 4), st.sampled_from([0, 5, 7, 8, 9, 16, 17])), label="size")
               for _ in range(nd)]
    costly = _costly(n * math.prod(spatial) * nd * (nd + 1))
    if costly:
        return costly
    theta = draw(tensors(t.dtype, (n, nd, nd + 1)), label="theta")
    size = [n, draw(st.integers(1, 3), label="C"), *spatial]
    return Probe({"theta": theta, "size": size}, {"align_corners": draw(st.sampled_from([0, 1]), label="align_corners")})


@st.composite
def _non_max_suppression(draw, op, v, t):
    batches, classes = draw(st.integers(1, 2), label="batches"), draw(st.integers(1, 3), label="classes")
    boxes_n = draw(st.one_of(st.integers(0, 6), st.sampled_from([9, 16, 17, 31, 32])), label="boxes")
    if batches * classes * boxes_n ** 2 > WORK:  # each pair's IoU in Fractions, per batch and class
        return Probe({}, extra={"costly": f"{batches * classes} x {boxes_n}^2 exact IoUs is past what the semantics "
                                          "answers quickly"})
    center = draw(st.sampled_from([None, 0, 1]), label="center_point_box")
    if center:  # [x_center, y_center, width, height]: widths and heights not negative
        xy = _coords(draw, (batches, boxes_n, 2), "float", -2.0, 4.0, "centres")
        wh = _coords(draw, (batches, boxes_n, 2), "float", 0.0, 3.0, "extents")
        boxes = np.concatenate([xy, wh], axis=2)
    else:  # '[y1, x1, y2, x2] ... any diagonal pair of box corners': flipped corners too
        boxes = _coords(draw, (batches, boxes_n, 4), "float", -2.0, 4.0, "corners")
    # distinct scores per class: the spec names no order among equal ones
    scores = np.empty((batches, classes, boxes_n), np.float32)
    for b in range(batches):
        for c in range(classes):
            order = draw(st.permutations(range(boxes_n)), label="score order")
            scores[b, c] = (np.array(order, np.float64) + 1) / (boxes_n + 1)
    inputs = {"boxes": boxes, "scores": scores}
    limit = draw(st.sampled_from(["absent", 0, 1, 2, 3, 100, 2 ** 31 - 1, 2 ** 40]), label="max_output_boxes_per_class")
    if limit != "absent":
        inputs["max_output_boxes_per_class"] = np.array([limit] if draw(st.booleans()) else limit, np.int64)
    if draw(st.booleans(), label="give iou_threshold"):
        iou = draw(st.one_of(st.sampled_from([0.0, 0.5, 1.0, 0.25]), st.floats(0, 1, width=32)), label="iou_threshold")
        inputs.setdefault("max_output_boxes_per_class", None)
        inputs["iou_threshold"] = np.array([iou], np.float32)
    if draw(st.booleans(), label="give score_threshold"):
        score = draw(st.one_of(st.sampled_from([0.0, 0.5, -1.0, 1.0]), st.floats(-1, 2, width=32)), label="score_threshold")
        inputs.setdefault("max_output_boxes_per_class", None)
        inputs.setdefault("iou_threshold", None)
        inputs["score_threshold"] = np.array([score], np.float32)
    attrs = {} if center is None else {"center_point_box": center}
    return Probe(inputs, attrs)


@st.composite
def _roi_align(draw, op, v, t):
    n, c = draw(st.integers(1, 2), label="N"), draw(st.integers(1, 2), label="C")
    h, w = _spatial(draw, 2, 64)
    rois_n = draw(st.integers(0, 3), label="RoIs")
    attrs = {}
    for name, choices in (("output_height", st.integers(1, 4)), ("output_width", st.integers(1, 4)),
                          ("sampling_ratio", st.sampled_from([0, 1, 2, 3])),
                          ("spatial_scale", st.sampled_from([1.0, 0.5, 0.25, 2.0, 0.0625])),
                          ("mode", st.sampled_from(["avg", "max"]))):
        if draw(st.booleans(), label=f"give {name}"):
            attrs[name] = draw(choices, label=name)
    if v.has_attribute("coordinate_transformation_mode") and draw(st.booleans(), label="give ctm"):
        attrs["coordinate_transformation_mode"] = draw(st.sampled_from(["half_pixel", "output_half_pixel"]))
    scale = attrs.get("spatial_scale", 1.0)
    # [x1, y1, x2, y2] in the input's coordinates before spatial_scale: inside the map, and past its edges
    corners = _coords(draw, (rois_n, 4), t.dtype, -2.0 / scale, (max(h, w) + 2) / scale, "rois")
    lo, hi = np.minimum(corners[:, :2], corners[:, 2:]), np.maximum(corners[:, :2], corners[:, 2:])
    rois = np.concatenate([lo, hi], axis=1)
    extent = float(np.max(hi - lo, initial=1.0)) * scale
    bins = attrs.get("output_height", 1) * attrs.get("output_width", 1)
    grid = attrs.get("sampling_ratio", 0) or math.ceil(max(extent, 1))  # adaptive: ceil(roi size / output size)
    costly = _costly(rois_n * c * bins * grid * grid * 4)
    if costly:
        return costly
    elements = element_values(t.dtype, nan=False) if attrs.get("mode") == "max" else None
    x = draw(tensors(t.dtype, (n, c, h, w), elements=elements), label="X")
    batch = np.array([draw(st.integers(0, n - 1), label="batch index") for _ in range(rois_n)], np.int64)
    return Probe({"X": x, "rois": rois, "batch": batch}, attrs)


@st.composite
def _max_roi_pool(draw, op, v, t):
    n, c = draw(st.integers(1, 2), label="N"), draw(st.integers(1, 3), label="C")
    h, w = _spatial(draw, 2, 256)
    pooled = [draw(st.integers(1, 4), label="pooled height"), draw(st.integers(1, 4), label="pooled width")]
    scale = draw(st.sampled_from([None, 1.0, 0.5, 0.25, 2.0, 0.0625]), label="spatial_scale")
    s = scale or 1.0
    rois = []
    for _ in range(draw(st.integers(0, 3), label="RoIs")):
        # '[batch_id, x1, y1, x2, y2]': whole pixels after the scale, inside the map and past its edges
        xs = sorted(draw(st.integers(-2, w + 2), label="x") for _ in range(2))
        ys = sorted(draw(st.integers(-2, h + 2), label="y") for _ in range(2))
        rois.append([draw(st.integers(0, n - 1), label="batch_id"), xs[0] / s, ys[0] / s, xs[1] / s, ys[1] / s])
    # 'the spec does not say how NaN ranks in a maximum' (as windows.py's MaxPool)
    x = draw(tensors(t.dtype, (n, c, h, w), elements=element_values(t.dtype, nan=False)), label="X")
    attrs = {"pooled_shape": pooled}
    if scale is not None:
        attrs["spatial_scale"] = scale
    return Probe({"X": x, "rois": np.array(rois, np.float64).reshape(-1, 5)}, attrs)


@st.composite
def _max_unpool(draw, op, v, t):
    nd = draw(st.sampled_from([2, 1, 3]), label="spatial rank")
    n, c = draw(st.integers(1, 2), label="N"), draw(st.integers(1, 3), label="C")
    kernel = [draw(st.integers(1, 3), label="kernel") for _ in range(nd)]
    strides = [draw(st.sampled_from([1, 2, 3]), label="stride") for _ in range(nd)] if draw(st.booleans()) else None
    pads = None
    if draw(st.booleans(), label="give pads"):
        pads = [draw(st.integers(0, k - 1), label="pad") for k in kernel] + [draw(st.integers(0, k - 1)) for k in kernel]
    spatial = _spatial(draw, nd, 128 // (n * c))
    s = strides or [1] * nd
    p = pads or [0] * (2 * nd)
    default = [(i - 1) * st_ + k - p[a] - p[a + nd] for a, (i, st_, k) in enumerate(zip(spatial, s, kernel))]
    out = list(default)
    if draw(st.booleans(), label="give output_shape"):  # larger than the default: 'to resolve ambiguity'
        out = [d + draw(st.integers(0, max(0, st_ - 1)), label="beyond") for d, st_ in zip(default, s)]
    if min(out) < 1:
        return Probe({}, extra={"costly": "the pads leave no output (a MaxPool of this input would have none)"})
    x = draw(tensors(t.dtype, (n, c, *spatial)), label="X")
    # each element's index in its pooling window (clipped to the output), flat over the whole output tensor
    # where windows overlap, a position two windows name holds one maximum: the later element takes its value
    index, placed = np.empty(x.shape, np.int64), {}
    for at in np.ndindex(*x.shape):
        pos = []
        for a in range(nd):
            begin = at[2 + a] * s[a] - p[a]
            lo_, hi_ = max(begin, 0), min(begin + kernel[a], out[a]) - 1
            pos.append(draw(st.integers(min(lo_, hi_), hi_), label="window position") if hi_ >= 0 else 0)
        index[at] = np.ravel_multi_index((at[0], at[1], *pos), (n, c, *out))
        if int(index[at]) in placed:
            x[at] = x[placed[int(index[at])]]
        placed.setdefault(int(index[at]), at)
    attrs = {"kernel_shape": kernel, "strides": strides, "pads": pads}
    if out != default or draw(st.booleans(), label="give output_shape anyway"):
        attrs["output_shape"] = [n, c, *out]
        attrs["const_shape"] = draw(st.booleans(), label="output_shape an initializer")
    return Probe({"X": x, "I": index}, attrs)


@st.composite
def _col2im(draw, op, v, t):
    nd = draw(st.sampled_from([2, 3]), label="spatial rank")
    image = _spatial(draw, nd, 48, "image size")
    block = [draw(st.integers(1, max(1, min(i, 3))), label="block size") for i in image]
    attrs = {}
    if draw(st.booleans(), label="give strides"):
        attrs["strides"] = [draw(st.integers(1, 3), label="stride") for _ in range(nd)]
    if draw(st.booleans(), label="give dilations"):
        attrs["dilations"] = [draw(st.integers(1, 2), label="dilation") for _ in range(nd)]
    if draw(st.booleans(), label="give pads"):
        attrs["pads"] = [draw(st.integers(0, 2), label="pad") for _ in range(2 * nd)]
    from onnx_conformance.generators.ops.col2im import block_counts

    counts = block_counts(image, block, attrs.get("strides", [1] * nd), attrs.get("pads", [0] * (2 * nd)),
                          attrs.get("dilations", [1] * nd))
    n, c = draw(st.integers(1, 2), label="N"), draw(st.integers(1, 3), label="C")
    costly = _costly(2 * n * c * math.prod(block) * math.prod(counts))  # each placed in Python, overlaps in Fractions
    if costly:
        return costly
    x = draw(tensors(t.dtype, (n, c * math.prod(block), math.prod(counts))), label="input")
    return Probe({"input": x, "image_shape": np.array(image, np.int64), "block_shape": np.array(block, np.int64)}, attrs)


@st.composite
def _center_crop_pad(draw, op, v, t):
    rank = draw(st.integers(1, 4), label="rank")
    shape = _spatial(draw, rank, 512, "dim")
    if draw(st.booleans(), label="an empty dim"):
        shape[draw(st.integers(0, rank - 1))] = 0
    attrs = {}
    axes = list(range(rank))
    if draw(st.booleans(), label="give axes"):
        axes = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True), label="axes")
        attrs["axes"] = [a - rank if draw(st.booleans(), label="negative axis") else a for a in axes]
    # crop (smaller), pad (larger, 'The padding value used is zero') or keep, each axis its own
    sizes = [draw(st.one_of(st.integers(0, shape[a] + 3), st.sampled_from([0, 2 * shape[a] + 1])), label="size")
             for a in axes]
    if math.prod(max(s, 1) for s in sizes) * math.prod(max(shape[a], 1) for a in range(rank) if a not in axes) > 4096:
        return Probe({}, extra={"costly": "the output is past what a draw holds"})
    x = draw(tensors(t.dtype, tuple(shape)), label="input_data")
    return Probe({"input_data": x, "shape": np.array(sizes, numpy_of(t["Tind"]))}, attrs)


@st.composite
def _deform_conv(draw, op, v, t):
    nd = draw(st.sampled_from([2, 1]), label="spatial rank")
    group = draw(st.sampled_from([1, 2]), label="group")
    offset_group = draw(st.sampled_from([1, 2]), label="offset_group")
    per_group = draw(st.integers(1, 2), label="channels per group") * (2 if offset_group == 2 and group == 1 else 1)
    c = group * per_group
    if c % offset_group:
        offset_group = 1
    oc = group * draw(st.integers(1, 2), label="output channels per group")
    kernel = [draw(st.integers(1, 3), label="kernel") for _ in range(nd)]
    strides = [draw(st.sampled_from([1, 2, 3]), label="stride") for _ in range(nd)] if draw(st.booleans()) else None
    dilations = [draw(st.sampled_from([1, 2]), label="dilation") for _ in range(nd)] if draw(st.booleans()) else None
    pads = [draw(st.integers(0, 2), label="pad") for _ in range(2 * nd)] if draw(st.booleans()) else None
    n = draw(st.integers(1, 2), label="N")
    s, d, p = strides or [1] * nd, dilations or [1] * nd, pads or [0] * (2 * nd)
    spatial = [max(draw(_sizes(16), label="spatial size"), (k - 1) * dd + 1 - p[a] - p[a + nd])
               for a, (k, dd) in enumerate(zip(kernel, d))]
    out = [(i + p[a] + p[a + nd] - ((k - 1) * dd + 1)) // ss + 1
           for a, (i, k, dd, ss) in enumerate(zip(spatial, kernel, d, s))]
    kn = math.prod(kernel)
    costly = _costly(2 * n * oc * math.prod(out) * per_group * kn * 2 ** nd)  # the magnitude's pass too
    if costly:
        return costly
    x = draw(tensors(t.dtype, (n, c, *spatial)), label="X")
    w = draw(tensors(t.dtype, (oc, per_group, *kernel), operand=1), label="W")
    # offsets in quarters within +-2 pixels (between pixels, on them, and past the edge), some any float
    offset = _coords(draw, (n, offset_group * kn * nd, *out), t.dtype, -2.0, 2.0, "offset")
    b = draw(tensors(t.dtype, (oc,), operand=2), label="B") if draw(st.booleans(), label="give B") else None
    mask = None
    if draw(st.booleans(), label="give mask"):
        mask = _coords(draw, (n, offset_group * kn, *out), t.dtype, 0.0, 1.0, "mask")
    attrs = {"kernel_shape": draw(st.booleans(), label="give kernel_shape"), "strides": strides, "pads": pads,
             "dilations": dilations}
    if group != 1 or draw(st.booleans()):
        attrs["group"] = group
    if offset_group != 1 or draw(st.booleans()):
        attrs["offset_group"] = offset_group
    return Probe({"X": x, "W": w, "offset": offset, "B": b, "mask": mask}, attrs)


@st.composite
def _causal_conv(draw, op, v, t):
    batch, channels = draw(st.integers(1, 2), label="batch"), draw(st.integers(1, 4), label="channels")
    k = draw(st.one_of(st.integers(1, 4), st.sampled_from([5, 7, 8])), label="k")
    length = draw(st.one_of(st.integers(1, 4), st.sampled_from([0, 7, 8, 9, 16, 17, 31, 32, 33])), label="length")
    activation = draw(st.sampled_from([None, "none", "silu", "swish"]), label="activation")
    costly = _costly(2 * batch * channels * length * k * (8 if activation in ("silu", "swish") else 1))
    if costly:
        return costly
    x = draw(tensors(t.dtype, (batch, channels, length)), label="input")
    w = draw(tensors(t.dtype, (channels, 1, k), operand=1), label="weight")
    b = draw(tensors(t.dtype, (channels,), operand=2), label="bias") if draw(st.booleans(), label="give bias") else None
    past = draw(tensors(t.dtype, (batch, channels, k - 1), operand=3), label="past_state") if draw(st.booleans()) else None
    return Probe({"input": x, "weight": w, "bias": b, "past_state": past}, {"activation": activation})


DRAWS = {"GridSample": _grid_sample, "AffineGrid": _affine_grid, "NonMaxSuppression": _non_max_suppression,
         "RoiAlign": _roi_align, "MaxRoiPool": _max_roi_pool, "MaxUnpool": _max_unpool, "Col2Im": _col2im,
         "CenterCropPad": _center_crop_pad, "DeformConv": _deform_conv, "CausalConvWithState": _causal_conv}
