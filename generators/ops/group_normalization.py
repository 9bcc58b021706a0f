"""GroupNormalization: standardize each instance's group of channels, then scale and shift per channel.

Version 18 (scale and bias per group) is deprecated: onnx's checker refuses it, so coverage lists it
without cases. Version 21: scale and bias 'should be specified for each channel', stage one in
stash_type's precision (default 1, float).
"""

from onnx_conformance.generators.case import Declared, NotApplicable, Operator
from onnx_conformance.generators.norm_family import (
    DEFAULT_EPSILON,
    affine,
    float_attr,
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
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("GroupNormalization")


GROUPS_RULE = "The number of groups of channels. It should be a divisor of the number of channels `C`."


def standardized(v, attrs: dict, x, scale, bias):
    """(X - mean) / sqrt(var + epsilon) over each instance's group of C / num_groups channels and the
    spatial axes, times scale plus bias per channel (version 21) or per group (version 18), in mpmath at
    PREC bits with exact statistics; also the tolerance's magnitude and the group size."""
    num_groups = attrs.get("num_groups")
    if x.ndim < 2:
        raise Rejected("X: '(N x C x D1 x D2 ... Dn)'")
    n_, c = x.shape[:2]
    if num_groups is None or num_groups < 1 or c % num_groups:
        raise Rejected(GROUPS_RULE)
    per = c if v.since_version >= 21 else num_groups
    if scale.shape != (per,) or bias.shape != (per,):
        raise Rejected(f"scale, bias: 'of shape `({'C' if v.since_version >= 21 else 'num_groups'})`'")
    eps = float_attr(attr(attrs, "epsilon", DEFAULT_EPSILON))
    grouped_shape = (n_, num_groups, c // num_groups) + x.shape[2:]
    grouped = ex(x).reshape(grouped_shape)
    axes = tuple(range(2, grouped.ndim))
    norm, mean, inv, n = normalize(grouped, axes, eps)
    # scale and bias broadcast over each channel's (version 18: each group's) elements
    lead = (1, num_groups, c // num_groups) if per == c else (1, num_groups, 1)
    se = ex(scale).reshape(lead + (1,) * (x.ndim - 2))
    be = ex(bias).reshape(lead + (1,) * (x.ndim - 2))
    y = affine(norm, se, be).reshape(x.shape)
    return y, scaled_magnitude(grouped, mean, inv, se, be, axes), n


@OPERATOR.semantics
def group_normalization(v, attrs, inputs):
    """Y = scale * (X - mean) / sqrt(var + epsilon) + bias, statistics per instance and group of channels,
    rounded once to T."""
    x = inputs["X"]
    y, _, _ = standardized(v, attrs, x, inputs["scale"], inputs["bias"])
    return {"Y": rounded(y, name_of_numpy(x.dtype))}


def group_norm(v, t, x, num_groups, epsilon=None, stash=None, rng=None):
    """The case: random per-channel scale and bias, the semantics' Y, the tolerance of this data's
    statistics in stash_type's precision (default float)."""
    c = x.shape[1]
    scale = scale_data(t.dtype, (c,), rng)
    bias = scale_data(t.dtype, (c,), rng)
    attrs = {"num_groups": num_groups}
    if epsilon is not None:
        attrs["epsilon"] = epsilon
    stash_name = "float"
    if stash is not None:
        attrs["stash_type"] = stash_of(stash)
        stash_name = stash
    _, mag, n = standardized(v, attrs, x, scale, bias)
    tol = tolerance([t.dtype], n, mag, after=root_steps(stash_name), stash=stash_name, stage_two=[t.dtype])
    return OPERATOR.expect(v, {"X": x, "scale": scale, "bias": bias}, attrs, tolerance=tol)


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
    return OPERATOR.reject(v, {"X": x, "scale": scale_data(t.dtype, (4,), rng), "bias": scale_data(t.dtype, (4,), rng)},
                           {"num_groups": 3}, {"Y": Declared(t.dtype, x.shape)})


OPERATOR.reference_differs(
    r"^\w+ b?float16: ",
    "the evaluator computes float16 and bfloat16 in the type itself; the spec's stash_type 1 "
    "computes stage one in float (ours: the exact value rounded once)",
)
