"""Cast to a narrower type and back: not an identity, though it looks like one to an optimizer that
removes Cast pairs (the ONNX optimizer's eliminate_nop_cast only removes a Cast to the same type;
onnxruntime's CastElimination and OpenVINO's cast-pair elimination must keep a pair that loses
information, TVM's SimplifyExpr likewise).

`to_narrower_float` rounds to float16 in the middle (values chosen off float16's grid, so a removed
pair is visibly off), `through_bool` turns every non-zero into 1, and `widening` is the pair an optimizer may remove: every
value survives the trip."""

from onnx import TensorProto, helper

from onnx_conformance.generators.graphs import Graph, GraphFamily, cast_to
from onnx_conformance.harness.dtypes import elem_type_of

FAMILY = GraphFamily("Cast+Cast", "pattern", targets=(
    "ONNX optimizer: eliminate_nop_cast",
    "onnxruntime: CastElimination, InsertCastTransformer",
    "OpenVINO: EliminateConvert (convert pairs)",
), types=("float", "double"))


def _trip(t, middle, x):
    nodes = [helper.make_node("Cast", ["x"], ["m"], to=middle),
             helper.make_node("Cast", ["m"], ["back"], to=elem_type_of(t)),
             helper.make_node("Add", ["back", "zero"], ["y"])]  # a consumer, so the pair is inside the graph
    return Graph(nodes, inputs={"x": cast_to(x, t)}, outputs=["y"], weights={"zero": cast_to(0.0, t)})


@FAMILY.example
def to_narrower_float(t, rng):
    """Through float16: 1/3 and 0.1 are not float16 values; the trip rounds them."""
    return _trip(t, TensorProto.FLOAT16, [1 / 3, 0.1, -2.0001, 1000.3, 6.1e-5, 3.0])


@FAMILY.example
def through_bool(t, rng):
    """Through bool: every non-zero becomes 1 (a float to integer cast of a fraction has no value the
    spec states, so bool is the integral type that shows the loss)."""
    return _trip(t, TensorProto.BOOL, [2.7, -0.5, 0.0, -0.0, 1.0, 1e-30])


@FAMILY.example
def widening(t, rng):
    """Through double and back (float) or through float (double, values exact in float): an identity."""
    middle = TensorProto.DOUBLE if t != "double" else TensorProto.FLOAT
    return _trip(t, middle, [0.25, -3.5, 1024.0, 0.0])
