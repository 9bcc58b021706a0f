"""SequenceEmpty: an empty sequence of the tensor element type `dtype` (float when omitted)."""

from onnx_conformance.generators.case import Case, NotApplicable, Operator, Seq
from onnx_conformance.generators.sequence_family import elem
from onnx_conformance.harness.dtypes import elem_type_of

OPERATOR = Operator("SequenceEmpty")


@OPERATOR.example
def dtype(v, t, rng):
    return Case({}, {"output": Seq([], elem(t["S"]))}, {"dtype": elem_type_of(elem(t["S"]))})


@OPERATOR.example
def default(v, t, rng):
    """'(Optional) The data type of the tensors in the output sequence. The default type is 'float'.'"""
    if t["S"] != "seq(tensor(float))":
        return NotApplicable("without dtype the sequence is of float: 'The default type is 'float''")
    return Case({}, {"output": Seq([], "float")})
