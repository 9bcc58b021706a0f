"""Control flow: a Loop refining square roots (Heron's method) with an If in its body choosing each
iteration's step, stopping when the step is small or the trip count runs out, and an If after the Loop
taking one more step where the result is still off.

What runtimes do with it: run the Loop and If subgraphs with outer-scope values (a, the constants),
carry y between iterations, stack the scan output over however many iterations ran, and constant-fold
or inline an If whose condition they can decide (onnxruntime's control-flow kernels and
ConstantFolding, OpenVINO's Loop/TensorIterator and If). In the body, while every y^2 exceeds 4a the
step halves y, else it is Heron's y <- (y + a / y) / 2; the loop goes on while the largest change
exceeds tol and fewer than M iterations ran. Each decision has a wide margin, so rounding cannot flip
it: a flipped decision is a runtime reading the condition, the outer scope or the carried value wrong.
`converges_early` stops on tol before M; `trip_count_bound` stops on M = 2 and the If after the Loop
takes its extra step; `halving_first` starts far above the roots, so the body's If halves y first;
`no_iteration` has M = 0: y is its initial value and the scan output of the steps is empty."""

import numpy as np
from onnx import TensorProto, helper

from onnx_conformance.generators import subgraph
from onnx_conformance.generators.graphs import FLOATS, Graph, GraphFamily, cast_to
from onnx_conformance.generators.models._weights import node

FAMILY = GraphFamily("IterativeRefinement", "model", targets=(
    "Loop (trip count and condition, loop-carried value, scan output), If (in the body and after the loop)",
    "Div, Mul, Add, Sub, Abs, ReduceMax, ReduceMin, Greater, Identity",
    "onnxruntime: Loop/If kernels, ConstantFolding of If; OpenVINO: Loop/TensorIterator, If",
), types=FLOATS)

ELEM = {"bfloat16": TensorProto.BFLOAT16, "float16": TensorProto.FLOAT16, "float": TensorProto.FLOAT,
        "double": TensorProto.DOUBLE}


def _branch(name, nodes, out, t):
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(out, ELEM[t], None)])


def _body(t):
    """(i, cond, y) -> (delta > tol, y', delta): y' = y / 2 while min(y^2 / a) > 4, else (y + a / y) / 2."""
    halve = _branch("halve", [node("Mul", ["y", "half"], ["halved"])], "halved", t)
    heron = _branch("heron", [node("Div", ["a", "y"], ["quotient"]), node("Add", ["y", "quotient"], ["total"]),
                              node("Mul", ["total", "half"], ["heroned"])], "heroned", t)
    nodes = [node("Mul", ["y", "y"], ["square"]), node("Div", ["square", "a"], ["ratio"]),
             node("ReduceMin", ["ratio"], ["smallest"], keepdims=0), node("Greater", ["smallest", "four"], ["far"]),
             node("If", ["far"], ["y_next"], then_branch=halve, else_branch=heron),
             node("Sub", ["y_next", "y"], ["step"]), node("Abs", ["step"], ["size"]),
             node("ReduceMax", ["size"], ["delta"], keepdims=0), node("Greater", ["delta", "tol"], ["go_on"])]
    return subgraph.graph("refine", nodes, [("i", "int64", []), ("cond", "bool", []), ("y", t, None)],
                          [("go_on", "bool", []), ("y_next", t, None), ("delta", t, [])])


def _graph(t, a, y0, trips, tol):
    """a and y0 (4,) fed; outputs the refined y and the scan of each iteration's largest step."""
    polish = _branch("polish", [node("Div", ["a", "y_loop"], ["q"]), node("Add", ["y_loop", "q"], ["s"]),
                                node("Mul", ["s", "half"], ["polished"])], "polished", t)
    keep = _branch("keep", [node("Identity", ["y_loop"], ["kept"])], "kept", t)
    nodes = [node("Loop", ["trips", "start", "y0"], ["y_loop", "deltas"], body=_body(t)),
             node("Mul", ["y_loop", "y_loop"], ["y2"]), node("Sub", ["y2", "a"], ["residual"]),
             node("Abs", ["residual"], ["error"]), node("ReduceMax", ["error"], ["worst"], keepdims=0),
             node("Greater", ["worst", "tol"], ["off"]),
             node("If", ["off"], ["y"], then_branch=polish, else_branch=keep)]
    weights = {"trips": np.array(trips, dtype=np.int64), "start": np.array(True), "half": cast_to(0.5, t),
               "four": cast_to(4.0, t), "tol": cast_to(tol, t)}
    return Graph(nodes, inputs={"a": cast_to(a, t), "y0": cast_to(y0, t)}, outputs=["y", "deltas"],
                 weights=weights)


@FAMILY.example
def converges_early(t, rng):
    """a = (16, 2, 9, 0.25) from y0 = a: the largest step falls below 0.25 after four iterations of at most 10."""
    return _graph(t, [16, 2, 9, 0.25], [16, 2, 9, 0.25], 10, 0.25)


@FAMILY.example
def trip_count_bound(t, rng):
    """The same roots, M = 2: the loop stops far from them and the If after it takes one more step."""
    return _graph(t, [16, 2, 9, 0.25], [16, 2, 9, 0.25], 2, 0.25)


@FAMILY.example
def halving_first(t, rng):
    """y0 = 40 for a = (3, 5, 7, 1): y^2 > 4a everywhere, so the body halves y until it does not."""
    return _graph(t, [3, 5, 7, 1], [40, 40, 40, 40], 12, 0.125)


@FAMILY.example
def no_iteration(t, rng):
    """M = 0: y is y0 (then one polishing step), the scan of steps is empty."""
    return _graph(t, [16, 2, 9, 0.25], [4, 1, 3, 1], 0, 0.25)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
FAMILY.reference_differs(r"output 1 shape \(\d+, 1\) != expected \(\d+,\)",
                         "the evaluator joins Loop's scan outputs with np.vstack, making each iteration's scalar a row "
                         "of a column; the spec stacks them, 'user_defined_vals[i] = user_defined_val'")
FAMILY.reference_differs(r"^no_iteration\w* \w+: .*need at least one array",
                         "the evaluator joins Loop's scan outputs with np.vstack, which fails on zero iterations; "
                         "the spec's scan output is then empty")
