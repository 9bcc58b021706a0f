"""Scan: the body run over slices of the scan input, carrying a state and stacking a scan output."""

import numpy as np
from onnx import helper

from onnx_conformance.generators import subgraph
from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import data, indices

OPERATOR = Operator("Scan", primary="V")


def body(t, shape, scan_output=True):
    """State and scan-input element of `shape`: the new state is the element, the scan output the old state,
    so the output is the input shifted by one iteration, the first slot holding the initial state."""
    V = t["V"]
    nodes = [helper.make_node("Identity", ["x_in"], ["state_out"])]
    outputs = [("state_out", V, shape)]
    if scan_output:
        nodes.append(helper.make_node("Identity", ["state_in"], ["y_out"]))
        outputs.append(("y_out", V, shape))
    return subgraph.graph("body", nodes, [("state_in", V, shape), ("x_in", V, shape)], outputs)


def scan(state, x, axis=0, reverse_in=False, out_axis=0, reverse_out=False):
    slices = [np.take(x, i, axis=axis) for i in range(x.shape[axis])]
    outs = []
    for element in reversed(slices) if reverse_in else slices:
        outs.append(state)
        state = element
    if reverse_out:  # 'prepending a new value in each iteration'
        outs.reverse()
    return state, np.stack(outs, axis=out_axis)


def scan8_case(t, rng, reverse=False, lens=False):
    """Scan-8: axis 0 of every input is the batch axis, axis 1 the sequence axis."""
    state, x = data(t, (2, 3), rng), data(t, (2, 4, 3), rng)
    finals, ys = zip(*(scan(state[b], x[b], reverse_in=reverse) for b in range(2)))
    attrs = {"body": body(t, [3]), "num_scan_inputs": 1}
    if reverse:
        attrs["directions"] = [1]
    inputs = {"sequence_lens": indices([4, 4]) if lens else None, "initial_state": state, "scan_input": x}
    return Case(inputs, {"final_state": np.stack(finals), "scan_output": np.stack(ys)}, attrs)


def scan9_case(t, rng, x_shape, axis=0, reverse=False, out_axis=0):
    """Scan-9 on: no batch axis; each scan input and output has its own axis and direction."""
    x = data(t, x_shape, rng)
    element = [d for k, d in enumerate(x_shape) if k != axis % len(x_shape)]
    state = data(t, element, rng)
    final, y = scan(state, x, axis, reverse, out_axis, reverse)
    attrs = {"body": body(t, element), "num_scan_inputs": 1}
    if axis:
        attrs["scan_input_axes"] = [axis]
    if out_axis:
        attrs["scan_output_axes"] = [out_axis]
    if reverse:
        attrs["scan_input_directions"] = [1]
        attrs["scan_output_directions"] = [1]
    return Case({"initial_state": state, "scan_input": x}, {"final_state": final, "scan_output": y}, attrs)


@OPERATOR.example(name="scan")
def scan_(v, t, rng):
    if v.since_version == 8:
        return scan8_case(t, rng)
    return scan9_case(t, rng, (4, 3))


@OPERATOR.example
def reverse(v, t, rng):
    """Scan-8 'directions'; Scan-9 on: scan_input_directions and scan_output_directions both 1."""
    if v.since_version == 8:
        return scan8_case(t, rng, reverse=True)
    return scan9_case(t, rng, (4, 3), reverse=True)


@OPERATOR.example
def axes(v, t, rng):
    """scan_input_axes and scan_output_axes 1 (Scan-11 on: -1, 'Negative value for an axis means counting
    dimensions from the back')."""
    if v.since_version == 8:
        return NotApplicable("Scan-8 has no scan_input_axes: its axis 0 is the batch axis, axis 1 the sequence axis")
    axis = 1 if v.since_version == 9 else -1
    return scan9_case(t, rng, (3, 4), axis=axis, out_axis=axis)


@OPERATOR.example
def sequence_lens(v, t, rng):
    """Scan-8's sequence_lens, every sequence at the full length (the spec leaves what a shorter one's
    scan output holds past its end unsaid)."""
    if v.since_version != 8:
        return NotApplicable("Scan-9 on has no sequence_lens input")
    return scan8_case(t, rng, lens=True)


@OPERATOR.example
def zero_length(v, t, rng):
    """A scan axis of length 0: the pseudo-code's loop 'for (int t = 0; t < sequence_length; ++t)' runs no
    iteration and returns the states as initialized. No scan output: the pseudo-code's is '[]', whose shape
    the spec leaves open."""
    batch = (2,) if v.since_version == 8 else ()
    state, x = data(t, batch + (3,), rng), data(t, batch + (0, 3), rng)
    attrs = {"body": body(t, [3], scan_output=False), "num_scan_inputs": 1}
    inputs = {"sequence_lens": None} if v.since_version == 8 else {}
    inputs.update(initial_state=state, scan_input=x)
    return Case(inputs, {"final_state": state}, attrs)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs('not implemented for other input axes', 'the evaluator implements scan axis 0 only')
OPERATOR.reference_differs('not implemented for other output input_direction',
                           'the evaluator implements the forward direction only')
OPERATOR.reference_differs('zero scan-input length|^zero_length .*Unable to find input', 'the evaluator refuses a scan axis of length 0')
OPERATOR.reference_differs("^(scan|reverse|zero_length|sequence_lens) .*(NoneType|shape \\(2,\\) != expected \\(2, 3\\))",
                           "the evaluator implements Scan-9's signature only: Scan-8's sequence_lens input and batch axis "
                           "are taken for a state")
