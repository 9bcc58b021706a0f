"""Control flow: If (branches of drawn types and shapes, rank 0 and empty included), Loop (trip count, condition, both, zero iterations, several loop-carried values, scan outputs) and Scan (states, several scan inputs, their axes and directions, output axes and directions; Scan-8's batch axis and sequence_lens).

The bodies are small templates filled with drawn choices: If's branches make their value inside the
branch (Constant, SequenceConstruct, Optional: generators/ops/if.py's `branch`) or read it from the
enclosing graph; Loop's body passes its loop-carried values on rotated by one place (so a wrong
iteration count shows), stops through a float counter compared with a drawn limit where a condition is
given, and stacks the iteration number or a loop-carried value as scan outputs; Scan's body carries
each state on unchanged, replaces it by a slice, or adds the slice to it (numeric types), and emits states
or slices as scan outputs. Values are the family's usual tensors (sequences.value_of for sequences and
optionals). Left out: a scan axis of length 0 with a scan output, and Scan-8's sequence_lens shorter than
the axis (the spec leaves both open: the semantics say Undefined); a Loop with neither M nor cond (endless).
"""

from __future__ import annotations

import importlib

import numpy as np
from hypothesis import strategies as st
from onnx import helper, numpy_helper

from onnx_conformance.generators import subgraph
from onnx_conformance.generators.case import Opt, Seq
from onnx_conformance.harness.strategies.common import Family, Probe, dims, shapes, tensors
from onnx_conformance.harness.strategies.sequences import value_of

BODY_ELEMENTS = 256  # elements of a loop-carried value or a slice, at most
MAX_TRIPS = 64
OTHER_CARRIED = ("int64", "bool", "string", "double")  # a second loop-carried type beside V


def _is_tensor(type_name: str) -> bool:
    return "(" not in type_name


class ControlFlow(Family):
    name = "control flow"
    operators = ("If", "Loop", "Scan")

    def strategy(self, op, v, t):
        return {"If": _if, "Loop": _loop, "Scan": _scan}[op.name](op, v, t)

    def case(self, op, v, t, probe):
        # exact, like every example of the three (their bodies copy values; a drawn Add rounds once per
        # step): no example is built for a tolerance, which cost more than the draw in each of ~60 bindings
        return op.expect(v, probe.inputs, probe.attrs, outputs=probe.outputs, outer=probe.extra.get("outer", {}))


def _cond(draw, label="cond") -> np.ndarray:
    """One bool element, of rank 0 or 1 ('The tensor must contain a single element')."""
    shape = draw(st.sampled_from([(), (1,)]), label=f"{label} shape")
    return np.full(shape, draw(st.booleans(), label=label))


@st.composite
def _if(draw, op, v, t):
    branch = importlib.import_module("onnx_conformance.generators.ops.if").branch
    V = t["V"]
    then_value = draw(value_of(V), label="then value")
    if v.since_version == 1 and _is_tensor(V):  # If-1: 'must be of the same shape'
        else_value = draw(tensors(V, np.shape(then_value), operand=1), label="else value")
    else:  # 'may produce tensors with the same element type and different shapes'
        else_value = draw(value_of(V), label="else value")
    outer = {}
    attrs = {}
    for name, value in (("then", then_value), ("else", else_value)):
        if _is_tensor(V) and draw(st.booleans(), label=f"{name} reads the enclosing graph"):
            outer[f"{name}_outer"] = value
            nodes = [helper.make_node("Identity", [f"{name}_outer"], [f"{name}_out"])]
            attrs[f"{name}_branch"] = subgraph.graph(name, nodes, [], [(f"{name}_out", V)])
        else:
            attrs[f"{name}_branch"] = branch(name, value, V, v.first_opset, outer)
    return Probe({"cond": _cond(draw)}, attrs, outputs=["outputs"], extra={"outer": outer})


