"""LayerNormalization: standardize over [axis, ..., r-1] (Mean, InvStdDev), then Y = Normalized * Scale + B."""

from onnx_conformance.generators.case import Declared, NotApplicable, Operator
from onnx_conformance.generators.norm_family import (
    DEFAULT_EPSILON,
    affine,
    broadcasts_to,
    float_attr,
    data,
    ex,
    normalize,
    rounded,
    root_steps,
    scale_data,
    scaled_magnitude,
    stash_of,
    with_specials,
    tolerance,
)
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import name_of, name_of_numpy

OPERATOR = Operator("LayerNormalization", primary="T")

STASH_EXAMPLES = ("default_axis", "3d_axis_negative_1_epsilon", "no_bias")


AXIS_RULE = "If rank(X) is r, axis' allowed range is [-r, r)."


def standardized(attrs: dict, x, scale, bias):
    """(X - Mean) / sqrt(Var + epsilon) * Scale + B over [axis, ..., r-1] in mpmath at PREC bits (Mean and
    the population variance exact); also Mean, InvStdDev, the magnitude for the tolerance and the group
    size. Scale and B 'should be unidirectional broadcastable to tensor X'."""
    r = x.ndim
    axis = attr(attrs, "axis", -1)
    if not -r <= axis < r:
        raise Rejected(AXIS_RULE)
    for name, t in (("Scale", scale), ("B", bias)):
        if t is not None and not broadcasts_to(t.shape, x.shape):
            raise Rejected(f"{name}: 'unidirectional broadcastable to tensor X'")
    eps = float_attr(attr(attrs, "epsilon", DEFAULT_EPSILON))
    xe = ex(x)
    axes = tuple(range(axis % r, r))
    norm, mean, inv, n = normalize(xe, axes, eps)
    se = ex(scale)
    be = None if bias is None else ex(bias)
    y = affine(norm, se, be)
    return y, mean, inv, scaled_magnitude(xe, mean, inv, se, be, axes, stats=True), n


@OPERATOR.semantics
def layer_normalization(v, attrs, inputs):
    """Y = Normalized * Scale + B in T; Mean and InvStdDev = 1 / sqrt(Var + epsilon) in U, stash_type's
    type ('Type of Mean and InvStdDev', default 1: float); each rounded once."""
    x = inputs["X"]
    u = name_of(attr(attrs, "stash_type", 1))
    if u not in v.type_params["U"]:
        raise Rejected(f"stash_type: 'Type of Mean and InvStdDev', one of U's types {v.type_params['U']}")
    y, mean, inv, _, _ = standardized(attrs, x, inputs["Scale"], inputs.get("B"))
    return {"Y": rounded(y, name_of_numpy(x.dtype)), "Mean": rounded(mean, u), "InvStdDev": rounded(inv, u)}


def layer_norm(v, t, example, x, axis=None, epsilon=None, scale_shape=None, bias=True, rng=None):
    """The case: Scale (and B) of the normalized shape or `scale_shape`, the semantics' three outputs, the
    tolerance of this data's statistics in stash_type's precision."""
    u = t["U"]
    if u != "float" and example not in STASH_EXAMPLES:
        return NotApplicable(f"stash_type {u} (U = {u}) runs in {', '.join(STASH_EXAMPLES)}; "
                             "the axis examples run with U = float")
    a = (-1 if axis is None else axis) % x.ndim
    norm_shape = x.shape[a:] if scale_shape is None else scale_shape
    scale = scale_data(t.dtype, norm_shape, rng)
    b = scale_data(t.dtype, norm_shape, rng) if bias else None
    attrs = {}
    if axis is not None:
        attrs["axis"] = axis
    if epsilon is not None:
        attrs["epsilon"] = epsilon
    if u != "float":
        attrs["stash_type"] = stash_of(u)  # 'Type of Mean and InvStdDev': U is the stash type
    _, _, _, mag, n = standardized(attrs, x, scale, b)
    tol = tolerance([t.dtype, u], n, mag, after=root_steps("float" if u == "float" else u), stash=u,
                    stage_two=[t.dtype])
    return OPERATOR.expect(v, {"X": x, "Scale": scale, "B": b}, attrs, tolerance=tol)


def register(name, shape, axis, epsilon=None):
    def build(v, t, rng):
        return layer_norm(v, t, name, data(t.dtype, shape, rng), axis, epsilon, rng=rng)

    OPERATOR.example(build, name=name)


# onnx's documented examples: every axis of a 4-D, 2-D and 3-D (epsilon 0.1) input, both spellings.
for _a in range(4):
    register(f"4d_axis{_a}", (2, 3, 4, 5), _a)
    register(f"4d_axis_negative_{4 - _a}", (2, 3, 4, 5), _a - 4)
register("default_axis", (2, 3, 4, 5), None)
for _a in range(2):
    register(f"2d_axis{_a}", (3, 4), _a)
    register(f"2d_axis_negative_{2 - _a}", (3, 4), _a - 2)
for _a in range(3):
    register(f"3d_axis{_a}_epsilon", (2, 3, 5), _a, 1e-1)
    register(f"3d_axis_negative_{3 - _a}_epsilon", (2, 3, 5), _a - 3, 1e-1)


@OPERATOR.example
def no_bias(v, t, rng):
    """B left out (optional), Scale of shape (5,) broadcast over the normalized (4, 5)
    ('tensors Scale and B should be unidirectional broadcastable to tensor X')."""
    return layer_norm(v, t, "no_bias", data(t.dtype, (2, 3, 4, 5), rng), 2, scale_shape=(5,), bias=False, rng=rng)


@OPERATOR.rejection
def axis_out_of_range(v, t, rng):
    """axis = r for a rank-r input."""
    x = data(t.dtype, (2, 3, 4), rng)
    return OPERATOR.reject(v, {"X": x, "Scale": scale_data(t.dtype, (4,), rng), "B": scale_data(t.dtype, (4,), rng)},
                           {"axis": 3}, {"Y": Declared(t.dtype, x.shape)})


OPERATOR.reference_differs(
    r"^\w+ b?float16: ",
    "the evaluator computes float16 and bfloat16 in the type itself; the spec's stash_type 1 "
    "computes stage one in float (ours: the exact value rounded once)",
)
OPERATOR.reference_differs(
    r"^\w+ double: .*output [12] dtype double != expected float",
    "the evaluator returns Mean and InvStdDev in X's type; the spec's stash_type (default 1, float) is "
    "the 'Type of Mean and InvStdDev', and the graph declares them float",
)
OPERATOR.reference_differs(
    r"not implemented for stash_type=16",
    "the evaluator implements stash_type 1 only",
)
OPERATOR.reference_differs(
    r"^axis_out_of_range \w+: reference evaluator returned outputs",
    "the evaluator does not check axis: with axis = r it normalizes over no axis and returns outputs; "
    "the spec's allowed range is [-r, r)",
)


@OPERATOR.example
def ieee_specials(v, t, rng):
    """Rows holding NaN, +inf, or both infinities next to an ordinary row (axis -1): IEEE 754 through the
    definition makes each such row's Y and InvStdDev NaN (x - Mean or the variance is NaN), and its
    Mean the row's sum over n: NaN, +inf, NaN."""
    x = data(t.dtype, (4, 5), rng)
    x = with_specials(x, {(0, 1): float("nan"), (1, 3): float("inf"), (2, 0): float("-inf"), (2, 4): float("inf")})
    return layer_norm(v, t, "ieee_specials", x, rng=rng)
