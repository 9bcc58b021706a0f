"""CastLike: the input cast to the element type of target_type, by Cast's rules, for every (from, to) pair of its newest version."""

from onnx_conformance.generators.case import NotApplicable, type_of
from onnx_conformance.generators.cast_family import (
    FLOAT8,
    IEEE,
    CastOperator,
    cast,
    conversion,
    explain_reference,
    like,
    tolerance,
)
from onnx_conformance.generators.spec import versions

# The whole (T1, T2) matrix at the newest version; the older ones get every T1 to float and float to
# every T2 (each type parameter's cells), which keeps Cast and CastLike within the corpus budget.
OPERATOR = CastOperator("CastLike", full=lambda v: v.since_version == versions("CastLike")[-1].since_version)


@OPERATOR.semantics
def cast_like(v, attrs, inputs):
    """input cast to target_type's element type by Cast's rules (cast_family.cast); its values are not read."""
    return {"output": cast(v, attrs, inputs["input"], type_of(inputs["target_type"]))}


def case(v, t, x, **attrs):
    if isinstance(x, NotApplicable):
        return x
    inputs = {"input": x, "target_type": like(t["T2"])}
    return OPERATOR.expect(v, inputs, attrs, tolerance=tolerance(t["T2"]))


@OPERATOR.example
def default(v, t, rng):
    """One case per pair, the target's ties, range ends and specials in the source's values."""
    return case(v, t, conversion(v, t["T1"], t["T2"], rng))


@OPERATOR.example
def no_saturate(v, t, rng):
    """saturate=0 into the float 8 types: out of range goes to NaN (or Inf in E5M2), per Cast's second table."""
    if not v.has_attribute("saturate"):
        return NotApplicable("saturate exists from CastLike-19 on")
    if t["T2"] not in FLOAT8 or t["T1"] not in IEEE:
        return NotApplicable("the saturate=0 example is for the IEEE float -> float 8 conversions")
    return case(v, t, conversion(v, t["T1"], t["T2"], rng, saturate=False), saturate=0)


@OPERATOR.example
def round_nearest(v, t, rng):
    """round_mode="nearest" (ties up) into float8e8m0."""
    if not v.has_attribute("round_mode"):
        return NotApplicable("round_mode exists from CastLike-24 on")
    if t["T2"] != "float8e8m0" or t["T1"] not in IEEE:
        return NotApplicable("round_mode only applies to casting to float8e8m0; shown from the IEEE floats")
    return case(v, t, conversion(v, t["T1"], t["T2"], rng, round_mode="nearest"), round_mode="nearest")


explain_reference(OPERATOR)
OPERATOR.body_differs(
    r"^round_nearest ",
    "CastLike-24's and -25's function body (onnx.defs) is `Cast <to, saturate = @saturate>`: it does not pass "
    "round_mode on, so the body rounds into float8e8m0 by Cast's default 'up' where the node asks for 'nearest' "
    "(the text: 'round_mode ... specifies how the conversion rounds'); ours follows the text (ONNX-2)",
)