@st.composite
def _loop(draw, op, v, t):
    V = t["V"]
    tensor = _is_tensor(V)
    k = draw(st.integers(1, 3), label="loop-carried values")
    shape = tuple(draw(shapes(0, 3, BODY_ELEMENTS), label="carried shape")) if tensor else None
    if tensor:
        carried = [draw(tensors(V, shape, operand=i), label=f"v_initial {i}") for i in range(k)]
    else:  # shaped alike: the values rotate, and onnx's inference gives each v_final its v_initial's shapes
        first = draw(value_of(V), label="v_initial 0")
        carried = [first] + [draw(_alike(first, V, i), label=f"v_initial {i}") for i in range(1, k)]
    form = draw(st.sampled_from(["trip count", "condition", "both"]), label="form")
    inputs = {"M": None, "cond": None}
    if form != "condition":
        inputs["M"] = np.array(draw(st.one_of(st.integers(0, 5), dims(MAX_TRIPS)), label="M"), np.int64)
    if form != "trip count":
        inputs["cond"] = _cond(draw, "initial cond")
    declared = list(shape) if tensor else None
    # the body's condition input is declared as the loop's is shaped: onnx's inference passes it on
    cond_shape = list(np.shape(inputs["cond"])) if inputs["cond"] is not None else []
    body_in = [("iteration_num", "int64", []), ("cond_in", "bool", cond_shape)]
    body_in += [(f"c{i}_in", V, declared) for i in range(k)]
    body_out = [("cond_out", "bool", None)]
    nodes = []
    for i in range(k):  # rotated by one place each iteration
        if tensor:
            nodes.append(helper.make_node("Identity", [f"c{(i + 1) % k}_in"], [f"c{i}_out"]))
            body_out.append((f"c{i}_out", V, declared))
        else:  # the body's input itself: Identity takes sequences and optionals of fewer types than Loop
            body_out.append((f"c{(i + 1) % k}_in", V, declared))
    for i, x in enumerate(carried):
        inputs[f"v_initial{'_' + str(i) if i else ''}"] = x
    outputs = ["v_final"] + [f"v_final_{i}" for i in range(1, k)]
    counted = form == "condition" or (form == "both" and draw(st.booleans(), label="body stops the loop"))
    if counted:  # counter_out = counter_in + 1; cond_out = counter_out < stop (a float counter, as the corpus's)
        stop = draw(st.one_of(st.integers(0, 5), dims(MAX_TRIPS)), label="stop after")
        nodes += [helper.make_node("Constant", [], ["one"], value=numpy_helper.from_array(np.array(1.0, np.float32))),
                  helper.make_node("Constant", [], ["limit"],
                                   value=numpy_helper.from_array(np.array(stop - 0.5, np.float32))),
                  helper.make_node("Add", ["counter_in", "one"], ["counter_out"]),
                  helper.make_node("Less", ["counter_out", "limit"], ["cond_out"])]
        body_in.append(("counter_in", "float", []))
        body_out.append(("counter_out", "float", []))
        inputs[f"v_initial_{k}"] = np.array(0.0, np.float32)
        outputs.append(f"v_final_{k}")
    else:
        nodes.append(helper.make_node("Identity", ["cond_in"], ["cond_out"]))
    if draw(st.booleans(), label="a carried value of another type"):  # v_initial is heterogeneous
        other = draw(st.sampled_from(OTHER_CARRIED), label="its type")
        position = len(body_out) - 1
        x = draw(tensors(other, draw(shapes(0, 2, 16), label="its shape"), operand=5), label="it")
        inputs[f"v_initial_{position}"] = x
        body_in.append(("other_in", other, list(x.shape)))
        nodes.append(helper.make_node("Identity", ["other_in"], ["other_out"]))
        body_out.append(("other_out", other, list(x.shape)))
        outputs.append(f"v_final_{position}")
    for j in range(draw(st.integers(0, 2), label="scan outputs")):  # tensors only: 'scan_outputs' stack tensors
        source = draw(st.sampled_from(["iteration_num"] + ([f"c{i}_in" for i in range(k)] if tensor else [])),
                      label="scan source")
        nodes.append(helper.make_node("Identity", [source], [f"scan{j}"]))
        body_out.append((f"scan{j}", "int64", []) if source == "iteration_num" else (f"scan{j}", V, declared))
        outputs.append(f"scan_output_{j}")
    body = subgraph.graph("body", nodes, body_in, body_out)
    return Probe(inputs, {"body": body}, outputs=outputs)


@st.composite
def _alike(draw, value, type_name: str, operand: int):
    """A value of `type_name` with `value`'s structure (empty or not, length, the tensors' shapes) and
    new elements."""
    if isinstance(value, Opt):
        return Opt(None if value.value is None else draw(_alike(value.value, value.type, operand)), value.type)
    if isinstance(value, Seq):
        return Seq([draw(tensors(value.elem, x.shape, operand=operand)) for x in value.items], value.elem)
    return draw(tensors(type_name, value.shape, operand=operand))


