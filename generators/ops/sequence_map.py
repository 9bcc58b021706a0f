"""SequenceMap: the body applied to each sample of the input sequence (and of further sequences), tensors passed whole."""

from onnx import helper

from onnx_conformance.generators import subgraph
from onnx_conformance.generators.case import NotApplicable, Operator, Seq
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.generators.sequence_family import elem, seq_of, sequence
from onnx_conformance.generators.values import value

OPERATOR = Operator("SequenceMap", primary="V", defaults={"S": lambda v, b: seq_of(tensor_of(b["V"]))})


@OPERATOR.semantics
def sequence_map(v, attrs, inputs):
    """The body once per sample of input_sequence: an additional sequence gives its sample at the same
    position ('Any other sequence inputs should have the same number of samples'), a tensor is passed
    whole; the k-th output collects the body's k-th output of every iteration."""
    body, s = attrs["body"], inputs["input_sequence"]
    extra = list(inputs.get("additional_inputs") or [])
    count = len(s.items)
    if any(isinstance(x, Seq) and len(x.items) != count for x in extra):
        raise Rejected(v.sentence(r"same number of samples"))
    outputs = [[] for _ in body.output_names]
    for i in range(count):
        args = [s.items[i]] + [x.items[i] if isinstance(x, Seq) else x for x in extra]
        for kept, y in zip(outputs, body(*args)):
            kept.append(y)
    return {"out_sequence": [Seq(items, _element(body, k)) for k, items in enumerate(outputs)]}


def _element(body, k):
    type_name, _ = body.output_type(k)
    return type_name[len("tensor("):-1] if type_name.startswith("tensor(") else type_name


def tensor_of(type_name):
    """V's tensor element type: 'int8' -> 'int8'; 'seq(tensor(int8))' -> 'int8'."""
    return elem(type_name) if type_name.startswith("seq(") else type_name


def paired(t):
    if t["S"] != seq_of(tensor_of(t["V"])):
        return NotApplicable("emitted with S the sequence of V's element type (V's own cells are covered there)")
    return None


@OPERATOR.example(name="identity_1_sequence")
def one_input(v, t, rng):
    """One input sequence; the body copies each sample (the sequences differ in shape)."""
    if "(" in t["V"]:
        return NotApplicable("one input: V is unused, emitted once per S with V its tensor type")
    s = sequence(elem(t["S"]), rng)
    body = subgraph.graph("body", [helper.make_node("Identity", ["x"], ["y"])], [("x", elem(t["S"]))], [("y", elem(t["S"]))])
    return paired(t) or OPERATOR.expect(v, {"input_sequence": s}, {"body": body}, outputs=["out_sequence"])


def two_inputs(v, t, rng):
    """The input sequence and one additional input: a tensor, passed whole to every iteration, or a sequence
    of the same length, sampled at the same position ('Any other sequence inputs should have the same number
    of samples'). The body outputs both, swapped."""
    e = elem(t["S"])
    s = sequence(e, rng)
    if t["V"].startswith("seq("):
        extra = sequence(e, rng, [(1,), (2, 2), ()])
    else:
        extra = value(e, (2, 2), rng)
    nodes = [helper.make_node("Identity", ["x"], ["y1"]), helper.make_node("Identity", ["extra"], ["y0"])]
    body = subgraph.graph("body", nodes, [("x", e), ("extra", e)], [("y0", e), ("y1", e)])
    return OPERATOR.expect(v, {"input_sequence": s, "additional_inputs": extra}, {"body": body},
                           outputs=["out_sequence", "out_sequence_1"])


@OPERATOR.example(name="identity_1_sequence_1_tensor")
def with_tensor(v, t, rng):
    if t["V"].startswith("seq("):
        return NotApplicable("the additional input here is a tensor; a sequence is identity_2_sequences")
    return paired(t) or two_inputs(v, t, rng)


@OPERATOR.example(name="identity_2_sequences")
def with_sequence(v, t, rng):
    if not t["V"].startswith("seq("):
        return NotApplicable("the additional input here is a sequence; a tensor is identity_1_sequence_1_tensor")
    return paired(t) or two_inputs(v, t, rng)
