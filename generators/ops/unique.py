"""Unique: the distinct elements (or subtensors along an axis), first-occurrence indices, inverse indices and counts."""

import math

import numpy as np

from onnx_conformance.generators.case import Operator, type_of
from onnx_conformance.generators.movement import axis_in, data, declared
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, rule
from onnx_conformance.generators.values import is_float

OPERATOR = Operator("Unique", primary="T")

OUTPUTS = ("Y", "indices", "inverse_indices", "counts")


@OPERATOR.semantics
def unique_(v, attrs, inputs):
    """The distinct elements of the flattened input (or subtensors along axis, 'Accepted range is [-r, r-1]'),
    'sorted in ascending order' (sorted = 1, the default) or in the order of first occurrence, with the
    first-occurrence indices, the inverse indices and the counts."""
    x = inputs["X"]
    axis = attrs.get("axis")
    if axis is not None:
        axis = axis_in(axis, x.ndim, rule(v, r"Accepted range"))
    sorted_ = attr(attrs, "sorted", 1)
    if sorted_ not in (0, 1):
        raise Rejected(rule(v, r"Must be one of 0, or 1"))
    if is_float(type_of(x)) or x.dtype.kind == "c":
        wide = x.astype(np.complex128) if x.dtype.kind == "c" else x.astype(np.float64)
        if np.isnan(wide).any():
            raise Undefined("a NaN is not equal to itself: the spec does not say whether NaNs are one unique value")
        if sorted_ and x.dtype.kind == "c" and not _orders_agree(wide):
            raise Undefined("the spec's 'ascending order' names no order of complex numbers, and these are "
                            "ordered differently by (real, imaginary) and by magnitude")
    return dict(zip(OUTPUTS, unique(x, axis, bool(sorted_))))


def _orders_agree(z: np.ndarray) -> bool:
    """Whether the distinct complex values sort alike by (real, imaginary) and by magnitude."""
    magnitudes = [abs(c) for c in sorted(set(z.reshape(-1).tolist()), key=key)]
    return all(a < b for a, b in zip(magnitudes, magnitudes[1:]))

NUMERIC = ("uint", "int", "float", "double", "bfloat16")


def values_of(t, codes, rng):
    """A tensor whose equal codes are equal values and whose value order follows the code order.

    Numeric types take the codes themselves (the documented numbers); the others a sorted pool of
    distinct values without specials: NaN makes the result unspecified and -0.0 == 0.0 ties.
    bool has two values, so its codes are taken modulo 2 (the oracle works from the values).
    Complex numbers have no ascending order in the spec: the pool k + k/2 i is ordered alike by
    real part, by (real, imaginary) and by magnitude.
    """
    codes = np.asarray(codes)
    if t.dtype.startswith(NUMERIC):
        return codes.astype(t.np())
    if t.dtype == "bool":
        return (codes % 2).astype(bool)
    k = int(codes.max()) + 1
    if t.dtype.startswith("complex"):
        pool = np.array([complex(i + 1, (i + 1) / 2) for i in range(k)], dtype=t.np())
    else:
        pool = np.array(sorted(data(t, (k,), rng, specials=False).tolist()), dtype=object)
    out = pool[codes.reshape(-1)].reshape(codes.shape)
    return out


def key(x):
    return (x.real, x.imag) if isinstance(x, complex) else x


def unique(x, axis=None, sorted_=True):
    """(Y, indices, inverse_indices, counts), by first occurrence, then reordered ascending when sorted.

    With an axis, the items are the subtensors along it, compared as their elements in row-major
    order (the schema's Example 4 orders them so).
    """
    if axis is None:
        moved = x.reshape(-1, 1)
    else:
        moved = np.moveaxis(x, axis, 0).reshape(x.shape[axis], math.prod(np.delete(x.shape, axis)))
    items = [tuple(key(e) for e in row.tolist()) for row in moved]
    first, seen = [], {}
    inverse, counts = [], []
    for i, item in enumerate(items):
        if item not in seen:
            seen[item] = len(first)
            first.append(i)
            counts.append(0)
        inverse.append(seen[item])
        counts[seen[item]] += 1
    order = list(range(len(first)))
    if sorted_:
        order.sort(key=lambda j: items[first[j]])
    rank = {j: r for r, j in enumerate(order)}
    indices = np.array([first[j] for j in order], dtype=np.int64)
    inverse_ = np.array([rank[j] for j in inverse], dtype=np.int64)
    counts_ = np.array([counts[j] for j in order], dtype=np.int64)
    if axis is None:
        y = x.reshape(-1)[indices]
    else:
        y = np.take(x, indices, axis=axis)
    return y, indices, inverse_, counts_


def case(v, x, axis=None, sorted_=1, outputs=OUTPUTS):
    attrs = {} if axis is None else {"axis": axis}
    if sorted_ != 1:
        attrs["sorted"] = sorted_
    return OPERATOR.expect(v, {"X": x}, attrs, outputs=[n if n in outputs else None for n in OUTPUTS])


# The schema's Examples 1-4 and onnx's node tests, as codes.
FLAT = [2, 1, 1, 3, 4, 3]


@OPERATOR.example
def sorted_without_axis(v, t, rng):
    return case(v, values_of(t, FLAT, rng))


@OPERATOR.example
def not_sorted_without_axis(v, t, rng):
    return case(v, values_of(t, FLAT, rng), sorted_=0)


@OPERATOR.example
def sorted_with_axis(v, t, rng):
    return case(v, values_of(t, [[1, 0, 0], [1, 0, 0], [2, 3, 4]], rng), axis=0)


@OPERATOR.example
def sorted_with_axis_3d(v, t, rng):
    codes = [[[1, 1], [0, 1], [2, 1], [0, 1]], [[1, 1], [0, 1], [2, 1], [0, 1]]]
    return case(v, values_of(t, codes, rng), axis=1)


@OPERATOR.example
def sorted_with_negative_axis(v, t, rng):
    return case(v, values_of(t, [[1, 0, 0], [1, 0, 0], [2, 3, 3]], rng), axis=-1)


@OPERATOR.example
def length_1(v, t, rng):
    return case(v, values_of(t, [0], rng))


@OPERATOR.example
def not_sorted_with_negative_axis(v, t, rng):
    """Subtensors along axis -2 of a [1, 5, 3] tensor (15 elements), kept in first-occurrence order."""
    codes = [[[3, 1, 0], [0, 2, 1], [3, 1, 0], [1, 1, 1], [0, 2, 1]]]
    return case(v, values_of(t, codes, rng), axis=-2, sorted_=0)


@OPERATOR.example
def sorted_y_and_counts(v, t, rng):
    """Only Y and counts asked for; 13 elements drawn from 5 values."""
    codes = rng.integers(0, 5, size=13)
    return case(v, values_of(t, codes, rng), outputs=("Y", "counts"))


@OPERATOR.rejection
def axis_out_of_range(v, t, rng):
    outs = {"Y": declared(t.dtype, 2), **{n: declared("int64", 1) for n in ("indices", "inverse_indices", "counts")}}
    return OPERATOR.reject(v, {"X": data(t, (2, 3), rng)}, {"axis": 2}, outs)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    '^not_sorted_with_negative_axis .*index \\d+ is out of bounds',
    "the evaluator's unsorted path rebuilds Y with np.take(..., axis=0) whatever the axis",
)
OPERATOR.reference_differs(
    'string: .*Issues with types',
    'the evaluator uses numpy.unique(axis=...), which cannot handle object (string) arrays',
)
