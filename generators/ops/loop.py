"""Loop: the body run for a trip count and/or while its condition holds, with loop-carried values and scan outputs."""

import numpy as np
import onnx.defs
from onnx import helper, numpy_helper

from onnx_conformance.generators import subgraph
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import Undefined
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = Operator("Loop", primary="V")


@OPERATOR.semantics
def loop(v, attrs, inputs):
    """The spec's pseudo-code: the body runs while i < M (when M is given) and cond holds (when cond is
    given; the body's condition output is then the next test, and is ignored otherwise), taking
    (i, cond, carried values) and giving (cond, carried values, scan values); the outputs are the final
    carried values and each scan value stacked over the iterations."""
    body = attrs["body"]
    trip, cond = inputs.get("M"), inputs.get("cond")
    if trip is None and cond is None:
        raise Undefined("input (\"\", \"\"): 'for (int i=0; ; ++i)' never ends")
    carried = list(inputs["v_initial"])
    n = len(carried)
    keep_going = True if cond is None else bool(np.asarray(cond).reshape(-1)[0])
    scans: list[list] | None = None
    i = 0
    while (trip is None or i < int(np.asarray(trip).reshape(-1)[0])) and keep_going:
        out = body(np.array(i, np.int64), np.array(keep_going), *carried)
        if cond is not None:
            keep_going = bool(np.asarray(out[0]).reshape(-1)[0])
        carried = list(out[1:1 + n])
        if scans is None:
            scans = [[] for _ in out[1 + n:]]
        for kept, value in zip(scans, out[1 + n:]):
            kept.append(value)
        i += 1
    if scans is None:  # no iteration: each scan output is empty, shaped by the body's declared output
        scans = [[] for _ in range(len(body.output_names) - 1 - n)]
    return {"v_final_and_scan_outputs": carried + [_stacked(body, 1 + n + k, s) for k, s in enumerate(scans)]}


def _stacked(body, position: int, values: list):
    """Scan values of every iteration stacked on a new first axis: 'user_defined_vals[i] = user_defined_val'."""
    if values:
        return np.stack([np.asarray(x) for x in values])
    type_name, shape = body.output_type(position)
    if shape is None:
        raise Undefined("a loop of no iteration, and a scan output whose shape the body does not state")
    return np.empty((0, *shape), numpy_of(type_name))


def is_tensor(type_name):
    return "(" not in type_name


def loop_case(v, t, rng, trip_count, cond, stop_after=None, outer_scope=False, empty_b=False, scan=True):
    """Loop-carried a and b swap places each iteration (the body outputs its inputs crossed); a tensor V
    also gets a scan output, a's value in each iteration. stop_after: a float counter carried too, the
    body's condition being 'counter < stop_after' after the increment. outer_scope: the scan output
    (the carried a, for a sequence or optional) reads the enclosing graph's v_initial_1 instead.
    scan=False: no scan output, the loop-carried values only."""
    V = t["V"]
    a0, b0 = data(t, (2, 3), rng), data(t, (2, 3), rng)
    if empty_b and not is_tensor(V):
        b0 = subgraph.empty(V, rng)
    nodes = []
    # Static element shapes let a runtime shape a scan output of zero iterations.
    shape = [2, 3] if is_tensor(V) else None
    body_in = [("iteration_num", "int64", []), ("cond_in", "bool", []), ("a_in", V, shape), ("b_in", V, shape)]
    body_out = [("cond_out", "bool", []), ("b_in", V, shape), ("a_in", V, shape)]  # crossed: a_out = b_in, b_out = a_in
    inputs = {"M": None if trip_count is None else np.array(trip_count, np.int64),
              "cond": None if cond is None else np.array(cond), "v_initial": a0, "v_initial_1": b0}
    outputs = ["v_final", "v_final_1"]
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
        outputs.append("v_final_2")
    if outer_scope and not is_tensor(V):
        why = identity_lacks(V, v)
        if why:
            return NotApplicable(why)
        # a_out reads the enclosing graph's b0 instead of b_in: after one iteration or more, a holds b0.
        body_out[1] = ("a_outer", V)
        nodes.append(helper.make_node("Identity", ["v_initial_1"], ["a_outer"]))
    if is_tensor(V) and scan:
        source = "v_initial_1" if outer_scope else "a_in"
        nodes.append(helper.make_node("Identity", [source], ["a_scan"]))
        body_out.append(("a_scan", V, shape))
        outputs.append("scan_output")
    body = subgraph.graph("body", nodes, body_in, body_out)
    return OPERATOR.expect(v, inputs, {"body": body}, outputs=outputs)


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
def trip_count_and_false_condition(v, t, rng):
    """input (trip_count 3, cond false): cond 'determines whether to run the first iteration', so none runs
    and a and b keep their initial values (a do-while would swap them). No scan output: zero_iterations
    has the empty one."""
    return loop_case(v, t, rng, 3, False, scan=False)


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
