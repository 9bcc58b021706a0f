"""Identity and inference-mode Dropout, which optimizers remove (the ONNX optimizer's
eliminate_identity and eliminate_nop_dropout, onnxruntime's IdentityElimination and
DropoutElimination, OpenVINO's EliminateIdentity and its import dropping Dropout).

Removing the node is right, but the graph's outputs must survive it: a value the graph returns
keeps its name and its value even when the node producing it is gone. `identity_output` returns an
Identity's output and a value computed from it; `identity_of_input` returns an Identity of an
Identity of the graph's input beside another use of that input (after removal, an output is the
input itself). `dropout_mask` runs Dropout with ratio 0.7 and training_mode false and returns both
its output and its mask: the output is x and the mask all true, whatever the ratio; a removal that
drops the mask, or a runtime that applies the ratio at inference, is off. `dropout_output` returns
a Dropout's output (no ratio given) and a sum computed from it."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.graphs import Graph, GraphFamily
from onnx_conformance.generators.patterns._layout_data import distinct, small

FAMILY = GraphFamily("Identity+Dropout", "pattern", targets=(
    "ONNX optimizer: eliminate_identity, eliminate_nop_dropout",
    "onnxruntime: IdentityElimination, DropoutElimination",
    "OpenVINO: EliminateIdentity, Dropout removed at import",
))


@FAMILY.example
def identity_output(t, rng):
    """a = x + b; y = Identity(a) and z = y + b are both outputs."""
    return Graph([helper.make_node("Add", ["x", "b"], ["a"]), helper.make_node("Identity", ["a"], ["y"]),
                  helper.make_node("Add", ["y", "b"], ["z"])],
                 inputs={"x": distinct(t, rng, (2, 3))}, outputs=["y", "z"], weights={"b": small(t, rng, (3,), 1, 4)})


@FAMILY.example
def identity_of_input(t, rng):
    """z = Identity(Identity(x)) and w = x + b are the outputs."""
    return Graph([helper.make_node("Identity", ["x"], ["m"]), helper.make_node("Identity", ["m"], ["z"]),
                  helper.make_node("Add", ["x", "b"], ["w"])],
                 inputs={"x": distinct(t, rng, (2, 3))}, outputs=["z", "w"], weights={"b": small(t, rng, (1,), 1, 4)})


@FAMILY.example
def dropout_mask(t, rng):
    """Dropout(x, ratio 0.7, training_mode false): output x and an all-true mask, both returned."""
    return Graph([helper.make_node("Dropout", ["x", "ratio", "training"], ["y", "mask"])],
                 inputs={"x": distinct(t, rng, (3, 4))}, outputs=["y", "mask"],
                 weights={"ratio": np.float32(0.7), "training": np.array(False)})  # ratio: T1 has no bfloat16


@FAMILY.example
def dropout_output(t, rng):
    """d = Dropout(x) and d + b are both outputs."""
    return Graph([helper.make_node("Dropout", ["x"], ["d"]), helper.make_node("Add", ["d", "b"], ["y"])],
                 inputs={"x": distinct(t, rng, (3, 4))}, outputs=["d", "y"], weights={"b": small(t, rng, (4,), 1, 4)})
