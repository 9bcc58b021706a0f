"""If: the outputs of then_branch when cond is true, else of else_branch, for every tensor, sequence and optional type."""

import numpy as np
import onnx.defs
from onnx import helper, numpy_helper

from onnx_conformance.generators import subgraph
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import Rejected

OPERATOR = Operator("If", primary="V")


@OPERATOR.semantics
def if_(v, attrs, inputs):
    """The outputs of then_branch when cond is true, else of else_branch; cond holds one element."""
    cond = np.asarray(inputs["cond"])
    if cond.size != 1:
        raise Rejected(" ".join(v.schema.inputs[0].description.split()))
    branch = attrs["then_branch"] if bool(cond.reshape(-1)[0]) else attrs["else_branch"]
    return {"outputs": branch()}


def branch(name, value, declared, opset, outer):
    """A body with no inputs whose one output, of the bound type with unknown shape, is `value`: made
    inside the body where an operator of that opset can make it, else taken from the enclosing graph
    (a body's output must be some node's output): copied by Identity where Identity takes the type,
    else carried through a Loop that runs no iteration (Loop's V is If's V)."""
    if subgraph.unmakeable(value, opset) is None:
        return subgraph.graph(name, subgraph.producer(f"{name}_out", value), [], [(f"{name}_out", declared)])
    outer[f"{name}_value"] = value
    identity = onnx.defs.get_schema("Identity", opset)
    allowed = next(c for c in identity.type_constraints if c.type_param_str == identity.inputs[0].type_str)
    if (declared if "(" in declared else f"tensor({declared})") in allowed.allowed_type_strs:
        nodes = [helper.make_node("Identity", [f"{name}_value"], [f"{name}_out"])]
    else:
        body = subgraph.graph(f"{name}_carry", [helper.make_node("Identity", ["cond_in"], ["cond_out"])],
                              [("iteration", "int64", []), ("cond_in", "bool", []), ("carried", declared)],
                              [("cond_out", "bool", []), ("carried", declared)])
        nodes = [helper.make_node("Constant", [], [f"{name}_false"], value=numpy_helper.from_array(np.array(False))),
                 helper.make_node("Loop", ["", f"{name}_false", f"{name}_value"], [f"{name}_out"], body=body)]
    return subgraph.graph(name, nodes, [], [(f"{name}_out", declared)])


def if_case(v, t, cond, then_value, else_value):
    outer = {}
    attrs = {"then_branch": branch("then", then_value, t["V"], v.first_opset, outer),
             "else_branch": branch("else", else_value, t["V"], v.first_opset, outer)}
    return OPERATOR.expect(v, {"cond": np.array(cond)}, attrs, outputs=["outputs"], outer=outer)


@OPERATOR.example(name="if")
def if_example(v, t, rng):
    """The documented shape: two branches of five elements each; cond true."""
    return if_case(v, t, True, data(t, (5,), rng), data(t, (5,), rng))


@OPERATOR.example
def differing_shapes(v, t, rng):
    """cond false. If-11 on: 'The `then_branch` and
    `else_branch` may produce tensors with the same element type and different shapes'."""
    # If-1: 'The return values in the `then_branch` and `else_branch` must be of the same shape'.
    return if_case(v, t, False, data(t, (2, 3), rng), data(t, (2, 3) if v.since_version == 1 else (4, 2), rng))


@OPERATOR.example
def rank0(v, t, rng):
    """cond true: then_branch gives a rank-0 value (shape (), not (1,)); else_branch a one-element vector
    from If-11 (If-1: 'must be of the same shape', so rank 0 too)."""
    return if_case(v, t, True, data(t, (), rng), data(t, () if v.since_version == 1 else (1,), rng))


@OPERATOR.example
def empty(v, t, rng):
    """A zero-sized tensor, an empty sequence, an empty optional from the branch taken."""
    return if_case(v, t, True, subgraph.empty(t["V"], rng), subgraph.empty(t["V"], rng) if v.since_version == 1 else data(t, (3,), rng))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    '^\\w+ optional\\(',
    "the evaluator's Optional returns its input wrapped in a one-element list ([None] when empty), not the optional's value",
)