@st.composite
def _scan(draw, op, v, t):
    V = t["V"]
    n_states = draw(st.integers(1, 2), label="states")
    m = draw(st.integers(1, 2), label="scan inputs")
    element = tuple(draw(shapes(0, 3, BODY_ELEMENTS), label="element shape"))
    r = len(element)
    length = draw(st.one_of(st.integers(1, 5), dims(33).filter(bool)), label="sequence length")
    numeric = V in ("int32", "int64", "float16", "float", "double")  # Add's types from version 7 on
    batch = (draw(st.integers(1, 3), label="batch"),) if v.since_version == 8 else ()
    nodes, body_out, attrs = [], [], {"num_scan_inputs": m}
    for j in range(n_states):
        how = draw(st.sampled_from(["keep", "slice"] + (["add"] if numeric else [])), label=f"state {j}")
        x = f"x{j % m}_in"
        if how == "keep":
            nodes.append(helper.make_node("Identity", [f"s{j}_in"], [f"s{j}_out"]))
        elif how == "slice":
            nodes.append(helper.make_node("Identity", [x], [f"s{j}_out"]))
        else:
            nodes.append(helper.make_node("Add", [f"s{j}_in", x], [f"s{j}_out"]))
        body_out.append((f"s{j}_out", V, list(element)))
    k = draw(st.integers(0, 2), label="scan outputs")
    for j in range(k):
        source = draw(st.sampled_from([f"s{i}_in" for i in range(n_states)] + [f"x{i}_in" for i in range(m)]),
                      label="scan output source")
        nodes.append(helper.make_node("Identity", [source], [f"y{j}"]))
        body_out.append((f"y{j}", V, list(element)))
    body_in = [(f"s{j}_in", V, list(element)) for j in range(n_states)]
    body_in += [(f"x{i}_in", V, list(element)) for i in range(m)]
    attrs["body"] = subgraph.graph("body", nodes, body_in, body_out)
    negative = v.since_version >= 11  # 'Negative value for an axis means counting dimensions from the back'
    inputs = {}
    if v.since_version == 8:
        if draw(st.booleans(), label="give sequence_lens"):  # all at full length: shorter ones leave the outputs open
            inputs["sequence_lens"] = np.full(batch, length, np.int64)
        else:
            inputs["sequence_lens"] = None
        if draw(st.booleans(), label="give directions"):
            attrs["directions"] = [draw(st.sampled_from([0, 1]), label="direction") for _ in range(m)]
    for j in range(n_states):
        inputs[f"state_{j}"] = draw(tensors(V, batch + element, operand=j), label=f"state {j}")
    in_axes, in_dirs = [], []
    for i in range(m):
        if v.since_version == 8:
            shape = batch + (length,) + element
        else:
            axis = draw(st.integers(0, r), label="scan input axis")
            in_axes.append(axis - (r + 1) if negative and draw(st.booleans(), label="negative axis") else axis)
            in_dirs.append(draw(st.sampled_from([0, 1]), label="scan input direction"))
            shape = element[:axis] + (length,) + element[axis:]
        inputs[f"scan_input_{i}"] = draw(tensors(V, shape, operand=n_states + i), label=f"scan input {i}")
    if v.since_version > 8:
        if any(in_axes) or draw(st.booleans(), label="give scan_input_axes"):
            attrs["scan_input_axes"] = in_axes
        if any(in_dirs) or draw(st.booleans(), label="give scan_input_directions"):
            attrs["scan_input_directions"] = in_dirs
        if k:
            out_axes = [draw(st.integers(-(r + 1) if negative else 0, r), label="scan output axis") for _ in range(k)]
            out_dirs = [draw(st.sampled_from([0, 1]), label="scan output direction") for _ in range(k)]
            if any(out_axes) or draw(st.booleans(), label="give scan_output_axes"):
                attrs["scan_output_axes"] = out_axes
            if any(out_dirs) or draw(st.booleans(), label="give scan_output_directions"):
                attrs["scan_output_directions"] = out_dirs
    outputs = [f"final_state_{j}" for j in range(n_states)] + [f"scan_output_{j}" for j in range(k)]
    return Probe(inputs, attrs, outputs=outputs)
