"""Mutants of control flow, sequences and optionals: loops one trip short or run once regardless, scans
along the wrong axis, positions counted from the wrong end, defaults at the other end of the sequence,
scalars given a dimension, empty tensors taken for no value and an empty sequence seeded with one."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.dtypes import name_of, numpy_of
from onnx_conformance.harness.mutants._shared import Mutant, ignored

FAMILY = "Control flow, sequences and optionals"


def _rank0_outputs_as_rank1(call, *inputs, **attrs):
    return tuple(np.asarray(y).reshape(1) if isinstance(y, (np.ndarray, np.generic)) and np.ndim(y) == 0 else y
                 for y in call.run(*inputs, **attrs))


def _empty_outputs_raise(call, *inputs, **attrs):
    outs = call.run(*inputs, **attrs)
    if any(isinstance(y, np.ndarray) and y.size == 0 for y in outs):
        raise ValueError("a branch output with zero elements: nothing to allocate")
    return outs


def _concat_new_axis_rank(call, seq, **attrs):
    """With new_axis, a negative axis counted back from the inputs' rank r instead of r + 1."""
    axis = attrs.get("axis")
    if attrs.get("new_axis") and axis is not None and axis < 0 and seq and axis + seq[0].ndim >= 0:
        attrs = {**attrs, "axis": axis - 1}
    return call.run(seq, **attrs)


def _loop_one_short(call, trip_count, cond, *rest, **attrs):
    """`i < trip_count - 1`: the last trip not run."""
    if trip_count is not None and np.asarray(trip_count).size and int(np.asarray(trip_count).reshape(-1)[0]) > 0:
        trip_count = (np.asarray(trip_count) - 1).astype(np.asarray(trip_count).dtype)
    return call.run(trip_count, cond, *rest, **attrs)


def _loop_do_while(call, trip_count, cond, *rest, **attrs):
    """The first trip run whatever the condition input says (a do-while); bounded by the trip count only."""
    if trip_count is not None and cond is not None and not bool(np.asarray(cond).reshape(-1)[0]):
        cond = np.ones_like(np.asarray(cond))
    return call.run(trip_count, cond, *rest, **attrs)


def _optional_empty_is_none(call, *inputs, **attrs):
    """An element with zero elements taken for no element."""
    if inputs and isinstance(inputs[0], np.ndarray) and inputs[0].size == 0:
        return (None,)
    return call.run(*inputs, **attrs)


def _empty_sequence_seeded(call, **attrs):
    """The sequence seeded with one zero-sized tensor of the type, to carry `dtype` where a list has no type."""
    (seq,) = call.run(**attrs)
    dtype = attrs.get("dtype")
    return (list(seq) + [np.zeros((0,), numpy_of(name_of(1 if dtype is None else int(dtype))))],)


def _get_empty_raises(call, x, **attrs):
    if isinstance(x, np.ndarray) and x.size == 0:
        raise ValueError("the optional holds no element")
    return call.run(x, **attrs)


def _has_element_empty_false(call, *inputs, **attrs):
    if inputs and isinstance(inputs[0], np.ndarray) and inputs[0].size == 0:
        return (np.array(False),)
    return call.run(*inputs, **attrs)


def _scan_axes_ignored(call, *inputs, **attrs):
    """Every scan input scanned along axis 0: what the correct Scan must be handed to do that."""
    axes = attrs.get("scan_input_axes")
    m = attrs.get("num_scan_inputs")
    if not axes or not m:
        return call.run(*inputs, **attrs)
    n = len(inputs) - int(m)
    moved = list(inputs)
    for i, a in enumerate(axes):
        x = moved[n + i]
        a = int(a) % x.ndim
        moved[n + i] = np.moveaxis(x, 0, a)
    return call.run(*moved, **attrs)


def _scan_output_axes_ignored(call, *inputs, **attrs):
    """Every scan output stacked along axis 0."""
    outs = list(call.run(*inputs, **attrs))
    axes = attrs.get("scan_output_axes")
    if not axes:
        return tuple(outs)
    k = len(outs) - len(axes)
    for i, a in enumerate(axes):
        y = outs[k + i]
        outs[k + i] = np.ascontiguousarray(np.moveaxis(y, int(a) % y.ndim, 0))
    return tuple(outs)


def _position(f):
    """The position input p becomes f(p, n) for a sequence of n tensors."""
    def wrong(call, seq, *rest, **attrs):
        rest = list(rest)
        k = len(rest) - 1
        if k >= 0 and rest[k] is not None and len(rest) > (1 if call.node.op_type == "SequenceInsert" else 0):
            p = np.asarray(rest[k])
            rest[k] = np.asarray(f(int(p), len(seq)), dtype=p.dtype)
        return call.run(seq, *rest, **attrs)
    return wrong


def _erase_first_by_default(call, seq, *rest, **attrs):
    if rest and rest[0] is not None:
        return call.run(seq, *rest, **attrs)
    return (list(seq[1:]),)


def _insert_front_by_default(call, seq, tensor, *rest, **attrs):
    if rest and rest[0] is not None:
        return call.run(seq, tensor, *rest, **attrs)
    return ([tensor, *seq],)


def _reversed_sequence(call, *inputs, **attrs):
    outs = call.run(*inputs, **attrs)
    return tuple(list(reversed(y)) if isinstance(y, list) else y for y in outs)


def _split_remainder_dropped(call, x, *rest, **attrs):
    """A scalar split that does not divide the axis: the shorter last chunk dropped."""
    (parts,) = call.run(x, *rest, **attrs)
    split = rest[0] if rest else None
    if split is None or np.ndim(split) != 0 or len(parts) < 2:
        return (parts,)
    axis = int(attrs.get("axis") or 0)
    if parts[-1].shape[axis] < int(split):
        parts = parts[:-1]
    return (parts,)


