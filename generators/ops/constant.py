"""Constant: the output is the value its attribute holds, in every form the version allows (tensor, sparse, value_*)."""

import numpy as np
from onnx import helper, numpy_helper

from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import data

OPERATOR = Operator("Constant")

# value_float(s), value_int(s), value_string(s) (Constant-12 on): each names its output type.
SCALAR_FORMS = {"float": "value_float", "int64": "value_int", "string": "value_string"}
LIST_FORMS = {"float": "value_floats", "int64": "value_ints", "string": "value_strings"}


def _tensor(x):
    return numpy_helper.from_array(np.asarray(x), "value")


@OPERATOR.example
def constant(v, t, rng):
    """onnx's test_constant: a 5x5 value tensor (25 elements: odd, for the packed types)."""
    x = data(t, (5, 5), rng)
    return Case({}, {"output": x}, {"value": _tensor(x)})


@OPERATOR.example
def rank0(v, t, rng):
    x = data(t, (), rng)
    return Case({}, {"output": x}, {"value": _tensor(x)})


@OPERATOR.example
def empty(v, t, rng):
    x = data(t, (2, 0, 3), rng)
    return Case({}, {"output": x}, {"value": _tensor(x)})


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
    return Case({}, {"output": out}, {attr: out.item()})


@OPERATOR.example
def value_list(v, t, rng):
    """value_floats / value_ints / value_strings: 'the elements for the 1D ... output tensor'."""
    attr, na = _value_form(v, t, LIST_FORMS)
    if na:
        return na
    x = data(t, (7,), rng)
    return Case({}, {"output": x}, {attr: x.tolist()})


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
    dense = np.full(int(np.prod(shape)), "", dtype=object) if t.dtype == "string" else np.zeros(
        int(np.prod(shape)), dtype=t.np())
    dense[flat] = vals
    dense = dense.reshape(shape)
    idx = np.stack(np.unravel_index(flat, shape), axis=1).astype(np.int64) if coordinates else flat
    sparse = helper.make_sparse_tensor(numpy_helper.from_array(vals, "sparse_values"),
                                       numpy_helper.from_array(idx, "sparse_indices"), list(shape))
    return Case({}, {"output": dense}, {"sparse_value": sparse})


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
