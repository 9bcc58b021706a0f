"""LayerNormalization: standardize over [axis, ..., r-1] (Mean, InvStdDev), then Y = Normalized * Scale + B."""


from onnx_conformance.generators.case import Case, Declared, NotApplicable, Operator
from onnx_conformance.generators.norm_family import (
    DEFAULT_EPSILON,
    affine,
    attr,
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

OPERATOR = Operator("LayerNormalization", primary="T")

STASH_EXAMPLES = ("default_axis", "3d_axis_negative_1_epsilon", "no_bias")


def layer_norm(v, t, example, x, axis=None, epsilon=None, scale_shape=None, bias=True, rng=None):
    u = t["U"]
    if u != "float" and example not in STASH_EXAMPLES:
        return NotApplicable(f"stash_type {u} (U = {u}) runs in {', '.join(STASH_EXAMPLES)}; "
                             "the axis examples run with U = float")
    r = x.ndim
    a = (-1 if axis is None else axis) % r
    norm_shape = x.shape[a:] if scale_shape is None else scale_shape
    scale = scale_data(t.dtype, norm_shape, rng)
    b = scale_data(t.dtype, norm_shape, rng) if bias else None
    eps = attr(DEFAULT_EPSILON if epsilon is None else epsilon)
    xe = ex(x)
    axes = tuple(range(a, r))
    norm, mean, inv, n = normalize(xe, axes, eps)
    se = ex(scale)
    be = None if b is None else ex(b)
    y = affine(norm, se, be)
    mag = scaled_magnitude(xe, mean, inv, se, be, axes, stats=True)
    attrs = {}
    if axis is not None:
        attrs["axis"] = axis
    if epsilon is not None:
        attrs["epsilon"] = epsilon
    if u != "float":
        attrs["stash_type"] = stash_of(u)  # 'Type of Mean and InvStdDev': U is the stash type
    outputs = {"Y": rounded(y, t.dtype), "Mean": rounded(mean, u), "InvStdDev": rounded(inv, u)}
    tol = tolerance([t.dtype, u], n, mag, after=root_steps("float" if u == "float" else u), stash=u,
                    stage_two=[t.dtype])
    return Case({"X": x, "Scale": scale, "B": b}, outputs, attrs, tolerance=tol)


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
    return Case({"X": x, "Scale": scale_data(t.dtype, (4,), rng), "B": scale_data(t.dtype, (4,), rng)},
                {"Y": Declared(t.dtype, x.shape)}, {"axis": 3},
                error="If rank(X) is r, axis' allowed range is [-r, r).")


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
