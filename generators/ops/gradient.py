"""Gradient (ai.onnx.preview.training): the derivatives of the graph value `y` with respect to the
values named in `xs`, at the values fed to the node.

No semantics function: the function Gradient computes is the enclosing graph's (the nodes from `xs` to
`y`, placed before it in the model: Case.nodes), which a semantics function of (version, attributes,
inputs) never sees, and its derivative is that graph's, through any operator. Deterministic, but
stating it needs the graph passed in and exact differentiation of every operator; the examples keep
their derivatives worked out by hand."""

import numpy as np
from onnx import helper

from onnx_conformance.generators.case import Case, NotApplicable
from onnx_conformance.generators.rounding import exact, round_to
from onnx_conformance.generators.training_family import TRAINING
from onnx_conformance.generators.case import Operator

FLOATS = ("float16", "float", "double")

OPERATOR = Operator("Gradient", domain=TRAINING, primary="T1",
                    defaults={"T2": lambda v, b: b.get("T1") if b.get("T1") in FLOATS else "float"})

NODES_OPSET = 12  # the ai.onnx opset of the differentiated graph, as onnx's own gradient tests import


def applicable(t):
    if t["T1"] not in FLOATS:
        return NotApplicable("the examples differentiate with respect to their inputs ('xs'), which share T1 with "
                             "'zs' (one variadic input list): T1 must be a float type to have a derivative")
    if t["T2"] != t["T1"]:
        return NotApplicable("a derivative dY/dX of a scalar Y takes X's type here: T2 is bound to T1")
    return None


def value(t, x):
    return round_to(exact(x), t["T1"])


@OPERATOR.example
def scalar_add(v, t, rng):
    """onnx's documented model (test_gradient_of_add): c = a + b; dc/da = dc/db = 1."""
    na = applicable(t)
    if na:
        return na
    a, b = value(t, 1.0), value(t, 2.0)
    nodes = [helper.make_node("Add", ["a", "b"], ["c"])]
    one = value(t, 1.0)
    return Case({"a": a, "b": b}, {"dc_da": one, "dc_db": one}, {"xs": ["a", "b"], "y": "c"},
                nodes=nodes, nodes_opset=NODES_OPSET, tolerance={"ulp": 0})


@OPERATOR.example
def scalar_add_and_mul(v, t, rng):
    """onnx's documented model (test_gradient_of_add_and_mul): c = a + b, d = a * c;
    dd/da = c + a = 2a + b, dd/db = a."""
    na = applicable(t)
    if na:
        return na
    a, b = 1.0, 2.0
    nodes = [helper.make_node("Add", ["a", "b"], ["c"]), helper.make_node("Mul", ["a", "c"], ["d"])]
    return Case({"a": value(t, a), "b": value(t, b)}, {"dd_da": value(t, 2 * a + b), "dd_db": value(t, a)},
                {"xs": ["a", "b"], "y": "d"}, nodes=nodes, nodes_opset=NODES_OPSET, tolerance={"ulp": 0})


ZS = {"bool": True, "string": "-2.25"}


@OPERATOR.example
def cast_zs(v, t, rng):
    """Inputs is heterogeneous: x (float, differentiated) and z of T1 in zs, used through Cast to float:
    y = x * x * Cast(z); dy/dx = 2 x z at x = 1.5."""
    if t["T1"] in FLOATS:
        return NotApplicable("for the float types, with_zs feeds z of T1 directly")
    if t["T1"].startswith("complex"):
        return size_zs(t)
    if t["T2"] != "float":
        return NotApplicable("dy/dx takes x's type (float) here")
    x = 1.5
    z = ZS.get(t["T1"], 3 if t["T1"].startswith("u") else -2)
    zval = -2.25 if t["T1"] == "string" else float(z)
    from onnx import TensorProto
    nodes = [helper.make_node("Cast", ["z"], ["zf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["x", "x"], ["xx"]), helper.make_node("Mul", ["xx", "zf"], ["y"])]
    from onnx_conformance.harness.dtypes import numpy_of
    zarr = np.array(z, dtype=object) if t["T1"] == "string" else np.array(z, dtype=numpy_of(t["T1"]))
    return Case({"x": np.float32(x), "z": zarr}, {"dy_dx": round_to(exact(2 * x * zval), "float")},
                {"xs": ["x"], "zs": ["z"], "y": "y"}, nodes=nodes, nodes_opset=NODES_OPSET, tolerance={"ulp": 0})


def size_zs(t):
    """A complex z reaches a real y only through its shape (Cast takes no complex input):
    y = x * x * Cast(Size(z)); dy/dx = 2 x Size(z) = 2 * 1.5 * 3."""
    if t["T2"] != "float":
        return NotApplicable("dy/dx takes x's type (float) here")
    from onnx import TensorProto
    from onnx_conformance.harness.dtypes import numpy_of
    nodes = [helper.make_node("Size", ["z"], ["n"]), helper.make_node("Cast", ["n"], ["zf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["x", "x"], ["xx"]), helper.make_node("Mul", ["xx", "zf"], ["y"])]
    z = np.array([1 + 2j, -0.5j, 3], dtype=numpy_of(t["T1"]))
    return Case({"x": np.float32(1.5), "z": z}, {"dy_dx": np.float32(9.0)}, {"xs": ["x"], "zs": ["z"], "y": "y"},
                nodes=nodes, nodes_opset=NODES_OPSET, tolerance={"ulp": 0})


@OPERATOR.example
def with_zs(v, t, rng):
    """y = x * x * z with z in zs (not differentiated): dy/dx = 2 x z, at x = 1.5, z = -2.25."""
    na = applicable(t)
    if na:
        return na
    x, z = 1.5, -2.25
    nodes = [helper.make_node("Mul", ["x", "x"], ["xx"]), helper.make_node("Mul", ["xx", "z"], ["y"])]
    return Case({"x": value(t, x), "z": value(t, z)}, {"dy_dx": value(t, 2 * x * z)},
                {"xs": ["x"], "zs": ["z"], "y": "y"}, nodes=nodes, nodes_opset=NODES_OPSET, tolerance={"ulp": 0})


OPERATOR.reference_differs(r"No registered implementation for operator 'Gradient'",
                           "onnx's ReferenceEvaluator (1.23) implements no Gradient")