MUTANTS = [
    Mutant("ConcatFromSequence.ignores_new_axis", "ConcatFromSequence", "ignored attributes",
           "When 'new_axis' is 1, the behavior is similar to numpy.stack.", ignored("new_axis")),
    Mutant("ConcatFromSequence.new_axis_negative_from_input_rank", "ConcatFromSequence", "negative axes",
           "When `new_axis` is 1, accepted range is `[-r - 1, r]`.", _concat_new_axis_rank),
    Mutant("If.rank0_outputs_as_rank1", "If", "scalars",
           "The `then_branch` and `else_branch` may produce tensors with the same element type and different "
           "shapes.", _rank0_outputs_as_rank1),
    Mutant("If.empty_output_raises", "If", "empty tensors",
           "Graph to run if condition is false.", _empty_outputs_raise),
    Mutant("Loop.one_trip_short", "Loop", "off-by-one windows",
           "Iteration count specified at runtime.", _loop_one_short),
    Mutant("Loop.first_trip_regardless_of_cond", "Loop", "ignored attributes",
           "This is an input to the op that determines whether to run the first iteration and also a "
           "loop-carried dependency for the body graph.", _loop_do_while),
    Mutant("Optional.empty_tensor_as_no_element", "Optional", "empty tensors",
           "or a non-empty value containing the input element.", _optional_empty_is_none),
    Mutant("OptionalGetElement.empty_tensor_raises", "OptionalGetElement", "empty tensors",
           "If the input is an optional type, it outputs the element in the input.", _get_empty_raises,
           since=(18, None)),
    Mutant("OptionalHasElement.empty_tensor_false", "OptionalHasElement", "empty tensors",
           "Returns true if (1) the input is an optional-type and contains an element, or, (2) the input is a "
           "tensor or sequence type.", _has_element_empty_false, since=(18, None)),
    Mutant("OptionalHasElement.rank1_output", "OptionalHasElement", "scalars", "A scalar boolean tensor.",
           _rank0_outputs_as_rank1),
    Mutant("Scan.ignores_scan_input_axes", "Scan", "ignored attributes",
           "If omitted, every scan_input will be scanned in axis 0.", _scan_axes_ignored, since=(9, None)),
    Mutant("Scan.ignores_scan_output_axes", "Scan", "ignored attributes",
           "The optional attribute scan_output_axes specifies the axis along which the scan_outputs are "
           "accumulated for each scan_output.", _scan_output_axes_ignored, since=(9, None)),
    Mutant("SequenceAt.negative_from_the_front", "SequenceAt", "negative axes",
           "Negative value means counting positions from the back.",
           _position(lambda p, n: -p - 1 if p < 0 else p)),
    Mutant("SequenceConstruct.reversed", "SequenceConstruct", "layout modes",
           "Construct a tensor sequence containing 'inputs' tensors.", _reversed_sequence),
    Mutant("SequenceEmpty.ignores_dtype", "SequenceEmpty", "ignored attributes",
           "The default type is 'float'.", ignored("dtype"),
           equivalent="in a single-node model the empty sequence is the graph's output, and what a backend hands "
           "back for it (a list, in onnxruntime's and onnx's Python APIs and every adapter here) holds no tensor "
           "to have a type: dtype shows only to a later node (SequenceInsert of a tensor, which must be of the "
           "sequence's type), in a graph"),
    Mutant("SequenceEmpty.seeded_with_empty_tensor", "SequenceEmpty", "empty tensors",
           "Construct an empty tensor sequence, with given data type.", _empty_sequence_seeded,
           note="a runtime whose sequences cannot be empty lists of a type seeds one with a zero-sized tensor"),
    Mutant("SequenceErase.erases_first_by_default", "SequenceErase", "wrong defaults",
           "'position' is optional, by default it erases the last tensor from 'input_sequence'.",
           _erase_first_by_default),
    Mutant("SequenceErase.negative_one_off", "SequenceErase", "negative axes",
           "Negative value means counting positions from the back.",
           _position(lambda p, n: p + n - 1 if p < 0 and p + n - 1 >= 0 else p)),
    Mutant("SequenceInsert.front_by_default", "SequenceInsert", "wrong defaults",
           "'position' is optional, by default it inserts 'tensor' to the back of 'input_sequence'.",
           _insert_front_by_default),
    Mutant("SequenceInsert.negative_one_past", "SequenceInsert", "negative axes",
           "Accepted range for 'position' is in `[-n, n]`, where `n` is the number of tensors in 'input_sequence'.",
           _position(lambda p, n: p + n + 1 if p < 0 else p)),
    Mutant("SequenceLength.rank1_output", "SequenceLength", "scalars",
           "It must be a scalar(tensor of empty shape).", _rank0_outputs_as_rank1),
    Mutant("SequenceMap.outputs_reversed", "SequenceMap", "layout modes",
           "The outputs will contain the outputs of the sub-graph for each sample, in the same order as in the "
           "input.", _reversed_sequence),
    Mutant("SplitToSequence.ignores_keepdims", "SplitToSequence", "ignored attributes",
           "Keep the split dimension or not.", ignored("keepdims")),
    Mutant("SplitToSequence.remainder_dropped", "SplitToSequence", "off-by-one windows",
           "The last chunk alone may be smaller than 'split' if the 'input' size along the given axis 'axis' is "
           "not divisible by 'split'.", _split_remainder_dropped),
]
