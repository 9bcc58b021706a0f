"""Constant: the output is the value its attribute holds, in every form the version allows (tensor, sparse, value_*)."""

import numpy as np
from onnx import helper, numpy_helper

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import Rejected, Undefined
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = Operator("Constant")

# value_float(s), value_int(s), value_string(s) (Constant-12 on): each names its output type.
SCALAR_FORMS = {"float": "value_float", "int64": "value_int", "string": "value_string"}
LIST_FORMS = {"float": "value_floats", "int64": "value_ints", "string": "value_strings"}

# Each value_* attribute: the numpy type of its 'float32', 'int64' or 'UTF-8 string' output.
VALUE_TYPES = {"value_float": np.float32, "value_floats": np.float32, "value_int": np.int64,
               "value_ints": np.int64, "value_string": object, "value_strings": object}


@OPERATOR.semantics
def constant_(v, attrs, inputs):
    """The one value attribute given, as a tensor: value itself; sparse_value in dense form (zero, or the
    empty string, where no index names a position); value_float/int/string a scalar, value_floats/ints/strings
    1-D, of type float32, int64 or string. 'Exactly one of the provided attributes ... must be specified.'"""
    given = [name for name in v.schema.attributes if attrs.get(name) is not None]
    if len(given) != 1:
        raise Rejected(v.sentence(r"Exactly one of") or f"Constant-{v.since_version}: the value attribute is required")
    name = given[0]
    value = attrs[name]
    if name == "value":
        return {"output": numpy_helper.to_array(value)}
    if name == "sparse_value":
        return {"output": dense(value)}
    return {"output": np.array(value, dtype=VALUE_TYPES[name])}


def dense(sparse) -> np.ndarray:
    """A SparseTensorProto's dense value: its values at its indices, flat positions [NNZ] or coordinates
    [NNZ, rank]; elsewhere 'The default-value is zero for numeric tensors' (onnx.proto), '' for strings."""
    values = numpy_helper.to_array(sparse.values).reshape(-1)
    idx = numpy_helper.to_array(sparse.indices).astype(np.int64)
    shape = tuple(sparse.dims)
    size = int(np.prod(shape))
    if idx.ndim == 2:
        if ((idx < 0) | (idx >= np.array(shape, dtype=np.int64))).any():
            raise Rejected(f"onnx.proto SparseTensorProto: an index of {idx.tolist()} lies outside dims {list(shape)}")
        idx = np.ravel_multi_index(tuple(idx.T), shape) if len(idx) else np.zeros(0, np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        raise Rejected(f"onnx.proto SparseTensorProto: a linearized index of {idx.tolist()} lies outside dims {list(shape)}")
    if (np.diff(idx) <= 0).any():
        raise Rejected("onnx.proto SparseTensorProto: The indices must appear in ascending order without duplication.")
    if values.dtype == object:
        out = np.full(size, "", dtype=object)
    elif values.dtype == numpy_of("float8e8m0") and idx.size < size:
        raise Undefined("a sparse tensor's elements default to zero (onnx.proto SparseTensorProto), "
                        "and float8e8m0 has no zero")
    else:
        out = np.zeros(size, dtype=values.dtype)
    out[idx] = values
    return out.reshape(shape)


def _tensor(x):
    return numpy_helper.from_array(np.asarray(x), "value")


@OPERATOR.example
def constant(v, t, rng):
    """onnx's test_constant: a 5x5 value tensor (25 elements: odd, for the packed types)."""
    return OPERATOR.expect(v, {}, {"value": _tensor(data(t, (5, 5), rng))})


@OPERATOR.example
def rank0(v, t, rng):
    return OPERATOR.expect(v, {}, {"value": _tensor(data(t, (), rng))})


@OPERATOR.example
def empty(v, t, rng):
    return OPERATOR.expect(v, {}, {"value": _tensor(data(t, (2, 0, 3), rng))})


def _value_form(v, t, forms):
    if not v.has_attribute(forms["float"]):
        return None, NotApplicable(f"Constant-{v.since_version} has no {'/'.join(forms.values())} attributes "
                                   "(they come in Constant-12)")
    if t.dtype not in forms:
        return None, NotApplicable(
            f"{', '.join(forms.values())} give a float32, int64 or UTF-8 string output "
            f"(schema: {v.schema.attributes[forms['float']].description!r}); {t.dtype} has only the value tensor")
    return forms[t.dtype], None


@OPERATOR.example
def value_scalar(v, t, rng):
    """value_float / value_int / value_string: 'the sole element for the scalar ... output tensor'."""
    attr, na = _value_form(v, t, SCALAR_FORMS)
    if na:
        return na
    x = data(t, (5,), rng)[0]
    out = np.asarray(x, dtype=t.np()) if t.dtype != "string" else np.array(x, dtype=object)
    return OPERATOR.expect(v, {}, {attr: out.item()})


@OPERATOR.example
def value_list(v, t, rng):
    """value_floats / value_ints / value_strings: 'the elements for the 1D ... output tensor'."""
    attr, na = _value_form(v, t, LIST_FORMS)
    if na:
        return na
    return OPERATOR.expect(v, {}, {attr: data(t, (7,), rng).tolist()})


def _sparse(v, t, rng, coordinates: bool):
    if not v.has_attribute("sparse_value"):
        return NotApplicable(f"Constant-{v.since_version} has no sparse_value attribute (it comes in Constant-11)")
    if t.dtype == "float8e8m0":
        # onnx.proto SparseTensorProto: "The default-value is zero for numeric tensors";
        # float8e8m0 (exponent only, 2^-127..2^127 and NaN) has no encoding of zero.
        return NotApplicable("a sparse tensor's elements default to zero (onnx.proto SparseTensorProto), "
                             "and float8e8m0 has no zero")
    shape = (3, 5)
    flat = np.array([0, 3, 4, 8, 11, 14], dtype=np.int64)  # ascending, as SparseTensorProto requires
    vals = data(t, (flat.size,), rng)
    idx = np.stack(np.unravel_index(flat, shape), axis=1).astype(np.int64) if coordinates else flat
    sparse = helper.make_sparse_tensor(numpy_helper.from_array(vals, "sparse_values"),
                                       numpy_helper.from_array(idx, "sparse_indices"), list(shape))
    return OPERATOR.expect(v, {}, {"sparse_value": sparse})


@OPERATOR.example
def sparse_value(v, t, rng):
    """sparse_value with linearized indices [NNZ]: the output is its dense form, zero elsewhere."""
    return _sparse(v, t, rng, coordinates=False)


@OPERATOR.example
def sparse_value_coordinates(v, t, rng):
    """sparse_value with coordinate indices [NNZ, rank]."""
    return _sparse(v, t, rng, coordinates=True)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    'has an unexpected type|Function attributes are not implemented',
    'the evaluator cannot give a sparse_value as a dense output (it returns the SparseTensorProto itself from version 12, and raises for opsets up to 11); ours is the dense tensor the spec says Constant produces',
)
