"""Mutants of the shape and layout operators: negative axes against the wrong rank, pads in another
framework's order, modes swapped or defaulted wrongly, windows rounded the other way, and edges."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import (
    Mutant, default, empty_raises, ignored, rank0_as_rank1, result, with_attributes, with_inputs,
)

FAMILY = "Shape and layout"


def _interleaved(p) -> np.ndarray:
    """Pads written [x1_begin, x1_end, x2_begin, x2_end, ...] (PyTorch's and TensorFlow's order) read as
    ONNX's [x1_begin, x2_begin, ..., x1_end, x2_end, ...]: what the correct operator must be handed to
    do what the mutant does."""
    p = np.asarray(p)
    return np.concatenate([p[0::2], p[1::2]]).astype(p.dtype)


# --- CenterCropPad ------------------------------------------------------------------------------

def _center_crop_pad(crop_start, pad_begin):
    def wrong(call, data, shape, **attrs):
        axes = attrs.get("axes")
        axes = range(data.ndim) if axes is None else [int(a) % data.ndim for a in axes]
        out = data
        for a, size in zip(axes, (int(s) for s in shape)):
            dim = out.shape[a]
            if dim > size:
                start = crop_start(dim - size)
                out = np.take(out, np.arange(start, start + size), axis=a)
            elif dim < size:
                widths = [(0, 0)] * out.ndim
                begin = pad_begin(size - dim)
                widths[a] = (begin, size - dim - begin)
                out = np.pad(out, widths)
        return (out,)
    return wrong


# --- Pad ----------------------------------------------------------------------------------------

def _pads_key(call) -> str:
    return "paddings" if call.since < 2 else "pads"


def _pad_interleaved(call, data, *rest, **attrs):
    if call.since >= 11:
        rest = (_interleaved(rest[0]),) + rest[1:]
    else:
        attrs = {**attrs, _pads_key(call): [int(v) for v in _interleaved(attrs[_pads_key(call)])]}
    return call.run(data, *rest, **attrs)


def _pad_symmetric(call, data, *rest, **attrs):
    """mode 'reflect' done as numpy's 'symmetric': the edge value repeated in the reflection."""
    if attrs.get("mode") != "reflect":
        return call.run(data, *rest, **attrs)
    pads = np.asarray(rest[0] if call.since >= 11 else attrs[_pads_key(call)]).reshape(-1).tolist()
    axes = rest[2] if call.since >= 18 and len(rest) > 2 and rest[2] is not None else None
    n = len(pads) // 2
    axes = range(data.ndim) if axes is None else [int(a) % data.ndim for a in np.asarray(axes).reshape(-1)]
    widths = [(0, 0)] * data.ndim
    for i, a in enumerate(axes):
        widths[a] = (int(pads[i]), int(pads[i + n]))
    if any(b < 0 or e < 0 for b, e in widths):
        return call.run(data, *rest, **attrs)
    return (np.pad(data, widths, mode="symmetric"),)


def _pad_constant_ignored(call, data, *rest, **attrs):
    if call.since >= 11:
        rest = tuple(None if k == 1 else r for k, r in enumerate(rest))
    elif call.given("value"):
        attrs = {**attrs, "value": 0.0}
    return call.run(data, *rest, **attrs)


def _pad_negative_axes_clamped(call, data, *rest, **attrs):
    if len(rest) > 2 and rest[2] is not None:
        rest = rest[:2] + (np.where(rest[2] < 0, 0, rest[2]).astype(rest[2].dtype),) + rest[3:]
    return call.run(data, *rest, **attrs)


# --- Reshape, Shape, Size -----------------------------------------------------------------------

def _reshape_zero_literal(call, data, shape, **attrs):
    """A 0 in the shape taken literally (numpy's reading) although allowzero is 0."""
    if attrs.get("allowzero") or not (np.asarray(shape) == 0).any():
        return call.run(data, shape, **attrs)
    return (data.reshape(tuple(int(s) for s in shape)),)


def _shape_unclamped(call, data, **attrs):
    """start and end made non-negative but not clamped to [0, r]: reading past the shape fails."""
    r = data.ndim
    for key in ("start", "end"):
        v = attrs.get(key)
        if v is not None:
            v = v + r if v < 0 else v
            if v < 0 or v > r:
                raise IndexError(f"Shape {key}={attrs[key]} outside [0, {r}] for rank {r}")
    return call.run(data, **attrs)


# --- Slice --------------------------------------------------------------------------------------

