"""TopK: the k largest (or smallest) elements along axis and their indices, equal values in index order."""

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Case, Declared, NotApplicable, Operator

OPERATOR = Operator("TopK", primary="T")

DOC = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
DOC_SMALLEST = [[0, 1, 2, 3], [4, 5, 6, 7], [11, 10, 9, 8]]


def top_k(v, t, x, k, axis=None, largest=None, sorted_=None):
    """'Given two equivalent values, this operator uses the indices along the axis as a tiebreaker.
    That is, the element with the lower index will appear first.' Values compare exactly (-0.0 == 0.0)."""
    if (largest is not None or sorted_ is not None) and not v.has_attribute("largest"):
        return NotApplicable(f"TopK-{v.since_version} always returns the largest, sorted (largest and sorted are TopK-11's)")
    if axis is not None and axis < 0 and v.since_version < 11:
        return NotApplicable(f"TopK-{v.since_version}'s axis has no negative values "
                             "('Negative value means counting dimensions from the back' is version 11's)")
    use = (-1 if axis is None else axis) % x.ndim
    moved = np.moveaxis(x, use, -1)
    vals = np.empty(moved.shape[:-1] + (k,), dtype=x.dtype)
    idx = np.empty(moved.shape[:-1] + (k,), dtype=np.int64)
    for at in np.ndindex(*moved.shape[:-1]):
        row = [e.item() if values.is_int(t.dtype) else float(e) for e in moved[at]]
        sign = -1 if largest in (None, 1) else 1
        order = sorted(range(len(row)), key=lambda i: (sign * row[i], i))[:k]
        idx[at] = order
        vals[at] = moved[at][order]
    attrs = {k_: a for k_, a in (("axis", axis), ("largest", largest), ("sorted", sorted_)) if a is not None}
    inputs = {"X": x}
    if v.has_input("K"):
        inputs["K"] = np.array([k], dtype=np.int64)
    else:
        attrs["k"] = k
    outputs = {"Values": np.moveaxis(vals, -1, use), "Indices": np.moveaxis(idx, -1, use)}
    return Case(inputs, outputs, attrs, tolerance={"ulp": 0} if values.is_float(t.dtype) else None)


def doc(rows, t):
    return np.array(rows, dtype=np.float64).astype(t.np())


@OPERATOR.example
def default(v, t, rng):
    return top_k(v, t, doc(DOC, t), 3, axis=1)


@OPERATOR.example
def smallest(v, t, rng):
    return top_k(v, t, doc(DOC_SMALLEST, t), 3, axis=1, largest=0, sorted_=1)


@OPERATOR.example
def negative_axis(v, t, rng):
    return top_k(v, t, doc(DOC, t), 3, axis=-1)


@OPERATOR.example
def same_values(v, t, rng):
    return top_k(v, t, doc([0, 0, 0, 0], t), 3, axis=0, largest=0)


@OPERATOR.example
def same_values_largest(v, t, rng):
    return top_k(v, t, doc([0, 0, 0, 0], t), 3, axis=0)


@OPERATOR.example
def same_values_2d(v, t, rng):
    return top_k(v, t, doc([[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 1, 1]], t), 3, axis=1)


@OPERATOR.example
def random_axis_0(v, t, rng):
    """Distinct values with the type's extremes (no NaN: the spec does not say where NaN ranks)."""
    x = values.sample(t.dtype, (5, 3, 2), rng)
    if values.is_float(t.dtype):
        x = np.where(np.isnan(x.astype(np.float64)), 1.5, x).astype(t.np())
    return top_k(v, t, x, 2, axis=0)


@OPERATOR.example
def unsorted_k1(v, t, rng):
    """sorted = 0 leaves the order undefined; with k = 1 there is one order."""
    return top_k(v, t, doc(DOC_SMALLEST, t), 1, axis=1, largest=1, sorted_=0)


@OPERATOR.rejection
def k_larger_than_axis(v, t, rng):
    """k = 5 of an axis of 4 elements: the outputs hold 'the top k elements along the specified axis'."""
    inputs, attrs = {"X": doc(DOC, t)}, {"axis": 1}
    if v.has_input("K"):
        inputs["K"] = np.array([5], dtype=np.int64)
    else:
        attrs["k"] = 5
    outputs = {"Values": Declared(t.dtype, (3, 5)), "Indices": Declared("int64", (3, 5))}
    return Case(inputs, outputs, attrs,
                error="'Value tensor of shape [a_0, ..., a_{axis-1}, k, a_{axis+1}, ...] which contains the values "
                      "of the top k elements along the specified axis': k (5) exceeds the axis' 4 elements")
