"""Cast: every (from, to) pair each version allows, each element converted exactly under that version's rules."""

from fractions import Fraction

import numpy as np
import onnx.defs

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.cast_family import (
    FLOAT8,
    IEEE,
    CastOperator,
    cast,
    conversion,
    convert,
    decode,
    exactly,
    explain_reference,
    tolerance,
)
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.harness.dtypes import elem_type_of, name_of

OPERATOR = CastOperator("Cast")

# onnx's documented data for the float 8 conversions (with and without saturation).
F8_DATA = ["0.47892547", "0.48033667", "0.49968487", "0.81910545", "0.47031248", "0.7229038", "1000000", "1e-7",
           "NaN", "INF", "+INF", "-INF", "-0.0000001", "0.0000001", "-1000000"]
# onnx's documented data for float8e8m0 (saturate, round up).
E8M0_DATA = ["0.0", "0.124", "0.25", "0.5", "1.1", "2.0", "4.0", "8.0"]


def documented(texts):
    """The documented float32 data as exact values (the source type keeps those it holds)."""
    return [decode(e, "float") for e in np.array(texts, dtype=np.float32)]


@OPERATOR.semantics
def cast_(v, attrs, inputs):
    """input converted to the type `to` names, element by element, by the version's rules (cast_family.cast)."""
    return {"output": cast(v, attrs, inputs["input"], target(v, attrs.get("to")))}


def target(v, to) -> str:
    """The type `to` names: Cast-1's STRING attribute spells the DataType ("FLOAT16"), from Cast-6 on
    it is the enum's value; "Strictly must be one of the types from DataType enum in TensorProto"."""
    try:
        if isinstance(to, (str, bytes)):
            return name_of(elem_type_of(to.decode() if isinstance(to, bytes) else to))
        return name_of(int(to))
    except (ValueError, TypeError):
        raise Rejected(v.schema.attributes["to"].description) from None


def case(v, t, x, **attrs):
    if isinstance(x, NotApplicable):
        return x
    return OPERATOR.expect(v, {"input": x}, {"to": to(v, t["T2"]), **attrs}, tolerance=tolerance(t["T2"]))


def to(v, dst):
    """Cast-1's `to` is a STRING attribute naming the DataType ("FLOAT16"); from Cast-6 on it is the enum value."""
    if v.schema.attributes["to"].type == onnx.defs.OpSchema.AttrType.STRING:
        return dst.upper()
    return elem_type_of(dst)


@OPERATOR.example
def default(v, t, rng):
    """One case per pair, the target's ties, range ends and specials in the source's values."""
    return case(v, t, conversion(v, t["T1"], t["T2"], rng))


@OPERATOR.example
def no_saturate(v, t, rng):
    """saturate=0 into the float 8 types: out of range goes to NaN (or Inf in E5M2), per the second table."""
    if not v.has_attribute("saturate"):
        return NotApplicable("saturate exists from Cast-19 on")
    if t["T2"] not in FLOAT8 or t["T1"] not in IEEE:
        return NotApplicable("the saturate=0 example is for the IEEE float -> float 8 conversions")
    return case(v, t, conversion(v, t["T1"], t["T2"], rng, saturate=False, extra=documented(F8_DATA)),
                saturate=0)


@OPERATOR.example
def e8m0(v, t, rng):
    """onnx's documented float8e8m0 data, saturate=1 and round_mode="up" said out loud."""
    pairs = {("float", "float8e8m0"), ("float16", "float8e8m0"), ("float8e8m0", "float"), ("float8e8m0", "float16")}
    if (t["T1"], t["T2"]) not in pairs:
        return NotApplicable("onnx's documented e8m0 example is float/float16 <-> float8e8m0")
    data = documented(E8M0_DATA)
    if t["T1"] == "float8e8m0":
        data = [Fraction(convert(q, "float", "float8e8m0", v.since_version)) for q in data]
        return case(v, t, exactly(t["T1"], data, (2, 4)))
    return case(v, t, exactly(t["T1"], data, (2, 4)), saturate=1, round_mode="up")


def rounding(mode, saturate):
    def example(v, t, rng):
        if not v.has_attribute("round_mode"):
            return NotApplicable("round_mode exists from Cast-24 on")
        if t["T2"] != "float8e8m0" or t["T1"] not in IEEE:
            return NotApplicable("round_mode only applies to casting to float8e8m0; shown from the IEEE floats")
        return case(v, t, conversion(v, t["T1"], t["T2"], rng, saturate=saturate, round_mode=mode),
                    saturate=int(saturate), round_mode=mode)
    example.__doc__ = f"round_mode={mode!r}, saturate={int(saturate)} into float8e8m0."
    return example


OPERATOR.example(rounding("down", True), name="round_down")
OPERATOR.example(rounding("nearest", True), name="round_nearest")
OPERATOR.example(rounding("nearest", False), name="nearest_no_saturate")


explain_reference(OPERATOR)
