"""InstanceNormalization: y = scale * (x - mean) / sqrt(variance + epsilon) + B, mean and variance per instance per channel."""


from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.norm_family import (
    DEFAULT_EPSILON,
    affine,
    float_attr,
    data,
    documented,
    ex,
    normalize,
    rounded,
    root_steps,
    scale_data,
    scaled_magnitude,
    tolerance,
    with_specials,
)
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("InstanceNormalization")


def standardized(v, attrs: dict, x, scale, bias):
    """scale * (x - mean) / sqrt(variance + epsilon) + B with the mean and population variance of each
    instance and channel over the spatial axes, in mpmath at PREC bits (statistics exact); also the
    accumulation's magnitude and length for the tolerance."""
    if v.since_version == 1 and x.ndim != 4:
        raise Rejected("input: 'The input 4-dimensional tensor of shape NCHW.'")
    if x.ndim < 3:
        raise Rejected("input: '(N x C x D1 x D2 ... Dn)'")
    if scale.shape != (x.shape[1],):
        raise Rejected("scale: 'The input 1-dimensional scale tensor of size C.'")
    if bias.shape != (x.shape[1],):
        raise Rejected("B: 'The input 1-dimensional bias tensor of size C.'")
    eps = float_attr(attr(attrs, "epsilon", DEFAULT_EPSILON))
    xe = ex(x)
    axes = tuple(range(2, x.ndim))
    per_channel = (1, -1) + (1,) * (x.ndim - 2)
    se, be = ex(scale).reshape(per_channel), ex(bias).reshape(per_channel)
    norm, mean, inv, n = normalize(xe, axes, eps)
    y = affine(norm, se, be)
    return y, scaled_magnitude(xe, mean, inv, se, be, axes), n


@OPERATOR.semantics
def instance_normalization(v, attrs, inputs):
    """y = scale * (x - mean) / sqrt(variance + epsilon) + B per instance and channel, rounded once to T."""
    x = inputs["input"]
    y, _, _ = standardized(v, attrs, x, inputs["scale"], inputs["B"])
    return {"output": rounded(y, name_of_numpy(x.dtype))}


def instance_norm(v, t, x, scale, bias, epsilon=None):
    """The case: the semantics' output, the accumulation tolerance of this data."""
    if v.since_version == 1 and x.ndim != 4:
        return NotApplicable("InstanceNormalization-1's input is 'The input 4-dimensional tensor of shape NCHW.'")
    attrs = {} if epsilon is None else {"epsilon": epsilon}
    _, mag, n = standardized(v, attrs, x, scale, bias)
    return OPERATOR.expect(v, {"input": x, "scale": scale, "B": bias}, attrs,
                           tolerance=tolerance([t.dtype], n, mag, after=root_steps(t.dtype)))


@OPERATOR.example
def example(v, t, rng):
    """onnx's documented data: input (1, 2, 1, 3), scale [1, 1.5], B [0, 1]."""
    x = documented([[[[-1, 0, 1]], [[2, 3, 4]]]], t.dtype)
    return instance_norm(v, t, x, documented([1.0, 1.5], t.dtype), documented([0, 1], t.dtype))


@OPERATOR.example
def epsilon(v, t, rng):
    """onnx's epsilon example: (2, 3, 4, 5) data, epsilon 1e-2."""
    return instance_norm(v, t, data(t.dtype, (2, 3, 4, 5), rng), scale_data(t.dtype, (3,), rng),
                         scale_data(t.dtype, (3,), rng), epsilon=1e-2)


@OPERATOR.example
def rank3(v, t, rng):
    """(N x C x D1): statistics over D1 alone."""
    return instance_norm(v, t, data(t.dtype, (2, 3, 7), rng), scale_data(t.dtype, (3,), rng),
                         scale_data(t.dtype, (3,), rng))


@OPERATOR.example
def rank5(v, t, rng):
    """(N x C x D1 x D2 x D3): statistics over three spatial dimensions."""
    return instance_norm(v, t, data(t.dtype, (1, 2, 3, 2, 3), rng), scale_data(t.dtype, (2,), rng),
                         scale_data(t.dtype, (2,), rng))


@OPERATOR.example
def single_element(v, t, rng):
    """One element per instance and channel: variance 0, y = B (x - mean is exactly 0)."""
    return instance_norm(v, t, data(t.dtype, (2, 3, 1, 1), rng), scale_data(t.dtype, (3,), rng),
                         scale_data(t.dtype, (3,), rng))


OPERATOR.reference_differs(
    r"^\w+ b?float16: ",
    "the evaluator computes float16 and bfloat16 in the type itself (mean, variance, sqrt each rounded "
    "to the narrow type); ours is the exact value rounded once",
)


@OPERATOR.example
def ieee_specials(v, t, rng):
    """A NaN in channel 0 and a -inf in channel 1 of one instance: IEEE 754 through the definition makes
    those channels' outputs NaN; channel 2 and the other instance are unaffected."""
    x = with_specials(data(t.dtype, (2, 3, 2, 2), rng), {(0, 0, 0, 1): float("nan"), (0, 1, 1, 1): float("-inf")})
    return instance_norm(v, t, x, scale_data(t.dtype, (3,), rng), scale_data(t.dtype, (3,), rng))
