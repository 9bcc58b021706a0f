"""SequenceEmpty: an empty sequence of the tensor element type `dtype` (float when omitted)."""

from onnx_conformance.generators.case import NotApplicable, Operator, Seq
from onnx_conformance.generators.semantics import attr
from onnx_conformance.generators.sequence_family import elem
from onnx_conformance.harness.dtypes import elem_type_of, name_of

OPERATOR = Operator("SequenceEmpty")


@OPERATOR.semantics
def sequence_empty(v, attrs, inputs):
    """No tensor, of element type `dtype`: "The default type is 'float'."""
    return {"output": Seq([], name_of(attr(attrs, "dtype", elem_type_of("float"))))}


@OPERATOR.example
def dtype(v, t, rng):
    return OPERATOR.expect(v, {}, {"dtype": elem_type_of(elem(t["S"]))})


@OPERATOR.example
def default(v, t, rng):
    """'(Optional) The data type of the tensors in the output sequence. The default type is 'float'.'"""
    if t["S"] != "seq(tensor(float))":
        return NotApplicable("without dtype the sequence is of float: 'The default type is 'float''")
    return OPERATOR.expect(v, {})