def _slice_by_spec(end_floor_negative: int):
    """Slice as its doc computes it, with ends clamped to [end_floor_negative, dim - 1] for negative steps
    (the doc says -1; a kernel that clamps at 0 never reaches index 0 going backwards)."""
    def wrong(call, data, starts, ends, axes=None, steps=None, **attrs):
        starts, ends = np.asarray(starts).reshape(-1), np.asarray(ends).reshape(-1)
        axes = range(len(starts)) if axes is None else np.asarray(axes).reshape(-1)
        steps = [1] * len(starts) if steps is None else np.asarray(steps).reshape(-1)
        out = data
        for s, e, a, st in zip(starts.tolist(), ends.tolist(), list(axes), list(steps)):
            a, st = int(a) + (data.ndim if int(a) < 0 else 0), int(st)
            dim = data.shape[a]
            s, e = s + dim if s < 0 else s, e + dim if e < 0 else e
            if st > 0:
                s, e = min(max(s, 0), dim), min(max(e, 0), dim)
            else:
                s, e = min(max(s, 0), dim - 1), min(max(e, end_floor_negative), dim - 1)
            out = np.take(out, np.arange(s, e, st, dtype=np.int64), axis=a)
        return (out,)
    return wrong


def _slice_wrong_floor(call, data, *rest, **attrs):
    steps = rest[3] if len(rest) > 3 and rest[3] is not None else None
    if steps is None or not (np.asarray(steps) < 0).any():
        return call.run(data, *rest, **attrs)
    return _slice_by_spec(0)(call, data, *rest, **attrs)


def _int32_indices(call, data, starts, ends, *rest, **attrs):
    """starts and ends read as int32: INT64_MAX wraps to -1 and INT64_MIN to 0."""
    def narrow(v):
        return v.astype(np.int32).astype(v.dtype) if v.dtype == np.int64 else v
    return call.run(data, narrow(starts), narrow(ends), *rest, **attrs)


# --- Space/Depth, Split, Squeeze, Unsqueeze, Transpose, Trilu -----------------------------------

