"""Scaler (ai.onnx.ml): Y = (X - offset) * scale per feature, as float."""

from onnx_conformance.generators.ml_family import data, exact_of, f32, ml_operator, rounded
from onnx_conformance.generators.semantics import Rejected, attr

OPERATOR = ml_operator("Scaler")


@OPERATOR.semantics
def scale(v, attrs, inputs):
    """'First, offset by this.' then 'Second, multiply by this.', per feature (X's last axis), each list of
    length F or 1 ('in which case it applies to all features'); exact, rounded once to float."""
    x = inputs["X"]
    f = x.shape[-1] if x.ndim else 1
    off = [f32(o) for o in attr(attrs, "offset", [])]
    sc = [f32(s) for s in attr(attrs, "scale", [])]
    for name, values in (("offset", off), ("scale", sc)):
        if len(values) not in (1, f):
            raise Rejected(f"{name}: {v.schema.attributes[name].description} (given length {len(values)}, F = {f})")
    y = [(e - off[i % f if len(off) > 1 else 0]) * sc[i % f if len(sc) > 1 else 0] for i, e in enumerate(exact_of(x))]
    return {"Y": rounded(y, "float", x.shape)}


def scaled(v, x, offset, scale):
    # two float operations in whatever type the runtime works in: one step of float
    return OPERATOR.expect(v, {"X": x}, {"offset": offset, "scale": scale}, tolerance={"ulp": 1})


@OPERATOR.example
def per_feature(v, t, rng):
    return scaled(v, data(t.dtype, (4, 3), rng), [1.5, -2.0, 0.25], [0.5, 3.0, -1.25])


@OPERATOR.example
def broadcast_one(v, t, rng):
    """offset and scale of length 1 apply to every feature."""
    return scaled(v, data(t.dtype, (3, 5), rng), [-1.0], [0.1])


@OPERATOR.example
def single_row(v, t, rng):
    return scaled(v, data(t.dtype, (1, 4), rng), [0.0, 1.0, 2.0, 3.0], [2.0, 2.0, 0.5, 0.5])


OPERATOR.reference_differs(r"dtype (double|int32|int64) != expected float",
                           "Scaler's output Y is tensor(float) for every T; the evaluator returns X's type")
