"""Reshape: the same elements in row-major order, in the shape the `shape` list (attribute in version 1, input from 5) gives."""

import math

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data, declared
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.generators.shape_family import ints_argument, ints_given

OPERATOR = Operator("Reshape")


@OPERATOR.semantics
def reshape(v, attrs, inputs):
    """The elements in row-major order in the new shape: 0 copies the input's dimension (unless
    'allowzero', version 14 on), 'At most one dimension of the new shape can be -1', inferred from the rest."""
    x = inputs["data"]
    shape = ints_given(v, "shape", attrs, inputs) or []
    allowzero = attr(attrs, "allowzero", 0) if v.has_attribute("allowzero") else 0
    if shape.count(-1) > 1:
        raise Rejected(v.sentence(r"At most one dimension of the new shape can be -1"))
    if allowzero and 0 in shape and -1 in shape:
        raise Rejected(v.sentence(r"it is invalid for the specified shape to contain both"))
    if any(s < -1 for s in shape):
        raise Undefined(f"shape {shape}: a dimension below -1 has no meaning in the spec")
    if not allowzero and any(s == 0 and i >= x.ndim for i, s in enumerate(shape)):
        raise Undefined(f"shape {shape}: a 0 past the input's rank {x.ndim} has no input dimension to copy")
    out = resolve(x.shape, shape, allowzero)
    if out is None or math.prod(out) != x.size:
        raise Rejected(v.sentence(r"required to have the same number of elements"))
    return {"reshaped": x.reshape(out)}


def resolve(in_shape, shape, allowzero=0):
    """The output shape: 0 copies the input's dimension unless allowzero, one -1 takes what is left
    (None where the rest do not divide the element count: no -1 fits)."""
    out = [in_shape[i] if s == 0 and not allowzero else s for i, s in enumerate(shape)]
    if -1 in out:
        rest = math.prod(d for d in out if d != -1)
        if rest == 0:
            raise Undefined(f"shape {shape}: the other dimensions multiply to 0, so any -1 fits")
        if math.prod(in_shape) % rest:
            return None
        out[out.index(-1)] = math.prod(in_shape) // rest
    return tuple(out)


def reshape_case(v, t, rng, in_shape, shape, allowzero=None):
    x = data(t, in_shape, rng)
    inputs, attrs = {"data": x}, {}
    ints_argument(v, "shape", shape, inputs, attrs)
    if allowzero is not None:
        attrs["allowzero"] = allowzero
    return OPERATOR.expect(v, inputs, attrs)


# The documented examples: a [2, 3, 4] tensor into each of these shapes.
DOCUMENTED = {
    "reordered_all_dims": [4, 2, 3],
    "reordered_last_dims": [2, 4, 3],
    "reduced_dims": [2, 12],
    "extended_dims": [2, 3, 2, 2],
    "one_dim": [24],
    "negative_dim": [2, -1, 2],
    "negative_extended_dims": [-1, 2, 3, 4],
    "zero_dim": [2, 0, 4, 1],
    "zero_and_negative_dim": [2, 0, 1, -1],
}


def documented(shape):
    return lambda v, t, rng: reshape_case(v, t, rng, (2, 3, 4), shape)


for _name, _shape in DOCUMENTED.items():
    OPERATOR.example(documented(_shape), name=_name)


@OPERATOR.example
def allowzero_reordered(v, t, rng):
    if not v.has_attribute("allowzero"):
        return NotApplicable(f"Reshape-{v.since_version} has no attribute allowzero (from version 14: "
                             "\"If 'allowzero' is set, and the new shape includes 0, the dimension will be set "
                             "explicitly to zero (i.e. not taken from input tensor).\")")
    return reshape_case(v, t, rng, (0, 3, 4), [3, 4, 0], allowzero=1)


@OPERATOR.example
def scalar(v, t, rng):
    """'Shape (second input) could be an empty shape, which means converting to a scalar.'"""
    if not v.has_input("shape"):
        # make_node infers an attribute's type from its elements: an empty list has none to say INTS.
        return NotApplicable("Reshape-1 takes shape as an INTS attribute, and the case model cannot write "
                             "an empty INTS attribute (onnx.helper.make_node cannot infer its type)")
    return reshape_case(v, t, rng, (1, 1, 1), [])


@OPERATOR.example
def odd(v, t, rng):
    """An odd element count, for the types packed several to a byte."""
    return reshape_case(v, t, rng, (3, 1, 5), [5, -1])


@OPERATOR.rejection
def two_negative_dims(v, t, rng):
    inputs, attrs = {"data": data(t, (2, 3, 4), rng)}, {}
    ints_argument(v, "shape", [2, -1, -1], inputs, attrs)
    return OPERATOR.reject(v, inputs, attrs, {"reshaped": declared(t.dtype, 3)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"No implementation for operator 'Reshape' domain '' and version [1-4],",
    'the evaluator has no Reshape-1',
)