def _space_to_depth_swapped(call, data, **attrs):
    """DCR with the block's row and column swapped: the depth order is column-major within a block."""
    if attrs.get("mode", "DCR") == "CRD":
        return call.run(data, **attrs)
    b, c, h, w = data.shape
    bs = int(attrs["blocksize"])
    tmp = data.reshape(b, c, h // bs, bs, w // bs, bs).transpose(0, 5, 3, 1, 2, 4)
    return (tmp.reshape(b, c * bs * bs, h // bs, w // bs),)


def _split_array_split(call, data, *rest, **attrs):
    """num_outputs not dividing the axis split as numpy.array_split does: the first chunks one larger."""
    n = attrs.get("num_outputs")
    if not n or (rest and rest[0] is not None):
        return call.run(data, *rest, **attrs)
    axis = int(attrs.get("axis") or 0)
    return tuple(np.array_split(data, int(n), axis=axis))


def _axis_clamped(name):
    def attrs_(call, a):
        if a.get(name) is not None and a[name] < 0:
            a[name] = 0
        return a
    return with_attributes(attrs_)


def _axes_input_or_attribute(call, rest, attrs):
    if call.since >= 13:
        return None if not rest or rest[0] is None else [int(v) for v in np.asarray(rest[0]).reshape(-1)]
    return None if attrs.get("axes") is None else [int(v) for v in attrs["axes"]]


def _squeeze_output_rank(call, data, *rest, **attrs):
    """A negative axis counted back from the output's rank (rank(data) - len(axes)), not the input's."""
    axes = _axes_input_or_attribute(call, rest, attrs)
    if not axes or min(axes) >= 0:
        return call.run(data, *rest, **attrs)
    out_rank = data.ndim - len(axes)
    fixed = tuple(a + out_rank if a < 0 else a for a in axes)
    return (np.squeeze(data, axis=fixed),)


def _squeeze_nothing_by_default(call, data, *rest, **attrs):
    if _axes_input_or_attribute(call, rest, attrs) is None:
        return (data.copy(),)
    return call.run(data, *rest, **attrs)


def _unsqueeze(normalise, in_order: bool):
    def wrong(call, data, *rest, **attrs):
        axes = _axes_input_or_attribute(call, rest, attrs)
        out_rank = data.ndim + len(axes)
        fixed = [normalise(a, data.ndim, out_rank) for a in axes]
        if not in_order:
            fixed = sorted(fixed)
        out = data
        for a in fixed:
            out = np.expand_dims(out, a)
        return (out,)
    return wrong


def _tile_zero_raises(call, x, repeats, **attrs):
    if (np.asarray(repeats) == 0).any():
        raise ValueError("a repeat of 0 leaves nothing to tile")
    return call.run(x, repeats, **attrs)


def _transpose_identity_default(call, data, **attrs):
    if call.given("perm"):
        return call.run(data, **attrs)
    return (data.copy(),)


def _transpose_inverse(call, data, **attrs):
    if attrs.get("perm") is None:
        return call.run(data, **attrs)
    return call.run(data, **{**attrs, "perm": [int(v) for v in np.argsort(attrs["perm"])]})


def _trilu_lower_k_minus_one(call, x, *k, **attrs):
    """For the lower triangle, k diagonals above the main one kept as k - 1."""
    if attrs.get("upper"):
        return call.run(x, *k, **attrs)
    kk = int(np.asarray(k[0]).reshape(-1)[0]) if k and k[0] is not None else 0
    return call.run(x, np.asarray(kk - 1, dtype=np.int64), **attrs)


MUTANTS = [
    Mutant("CenterCropPad.crop_start_rounded_up", "CenterCropPad", "off-by-one windows",
           "The starting value for the cropping window is rounded down",
           _center_crop_pad(lambda d: (d + 1) // 2, lambda d: d // 2)),
    Mutant("CenterCropPad.extra_pad_on_the_left", "CenterCropPad", "off-by-one windows",
           "In cases where the total number of padding pixels is odd, an additional pixel will be added to the "
           "right side.", _center_crop_pad(lambda d: d // 2, lambda d: (d + 1) // 2)),
    Mutant("Col2Im.ignores_dilations", "Col2Im", "ignored attributes",
           "1-dimensional tensor with dilation value along each spatial axis of the image.", ignored("dilations")),
    Mutant("Col2Im.pads_interleaved", "Col2Im", "layout modes",
           "`pads` format should be as follow [x1_begin, x2_begin...x1_end, x2_end,...]",
           with_attributes(lambda call, a: {**a, "pads": None if a.get("pads") is None
                                            else [int(v) for v in _interleaved(a["pads"])]})),
    Mutant("Concat.negative_axis_clamped", "Concat", "negative axes",
           "A negative value means counting dimensions from the back.", _axis_clamped("axis"), since=(11, None)),
    Mutant("Concat.empty_input_raises", "Concat", "empty tensors",
           "All input tensors must have the same shape, except for the dimension size of the axis to concatenate on.",
           empty_raises),
    Mutant("DepthToSpace.crd_by_default", "DepthToSpace", "wrong defaults", "By default, `mode` = `DCR`.",
           default("mode", "CRD"), since=(11, None)),
    Mutant("DepthToSpace.ignores_mode", "DepthToSpace", "ignored attributes",
           "Use CRD for column-row-depth order.", ignored("mode"), since=(11, None)),
    Mutant("Expand.shape_is_the_output", "Expand", "broadcasting direction",
           "It is possible that the output.shape is not equal to shape, when some dimensions in shape is equal "
           "to 1, or the shape.ndim < input.shape.ndim.",
           lambda call, x, shape, **a: (np.broadcast_to(x, tuple(int(s) for s in shape)).copy(),)),
    Mutant("Flatten.negative_axis_plus_one", "Flatten", "negative axes",
           "The value for axis must be in the range [-r, r], where r is the rank of the input tensor. Negative "
           "value means counting dimensions from the back.",
           lambda call, x, **a: call.run(x, **{**a, "axis": a["axis"] + x.ndim + 1 if a["axis"] < 0 else a["axis"]}),
           since=(11, None)),
    Mutant("Flatten.axis_default_0", "Flatten", "wrong defaults",
           "Indicate up to which input dimensions (exclusive) should be flattened to the outer dimension of the "
           "output.", default("axis", 0), note="the schema's default axis is 1"),
    Mutant("Identity.rank0_as_rank1", "Identity", "scalars", "Identity operator", rank0_as_rank1),
    Mutant("Pad.pads_interleaved", "Pad", "layout modes",
           "`pads` format should be: [x1_begin, x2_begin, ..., x1_end, x2_end,...]", _pad_interleaved),
    Mutant("Pad.reflect_as_symmetric", "Pad", "layout modes",
           "`reflect` - pads with the reflection of the vector mirrored on the first and last values of the "
           "vector along each axis", _pad_symmetric),
    Mutant("Pad.ignores_constant_value", "Pad", "ignored attributes",
           "pads with a given constant value as specified by `constant_value`", _pad_constant_ignored,
           since=(11, None)),
    Mutant("Pad.negative_axes_clamped", "Pad", "negative axes",
           "Negative value means counting dimensions from the back. Accepted range is [-r, r-1] where r = rank(data).",
           _pad_negative_axes_clamped, since=(18, None)),
    Mutant("Reshape.ignores_allowzero", "Reshape", "ignored attributes",
           "If 'allowzero' is set, and the new shape includes 0, the dimension will be set explicitly to zero "
           "(i.e. not taken from input tensor).", ignored("allowzero"), since=(14, None)),
    Mutant("Reshape.zero_taken_literally", "Reshape", "wrong defaults",
           "A dimension could also be 0, in which case the actual dimension value is unchanged (i.e. taken from "
           "the input tensor).", _reshape_zero_literal, since=(5, None)),
    Mutant("ReverseSequence.axes_defaults_swapped", "ReverseSequence", "wrong defaults",
           "Specify which axis is batch axis. Must be one of 1 (default), or 0.",
           with_attributes(lambda call, a: a if call.given("batch_axis") or call.given("time_axis")
                           else {**a, "batch_axis": 0, "time_axis": 1})),
    Mutant("ReverseSequence.whole_time_axis", "ReverseSequence", "ignored attributes",
           "the operator reverses the first sequence_lens[i] elements on time axis",
           with_inputs(lambda x, lens, **a: (x, np.full_like(lens, x.shape[a["time_axis"]])))),
    Mutant("Shape.ignores_start", "Shape", "ignored attributes",
           "Optional attributes start and end can be used to compute a slice of the input tensor's shape.",
           ignored("start"), since=(15, None)),
    Mutant("Shape.start_end_not_clamped", "Shape", "index edges",
           "Note that axes will be clamped to the range [0, r], where r is the rank of the input tensor if they "
           "are out-of-range", _shape_unclamped, since=(15, None)),
    Mutant("Size.rank0_is_zero", "Size", "scalars",
           "outputs a int64 scalar that equals to the total number of elements of the input tensor",
           result(lambda y, x, **_: 0 if np.ndim(x) == 0 else y)),
    Mutant("Slice.negative_step_end_clamped_at_0", "Slice", "index edges",
           "for negative stepping it is clamped to `[-1, dims[axes[i]]-1]`", _slice_wrong_floor, since=(10, None)),
    Mutant("Slice.indices_as_int32", "Slice", "cast saturation/wrap",
           "it is recommended to pass in `INT_MAX` when slicing forward", _int32_indices, since=(10, None)),
    Mutant("SpaceToDepth.block_row_column_swapped", "SpaceToDepth", "layout modes",
           "this op outputs a copy of the input tensor where values from the height and width dimensions are "
           "moved to the depth dimension.", _space_to_depth_swapped),
    Mutant("SpaceToDepth.ignores_mode", "SpaceToDepth", "ignored attributes",
           "Use CRD for column-row-depth order.", ignored("mode"), since=(28, None)),
    Mutant("Split.array_split_sizes", "Split", "off-by-one windows",
           "If the tensor is not evenly splittable into `num_outputs`, the last chunk will be smaller.",
           _split_array_split, since=(18, None)),
    Mutant("Split.negative_axis_clamped", "Split", "negative axes",
           "A negative value means counting dimensions from the back.", _axis_clamped("axis"), since=(11, None)),
    Mutant("Squeeze.negative_axes_output_rank", "Squeeze", "negative axes",
           "Accepted range is [-r, r-1] where r = rank(data).", _squeeze_output_rank, since=(11, None)),
    Mutant("Squeeze.nothing_by_default", "Squeeze", "wrong defaults",
           "If `axes` is not provided, all the single dimensions will be removed from the shape.",
           _squeeze_nothing_by_default),
    Mutant("Tile.repeats_reversed", "Tile", "layout modes",
           "1D int64 tensor of the same length as input's dimension number, includes numbers of repeated copies "
           "along input's dimensions.", with_inputs(lambda x, repeats, **_: (x, repeats[::-1].copy())),
           since=(6, None)),
    Mutant("Tile.zero_repeats_raise", "Tile", "empty tensors",
           "includes numbers of repeated copies along input's dimensions",
           _tile_zero_raises, since=(6, None)),
    Mutant("Transpose.identity_by_default", "Transpose", "wrong defaults",
           "If the attribute is omitted, its default value is `(n-1, ..., 0)`", _transpose_identity_default),
    Mutant("Transpose.inverse_permutation", "Transpose", "layout modes",
           "Axis `i` of the output tensor corresponds to axis `perm[i]` of the input tensor.", _transpose_inverse),
    Mutant("Trilu.lower_by_default", "Trilu", "wrong defaults", 'Default value for the "upper" attribute is true.',
           default("upper", 0)),
    Mutant("Trilu.lower_k_one_less", "Trilu", "off-by-one windows",
           "If upper is set to false, a positive k retains the lower triangular matrix including the main "
           "diagonal and k diagonals above it.", _trilu_lower_k_minus_one),
    Mutant("Unsqueeze.negative_axes_input_rank", "Unsqueeze", "negative axes",
           "Accepted range is [-r, r-1] where r = rank(expanded).",
           _unsqueeze(lambda a, r_in, r_out: a + r_in if a < 0 else a, in_order=False), since=(11, None)),
    Mutant("Unsqueeze.axes_in_given_order", "Unsqueeze", "layout modes",
           "The order of values in `axes` does not matter and can come in any order.",
           _unsqueeze(lambda a, r_in, r_out: a + r_out if a < 0 else a, in_order=True)),
]
