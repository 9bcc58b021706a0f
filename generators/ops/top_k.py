"""TopK: the k largest (or smallest) elements along axis and their indices, equal values in index order."""

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Declared, NotApplicable, Operator, type_of
from onnx_conformance.generators.movement import axis_in
from onnx_conformance.generators.semantics import Rejected, Undefined, attr

OPERATOR = Operator("TopK", primary="T")

DOC = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
DOC_SMALLEST = [[0, 1, 2, 3], [4, 5, 6, 7], [11, 10, 9, 8]]


@OPERATOR.semantics
def top_k(v, attrs, inputs):
    """The k largest (largest = 0: smallest) elements along axis, by value, "Given two equivalent values
    ... the element with the lower index will appear first"; values compare exactly (-0.0 == 0.0).
    With sorted = 0 and k > 1 "order of returned 'Values' and 'Indices' are undefined"."""
    x = inputs["X"]
    k = attrs.get("k") if not v.has_input("K") else inputs["K"]
    if v.has_input("K"):
        if np.shape(k) != (1,) or int(np.asarray(k)[0]) < 1:
            raise Rejected("K: " + " ".join(v.schema.inputs[1].description.split()))
        k = int(np.asarray(k)[0])
    elif k is None or k < 0:
        raise Rejected(f"k: {v.schema.attributes['k'].description} (a count, required)")
    axis = axis_in(attr(attrs, "axis", -1), x.ndim, "axis: " + " ".join(v.schema.attributes["axis"].description.split()))
    if k > x.shape[axis]:
        raise Rejected("'Value tensor of shape [a_0, ..., a_{axis-1}, k, a_{axis+1}, ...] which contains the values "
                       f"of the top k elements along the specified axis': k ({k}) exceeds the axis' {x.shape[axis]} elements")
    largest, sorted_ = attr(attrs, "largest", 1), attr(attrs, "sorted", 1)
    if sorted_ == 0 and k > 1:
        raise Undefined(v.sentence(r"If \"sorted\" is 0"))
    kind = type_of(x)
    moved = np.moveaxis(x, axis, -1)
    if values.is_float(kind) and np.isnan(moved.astype(np.float64)).any():
        raise Undefined("a NaN among the values: the spec does not say where NaN ranks")
    vals = np.empty(moved.shape[:-1] + (k,), dtype=x.dtype)
    idx = np.empty(moved.shape[:-1] + (k,), dtype=np.int64)
    sign = -1 if largest == 1 else 1
    for at in np.ndindex(*moved.shape[:-1]):
        row = [e.item() if values.is_int(kind) else float(e) for e in moved[at]]
        order = sorted(range(len(row)), key=lambda i: (sign * row[i], i))[:k]
        idx[at] = order
        vals[at] = moved[at][order]
    return {"Values": np.moveaxis(vals, -1, axis), "Indices": np.moveaxis(idx, -1, axis)}


def case(v, t, x, k, axis=None, largest=None, sorted_=None):
    """The node for this version: k as an attribute (version 1) or the input K; largest and sorted from version 11."""
    if (largest is not None or sorted_ is not None) and not v.has_attribute("largest"):
        return NotApplicable(f"TopK-{v.since_version} always returns the largest, sorted (largest and sorted are TopK-11's)")
    if axis is not None and axis < 0 and v.since_version < 11:
        return NotApplicable(f"TopK-{v.since_version}'s axis has no negative values "
                             "('Negative value means counting dimensions from the back' is version 11's)")
    inputs, attrs = node(v, x, k, axis)
    attrs |= {k_: a for k_, a in (("largest", largest), ("sorted", sorted_)) if a is not None}
    return OPERATOR.expect(v, inputs, attrs, tolerance={"ulp": 0} if values.is_float(t.dtype) else None)


def node(v, x, k, axis):
    """Inputs and attributes in this version's spelling: k an attribute (version 1), the input K after."""
    attrs = {} if axis is None else {"axis": axis}
    inputs = {"X": x}
    if v.has_input("K"):
        inputs["K"] = np.array([k], dtype=np.int64)
    else:
        attrs["k"] = k
    return inputs, attrs


def doc(rows, t):
    return np.array(rows, dtype=np.float64).astype(t.np())


@OPERATOR.example
def default(v, t, rng):
    return case(v, t, doc(DOC, t), 3, axis=1)


@OPERATOR.example
def smallest(v, t, rng):
    return case(v, t, doc(DOC_SMALLEST, t), 3, axis=1, largest=0, sorted_=1)


@OPERATOR.example
def negative_axis(v, t, rng):
    return case(v, t, doc(DOC, t), 3, axis=-1)


@OPERATOR.example
def same_values(v, t, rng):
    return case(v, t, doc([0, 0, 0, 0], t), 3, axis=0, largest=0)


@OPERATOR.example
def same_values_largest(v, t, rng):
    return case(v, t, doc([0, 0, 0, 0], t), 3, axis=0)


@OPERATOR.example
def same_values_2d(v, t, rng):
    return case(v, t, doc([[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 1, 1]], t), 3, axis=1)


@OPERATOR.example
def random_axis_0(v, t, rng):
    """Distinct values with the type's extremes (no NaN: the spec does not say where NaN ranks)."""
    x = values.sample(t.dtype, (5, 3, 2), rng)
    if values.is_float(t.dtype):
        x = np.where(np.isnan(x.astype(np.float64)), 1.5, x).astype(t.np())
    return case(v, t, x, 2, axis=0)


@OPERATOR.example
def unsorted_k1(v, t, rng):
    """sorted = 0 leaves the order undefined; with k = 1 there is one order."""
    return case(v, t, doc(DOC_SMALLEST, t), 1, axis=1, largest=1, sorted_=0)


@OPERATOR.rejection
def k_larger_than_axis(v, t, rng):
    """k = 5 of an axis of 4 elements: the outputs hold 'the top k elements along the specified axis'."""
    inputs, attrs = node(v, doc(DOC, t), 5, 1)
    outputs = {"Values": Declared(t.dtype, (3, 5)), "Indices": Declared("int64", (3, 5))}
    return OPERATOR.reject(v, inputs, attrs, outputs)
