"""ConstantOfShape: a tensor of the shape its input gives, every element the one value of the value attribute."""

import numpy as np
from onnx import numpy_helper

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data, declared
from onnx_conformance.generators.semantics import Rejected, rule

OPERATOR = Operator("ConstantOfShape", primary="T2")


@OPERATOR.semantics
def constant_of_shape(v, attrs, inputs):
    """A tensor of the shape the 1-D input gives ('If empty tensor is given, the output would be a scalar'),
    every element the one value of `value`, which 'defaults to a tensor of value 0 and datatype float32'."""
    shape = np.asarray(inputs["input"], np.int64)
    if shape.ndim != 1:
        raise Rejected(rule(v, r"^1D tensor", "input"))
    if (shape < 0).any():
        raise Rejected(rule(v, r"All values must be >= 0", "input"))
    value = attrs.get("value")
    fill = np.zeros(1, np.float32) if value is None else numpy_helper.to_array(value).reshape(-1)
    if fill.size != 1:
        raise Rejected(rule(v, r"Should be a one-element tensor", "value"))
    return {"output": np.full(tuple(shape.tolist()), fill[0], dtype=fill.dtype)}

NO_ZERO = NotApplicable("float8e8m0 (8-bit exponent, no mantissa: 2^-127..2^127 and NaN) has no encoding of 0")


def _fill(t, number):
    """`number` rounded once to the output type (0 and 1 are exact in every type that has them)."""
    return np.array([number], dtype=object) if t.dtype == "string" else np.array([number], dtype=t.np())


def _case(v, shape, fill):
    shape = np.array(shape, dtype=np.int64)
    return OPERATOR.expect(v, {"input": shape}, {"value": numpy_helper.from_array(fill, "value")})


@OPERATOR.example
def float_ones(v, t, rng):
    """onnx's test_constantofshape_float_ones: shape [4, 3, 2], value 1 (here in every T2)."""
    return _case(v, [4, 3, 2], _fill(t, 1))


@OPERATOR.example
def int_zeros(v, t, rng):
    """onnx's test_constantofshape_int_zeros: shape [10, 6], value 0 (here in every T2)."""
    if t.dtype == "float8e8m0":
        return NO_ZERO
    return _case(v, [10, 6], _fill(t, 0))


@OPERATOR.example
def int_shape_zero(v, t, rng):
    """onnx's test_constantofshape_int_shape_zero: shape [0], an empty output."""
    return _case(v, [0], data(t, (1,), rng))


@OPERATOR.example
def value(v, t, rng):
    """A value from the type's own data (its special encodings among them); 15 elements, odd."""
    pool = data(t, (4,), rng)
    return _case(v, [3, 1, 5], pool[int(rng.integers(0, 4)):][:1])


@OPERATOR.example
def rank0(v, t, rng):
    """'If empty tensor is given, the output would be a scalar.'"""
    return _case(v, [], data(t, (1,), rng))


@OPERATOR.example
def default_value(v, t, rng):
    """No value attribute: 'it defaults to a tensor of value 0 and datatype float32'."""
    if t.dtype != "float":
        return NotApplicable("without the value attribute the output is float: 'If not specified, it defaults "
                             "to a tensor of value 0 and datatype float32'")
    return OPERATOR.expect(v, {"input": np.array([2, 3], dtype=np.int64)})


@OPERATOR.rejection
def negative_dim(v, t, rng):
    """Rejection: a negative dimension in the shape input."""
    shape = np.array([2, -1], dtype=np.int64)
    fill = _fill(t, 1)
    return OPERATOR.reject(v, {"input": shape}, {"value": numpy_helper.from_array(fill, "value")},
                           {"output": declared(t.dtype, 2)})
