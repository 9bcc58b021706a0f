"""GroupNormalization: standardize each instance's group of channels, then scale and shift per channel.

Version 18 (scale and bias per group) is deprecated: onnx's checker refuses it, so coverage lists it
without cases. Version 21: scale and bias 'should be specified for each channel', stage one in
stash_type's precision (default 1, float).
"""


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
    tolerance,
)

OPERATOR = Operator("GroupNormalization")


def group_norm(v, t, x, num_groups, epsilon=None, stash=None, rng=None):
    n_, c = x.shape[:2]
    scale = scale_data(t.dtype, (c,), rng)
    bias = scale_data(t.dtype, (c,), rng)
    eps = attr(DEFAULT_EPSILON if epsilon is None else epsilon)
    grouped = ex(x).reshape((n_, num_groups, c // num_groups) + x.shape[2:])
    axes = tuple(range(2, grouped.ndim))
    norm, mean, inv, n = normalize(grouped, axes, eps)
    per_channel = (1, c) + (1,) * (x.ndim - 2)
    se, be = ex(scale).reshape(per_channel), ex(bias).reshape(per_channel)
    norm = norm.reshape(x.shape)
    y = affine(norm, se, be)
    # the magnitude, group by group: scale and bias broadcast over each channel's elements
    mag = scaled_magnitude(grouped, mean, inv,
                           se.reshape((1, num_groups, c // num_groups) + (1,) * (x.ndim - 2)),
                           be.reshape((1, num_groups, c // num_groups) + (1,) * (x.ndim - 2)), axes)
    attrs = {"num_groups": num_groups}
    if epsilon is not None:
        attrs["epsilon"] = epsilon
    stash_name = "float"
    if stash is not None:
        attrs["stash_type"] = stash_of(stash)
        stash_name = stash
    tol = tolerance([t.dtype], n, mag, after=root_steps(stash_name), stash=stash_name, stage_two=[t.dtype])
    return Case({"X": x, "scale": scale, "bias": bias}, {"Y": rounded(y, t.dtype)}, attrs, tolerance=tol)


@OPERATOR.example
def example(v, t, rng):
    """onnx's example: (3, 4, 2, 2), two groups."""
    return group_norm(v, t, data(t.dtype, (3, 4, 2, 2), rng), 2, rng=rng)


@OPERATOR.example
def epsilon(v, t, rng):
    """onnx's epsilon example: epsilon 1e-2."""
    return group_norm(v, t, data(t.dtype, (3, 4, 2, 2), rng), 2, epsilon=1e-2, rng=rng)


@OPERATOR.example
def one_group(v, t, rng):
    """'When there is only one group, this operator is equivalent to LayerNormalization.'"""
    return group_norm(v, t, data(t.dtype, (2, 3, 5), rng), 1, rng=rng)


@OPERATOR.example
def group_per_channel(v, t, rng):
    """'When the number of groups is the same as the number of channels, this operator is
    equivalent to InstanceNormalization.'"""
    return group_norm(v, t, data(t.dtype, (2, 3, 2, 3), rng), 3, rng=rng)


@OPERATOR.example
def rank3_three_groups(v, t, rng):
    """(N x C x D1), six channels in three groups of two."""
    return group_norm(v, t, data(t.dtype, (2, 6, 4), rng), 3, rng=rng)


@OPERATOR.example
def stash_type_double(v, t, rng):
    """stash_type = 11 (double): stage one in double ('The floating-point precision used in stage one')."""
    if t.dtype != "double":
        return NotApplicable("stash_type = double runs with X in double; the type is covered by example")
    return group_norm(v, t, data(t.dtype, (2, 4, 3), rng), 2, stash="double", rng=rng)


@OPERATOR.rejection
def num_groups_not_divisor(v, t, rng):
    """num_groups = 3 with C = 4."""
    x = data(t.dtype, (2, 4, 2, 2), rng)
    return Case({"X": x, "scale": scale_data(t.dtype, (4,), rng), "bias": scale_data(t.dtype, (4,), rng)},
                {"Y": Declared(t.dtype, x.shape)}, {"num_groups": 3},
                error="The number of groups of channels. It should be a divisor of the number of channels `C`.")


OPERATOR.reference_differs(
    r"^\w+ b?float16: ",
    "the evaluator computes float16 and bfloat16 in the type itself; the spec's stash_type 1 "
    "computes stage one in float (ours: the exact value rounded once)",
)
