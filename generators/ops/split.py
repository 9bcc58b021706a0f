"""Split: consecutive parts of a tensor along an axis, equal or of given lengths."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import axis_in, data, declared, ints_of
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, rule
from onnx_conformance.generators.slice_family import documented, variadic

OPERATOR = Operator("Split", primary="T")

ONE_TO_SIX = [1, 2, 3, 4, 5, 6]
TWO_ROWS = [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]]
TWO_ROWS_OF_EIGHT = [list(range(1, 9)), list(range(9, 17))]


@OPERATOR.semantics
def split(v, attrs, inputs, asked=None):
    """Consecutive parts along axis: of the lengths 'split' gives; else (Split-18) num_outputs parts of
    ceil(dim / n), 'the last chunk will be smaller'; else (before 18) as many equal parts as the node
    has outputs (`asked`)."""
    count = None if asked is None else len(asked)
    x = inputs["input"]
    if "axis" not in attrs and not v.schema.attributes["axis"].default_value.name:
        raise Undefined(f"Split-{v.since_version} gives 'axis' no default ('Which axis to split on')")
    r, axis = x.ndim, attr(attrs, "axis", 0)
    if v.since_version >= 11:
        axis = axis_in(axis, r, rule(v, r"Accepted range"))
    elif not 0 <= axis < r:
        raise Undefined(f"Split-{v.since_version}: the input of rank {r} has no axis {axis} "
                        "(negative axes come with version 11)")
    dim = x.shape[axis]
    lengths = ints_of(inputs.get("split")) if v.has_input("split") else None
    if lengths is None and attrs.get("split") is not None:
        lengths = [int(n) for n in attrs["split"]]
    n = attr(attrs, "num_outputs") if v.has_attribute("num_outputs") else None
    if v.has_attribute("num_outputs") and (lengths is None) == (n is None):
        raise Rejected(v.sentence(r"but not both"))
    if lengths is not None:
        if any(k < 0 for k in lengths):
            _broken(v, r"Values should be >= 0", f"split {lengths} has a negative length")
        if sum(lengths) != dim:
            _broken(v, r"Sum of the values must be equal", f"split {lengths} does not sum to the dimension {dim}")
    elif n is not None:
        chunk = -(-dim // n) if n > 0 else 0
        if n < 1 or dim - chunk * (n - 1) < 0:
            raise Undefined(f"{dim} elements cannot make {n} parts of ceil({dim}/{n}) with a smaller last one")
        lengths = [chunk] * (n - 1) + [dim - chunk * (n - 1)]
    else:
        if count is None:
            raise Undefined(f"Split-{v.since_version} without 'split' makes as many equal parts as the node has "
                            "outputs, and is not told them")
        if dim % count:
            raise Undefined(f"'the tensor is split to equal sized parts': {dim} elements make no {count} equal parts")
        lengths = [dim // count] * count
    # Split-1 names its variadic output 'outputs...', the later versions 'outputs'.
    return {v.schema.outputs[0].name: parts(x, axis, lengths)}


def _broken(v, pattern: str, what: str) -> None:
    """A rule on the lengths: Rejected where this version states it, else Undefined."""
    sentence = rule(v, pattern)
    if sentence is None:
        raise Undefined(f"{what}; Split-{v.since_version} states no rule on it")
    raise Rejected(sentence)


def parts(x, axis, lengths):
    return np.split(x, np.cumsum(lengths)[:-1].tolist(), axis=axis)


def names(count: int) -> list[str]:
    """The node's output names, one per part (slice_family.variadic's names)."""
    return list(variadic("outputs", range(count)))


def equal(v, t, x, count, axis=None):
    """Equal parts: by the number of outputs, or (Split-18) by num_outputs, the last part smaller."""
    dim = x.shape[0 if axis is None else axis]
    attrs = {} if axis is None else {"axis": axis}
    if v.has_attribute("num_outputs"):
        attrs["num_outputs"] = count
        return OPERATOR.expect(v, {"input": x}, attrs, outputs=names(count))
    if dim % count:
        return NotApplicable(f"Split-{v.since_version}: 'Otherwise, the tensor is split to equal sized parts.' "
                             "(a smaller last chunk is Split-18's)")
    return OPERATOR.expect(v, {"input": x}, attrs, outputs=names(count))


def given(v, t, x, lengths, axis=None):
    """Lengths of the parts: the 'split' attribute up to Split-11, the 'split' input from Split-13."""
    attrs = {} if axis is None else {"axis": axis}
    if v.since_version >= 13:
        inputs = {"input": x, "split": np.array(lengths, dtype=np.int64)}
    else:
        inputs, attrs = {"input": x}, dict(attrs, split=list(lengths))
    return OPERATOR.expect(v, inputs, attrs, outputs=names(len(lengths)))


def default_axis_stated(v):
    if v.since_version == 1:
        return NotApplicable("Split-1 gives 'axis' no default ('Which axis to split on')")
    return None


@OPERATOR.example(name="equal_parts_1d")
def equal_parts_1d(v, t, rng):
    return equal(v, t, documented(t, ONE_TO_SIX, rng), 3, axis=0)


@OPERATOR.example(name="variable_parts_1d")
def variable_parts_1d(v, t, rng):
    return given(v, t, documented(t, ONE_TO_SIX, rng), [2, 4], axis=0)


@OPERATOR.example(name="equal_parts_2d")
def equal_parts_2d(v, t, rng):
    return equal(v, t, documented(t, TWO_ROWS, rng), 2, axis=1)


@OPERATOR.example(name="variable_parts_2d")
def variable_parts_2d(v, t, rng):
    return given(v, t, documented(t, TWO_ROWS, rng), [2, 4], axis=1)


@OPERATOR.example
def equal_parts_default_axis(v, t, rng):
    return default_axis_stated(v) or equal(v, t, documented(t, ONE_TO_SIX, rng), 3)


@OPERATOR.example
def variable_parts_default_axis(v, t, rng):
    return default_axis_stated(v) or given(v, t, documented(t, ONE_TO_SIX, rng), [2, 4])


@OPERATOR.example
def zero_size_splits(v, t, rng):
    if v.since_version < 11:
        return NotApplicable(f"Split-{v.since_version} says only 'length of each output'; lengths of 0 "
                             "('Values should be >= 0.') are allowed from Split-11")
    return given(v, t, data(t, (0,), rng), [0, 0, 0])


@OPERATOR.example(name="1d_uneven_split")
def uneven_split_1d(v, t, rng):
    return equal(v, t, documented(t, ONE_TO_SIX + [7], rng), 4)


@OPERATOR.example
def uneven_split_7_into_3(v, t, rng):
    """7 into 3 parts (Split-18's num_outputs; before, only equal parts exist): ceil(7 / 3) = 3, so
    [3, 3, 1], 'the last chunk will be smaller', where numpy.array_split gives [3, 2, 2]; 7 into 4
    and 8 into 3 cannot tell the two apart."""
    return equal(v, t, documented(t, ONE_TO_SIX + [7], rng), 3)


@OPERATOR.example(name="2d_uneven_split")
def uneven_split_2d(v, t, rng):
    return equal(v, t, documented(t, TWO_ROWS_OF_EIGHT, rng), 3, axis=1)


@OPERATOR.example
def negative_axis(v, t, rng):
    """An odd element count, with the special values of the type, split on axis -1."""
    if v.since_version < 11:
        return NotApplicable(f"Split-{v.since_version} gives 'axis' no negative values; "
                             "'A negative value means counting dimensions from the back.' is Split-11's")
    return given(v, t, data(t, (3, 5), rng), [2, 3], axis=-1)


@OPERATOR.rejection
def sizes_not_summing_to_dim(v, t, rng):
    broken = rule(v, r"Sum of the values must be equal")
    if broken is None:
        return NotApplicable(f"Split-{v.since_version} states no rule on the sum of 'split' "
                             "('Sum of the values must be equal to the dim value at 'axis' specified.' is Split-13's)")
    x = data(t, (6,), rng)
    outs = {f"outputs_{k}": declared(t.dtype, 1) for k in range(2)}
    return OPERATOR.reject(v, {"input": x, "split": np.array([2, 3], dtype=np.int64)}, {"axis": 0}, outs)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    "No implementation for operator 'Split' domain '' and version 1",
    'the evaluator has no Split-1',
)
OPERATOR.reference_differs(
    'returned outputs for an expect-error case',
    'the evaluator does not check that the split lengths sum to the dimension',
)
