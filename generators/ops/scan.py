"""Scan: the body run over slices of the scan input, carrying a state and stacking a scan output."""

import numpy as np
from onnx import helper

from onnx_conformance.generators import subgraph
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data, indices
from onnx_conformance.generators.semantics import Rejected, Undefined, attr

OPERATOR = Operator("Scan", primary="V")


@OPERATOR.semantics
def scan_semantics(v, attrs, inputs):
    """The spec's pseudo-code: N states and M scan inputs; the body runs once per slice of the scan
    inputs along their axes (last to first where a direction is 1), taking (states, slices) and giving
    (states, scan values); the outputs are the final states and each scan value stacked on its axis
    (prepended where its direction is 1). Scan-8: axis 0 of every input is a batch axis, run apiece."""
    body, m = attrs["body"], attrs["num_scan_inputs"]
    values = list(inputs["initial_state_and_scan_inputs"])
    n = len(values) - m
    if v.since_version == 8:
        return _scan8(v, attrs, body, n, m, values, inputs.get("sequence_lens"))
    states, xs = values[:n], values[n:]
    in_axes = [a % np.ndim(x) if -np.ndim(x) <= a < np.ndim(x) else _bad_axis(v, a)
               for a, x in zip(attr(attrs, "scan_input_axes", [0] * m), xs)]
    in_dirs = attr(attrs, "scan_input_directions", [0] * m)
    lengths = {x.shape[a] for x, a in zip(xs, in_axes)}
    if len(lengths) > 1:
        raise Rejected(f"the scan inputs' lengths along their scan axes differ: {sorted(lengths)}")
    length = lengths.pop()
    slices = [[np.take(x, length - 1 - t if d else t, axis=a) for t in range(length)]
              for x, a, d in zip(xs, in_axes, in_dirs)]
    states, outs = _iterate(body, states, slices, length)
    k = len(body.output_names) - n
    out_axes = attr(attrs, "scan_output_axes", [0] * k)
    out_dirs = attr(attrs, "scan_output_directions", [0] * k)
    stacked = []
    for values_, a, d in zip(outs, out_axes, out_dirs):
        if d:  # 'prepending a new value in each iteration'
            values_ = values_[::-1]
        rank = np.ndim(values_[0]) + 1
        if not -rank <= a < rank:
            _bad_axis(v, a)
        stacked.append(np.stack(values_, axis=a % rank))
    return {"final_state_and_scan_outputs": states + stacked}


def _scan8(v, attrs, body, n, m, values, lens):
    """Scan-8: each batch entry scanned along axis 1 (reversed where 'directions' says 1)."""
    dirs = attr(attrs, "directions", [0] * m)
    batch = np.shape(values[0])[0] if values else 0
    length = values[n].shape[1] if m else 0
    if lens is not None and any(int(x) != length for x in np.asarray(lens).reshape(-1)):
        raise Undefined("a sequence shorter than the scan axis: what its scan output holds past its end is unsaid")
    finals, scans = [], []
    for b in range(batch):
        slices = [[x[b, length - 1 - t if d else t] for t in range(length)] for x, d in zip(values[n:], dirs)]
        states, outs = _iterate(body, [s[b] for s in values[:n]], slices, length)
        finals.append(states)
        scans.append([np.stack(o) for o in outs])
    out = [np.stack([f[i] for f in finals]) for i in range(n)]
    k = len(body.output_names) - n
    out += [np.stack([s[i] for s in scans]) for i in range(k)]
    return {"final_state_and_scan_outputs": out}


def _iterate(body, states, slices, length):
    k = len(body.output_names) - len(states)
    outs = [[] for _ in range(k)]
    for t in range(length):
        got = body(*states, *(s[t] for s in slices))
        states = list(got[:len(states)])
        for kept, value in zip(outs, got[len(states):]):
            kept.append(value)
    if length == 0 and k:
        raise Undefined("a scan axis of length 0: the pseudo-code's scan output is '[]', whose shape the spec leaves open")
    return states, outs


def _bad_axis(v, axis):
    sentence = v.sentence(r"[Aa]ccepted range") or "an axis must be within the value's rank"
    raise Rejected(f"{sentence} (got {axis})")


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


def scan8_case(v, t, rng, reverse=False, lens=False):
    """Scan-8: axis 0 of every input is the batch axis, axis 1 the sequence axis."""
    state, x = data(t, (2, 3), rng), data(t, (2, 4, 3), rng)
    attrs = {"body": body(t, [3]), "num_scan_inputs": 1}
    if reverse:
        attrs["directions"] = [1]
    inputs = {"sequence_lens": indices([4, 4]) if lens else None, "initial_state": state, "scan_input": x}
    return OPERATOR.expect(v, inputs, attrs, outputs=["final_state", "scan_output"])


def scan9_case(v, t, rng, x_shape, axis=0, reverse=False, out_axis=0):
    """Scan-9 on: no batch axis; each scan input and output has its own axis and direction."""
    x = data(t, x_shape, rng)
    element = [d for k, d in enumerate(x_shape) if k != axis % len(x_shape)]
    state = data(t, element, rng)
    attrs = {"body": body(t, element), "num_scan_inputs": 1}
    if axis:
        attrs["scan_input_axes"] = [axis]
    if out_axis:
        attrs["scan_output_axes"] = [out_axis]
    if reverse:
        attrs["scan_input_directions"] = [1]
        attrs["scan_output_directions"] = [1]
    return OPERATOR.expect(v, {"initial_state": state, "scan_input": x}, attrs, outputs=["final_state", "scan_output"])


@OPERATOR.example(name="scan")
def scan_(v, t, rng):
    if v.since_version == 8:
        return scan8_case(v, t, rng)
    return scan9_case(v, t, rng, (4, 3))


@OPERATOR.example
def reverse(v, t, rng):
    """Scan-8 'directions'; Scan-9 on: scan_input_directions and scan_output_directions both 1."""
    if v.since_version == 8:
        return scan8_case(v, t, rng, reverse=True)
    return scan9_case(v, t, rng, (4, 3), reverse=True)


@OPERATOR.example
def axes(v, t, rng):
    """scan_input_axes and scan_output_axes 1 (Scan-11 on: -1, 'Negative value for an axis means counting
    dimensions from the back')."""
    if v.since_version == 8:
        return NotApplicable("Scan-8 has no scan_input_axes: its axis 0 is the batch axis, axis 1 the sequence axis")
    axis = 1 if v.since_version == 9 else -1
    return scan9_case(v, t, rng, (3, 4), axis=axis, out_axis=axis)


@OPERATOR.example
def sequence_lens(v, t, rng):
    """Scan-8's sequence_lens, every sequence at the full length (the spec leaves what a shorter one's
    scan output holds past its end unsaid)."""
    if v.since_version != 8:
        return NotApplicable("Scan-9 on has no sequence_lens input")
    return scan8_case(v, t, rng, lens=True)


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
    return OPERATOR.expect(v, inputs, attrs, outputs=["final_state"])


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs('not implemented for other input axes', 'the evaluator implements scan axis 0 only')
OPERATOR.reference_differs('not implemented for other output input_direction',
                           'the evaluator implements the forward direction only')
OPERATOR.reference_differs('zero scan-input length|^zero_length .*Unable to find input', 'the evaluator refuses a scan axis of length 0')
OPERATOR.reference_differs("^(scan|reverse|zero_length|sequence_lens) .*(NoneType|shape \\(2,\\) != expected \\(2, 3\\))",
                           "the evaluator implements Scan-9's signature only: Scan-8's sequence_lens input and batch axis "
                           "are taken for a state")
