"""Loop: the body run for a trip count and/or while its condition holds, with loop-carried values and scan outputs."""

import numpy as np
import onnx.defs
from onnx import helper, numpy_helper

from onnx_conformance.generators import subgraph
from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import data

OPERATOR = Operator("Loop", primary="V")


def is_tensor(type_name):
    return "(" not in type_name


def loop_case(v, t, rng, trip_count, cond, stop_after=None, outer_scope=False, empty_b=False):
    """Loop-carried a and b swap places each iteration (the body outputs its inputs crossed); a tensor V
    also gets a scan output, a's value in each iteration. stop_after: a float counter carried too, the
    body's condition being 'counter < stop_after' after the increment. outer_scope: the scan output
    (the carried a, for a sequence or optional) reads the enclosing graph's v_initial_1 instead."""
    V = t["V"]
    a0, b0 = data(t, (2, 3), rng), data(t, (2, 3), rng)
    if empty_b and not is_tensor(V):
        b0 = subgraph.empty(V, rng)
    iterations = trip_count if trip_count is not None else 10**9
    if stop_after is not None:
        iterations = min(iterations, stop_after)
    nodes = []
    # Static element shapes let a runtime shape a scan output of zero iterations.
    shape = [2, 3] if is_tensor(V) else None
    body_in = [("iteration_num", "int64", []), ("cond_in", "bool", []), ("a_in", V, shape), ("b_in", V, shape)]
    body_out = [("cond_out", "bool", []), ("b_in", V, shape), ("a_in", V, shape)]  # crossed: a_out = b_in, b_out = a_in
    inputs = {"M": None if trip_count is None else np.array(trip_count, np.int64),
              "cond": None if cond is None else np.array(cond), "v_initial": a0, "v_initial_1": b0}
    a, b = (a0, b0) if iterations % 2 == 0 else (b0, a0)
    outputs = {"v_final": a, "v_final_1": b}
    if stop_after is None:
        nodes.append(helper.make_node("Identity", ["cond_in"], ["cond_out"]))
    else:
        body_in.append(("counter_in", "float", []))
        body_out.append(("counter_out", "float", []))
        nodes += [helper.make_node("Constant", [], ["one"], value=numpy_helper.from_array(np.array(1.0, np.float32))),
                  helper.make_node("Constant", [], ["limit"], value=numpy_helper.from_array(np.array(stop_after - 0.5, np.float32))),
                  helper.make_node("Add", ["counter_in", "one"], ["counter_out"]),
                  helper.make_node("Less", ["counter_out", "limit"], ["cond_out"])]
        inputs["v_initial_2"] = np.array(0.0, np.float32)
        outputs["v_final_2"] = np.array(float(iterations), np.float32)
    if outer_scope and not is_tensor(V):
        why = identity_lacks(V, v)
        if why:
            return NotApplicable(why)
        # a_out reads the enclosing graph's b0 instead of b_in: after one iteration or more, a holds b0.
        body_out[1] = ("a_outer", V)
        nodes.append(helper.make_node("Identity", ["v_initial_1"], ["a_outer"]))
        outputs["v_final"] = b0
        outputs["v_final_1"] = a0 if iterations == 1 else b0
    if is_tensor(V):
        source = "v_initial_1" if outer_scope else "a_in"
        nodes.append(helper.make_node("Identity", [source], ["a_scan"]))
        body_out.append(("a_scan", V, shape))
        per_iteration = [b0 if outer_scope else (a0 if i % 2 == 0 else b0) for i in range(iterations)]
        outputs["scan_output"] = np.stack(per_iteration) if per_iteration else np.empty((0, 2, 3), a0.dtype)
    body = subgraph.graph("body", nodes, body_in, body_out)
    return Case(inputs, outputs, {"body": body})


def identity_lacks(type_name, v):
    schema = onnx.defs.get_schema("Identity", v.first_opset)
    allowed = schema.type_constraints[0]
    if type_name not in allowed.allowed_type_strs:
        return (f"the body's Identity-{schema.since_version} ('{allowed.description}') omits {type_name}, "
                "so a body cannot copy an enclosing value of that type")
    return None


@OPERATOR.example
def trip_count(v, t, rng):
    """input (trip_count, ''): a for loop; a sequence or optional b starts empty."""
    return loop_case(v, t, rng, 3, None, empty_b=True)


@OPERATOR.example
def condition(v, t, rng):
    """input ('', cond): a while loop, stopped by the body's condition after three iterations."""
    return loop_case(v, t, rng, None, True, stop_after=3)


@OPERATOR.example
def trip_count_and_condition(v, t, rng):
    """input (trip_count, cond): the trip count ends the loop before the condition would."""
    return loop_case(v, t, rng, 2, True, stop_after=3)


@OPERATOR.example
def zero_iterations(v, t, rng):
    """A trip count of 0: the loop-carried values are the initial ones, the scan output is empty."""
    return loop_case(v, t, rng, 0, True)


@OPERATOR.example
def outer_scope(v, t, rng):
    """'Values from the enclosing scope (i.e. variable "a" here) are in scope and can be referenced in the
    inputs of the loop.'"""
    return loop_case(v, t, rng, 3, None, outer_scope=True)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    '^(trip_count|outer_scope) ',
    "the evaluator loops 'while cond and ...': with cond omitted it runs no iteration, where the spec's "
    "input (trip_count, '') is a for loop of trip_count iterations",
)
OPERATOR.reference_differs(
    '^zero_iterations .*need at least one array',
    'the evaluator joins scan outputs with np.vstack, which fails on zero iterations; the spec\'s scan output is then empty',
)
OPERATOR.reference_differs(
    '^(condition|trip_count_and_condition) .*shape',
    "the evaluator joins scan outputs with np.vstack (concatenating along the first axis); the spec stacks them, "
    "'user_defined_vals[i] = user_defined_val'",
)
