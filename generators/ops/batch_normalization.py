"""BatchNormalization: inference mode Y = (X - mean) / sqrt(var + epsilon) * scale + B with the given
statistics; training mode (version 14 on) with the batch's own mean and population variance, and the
running statistics updated by momentum.

Before version 14 the mode is a matter of outputs ('Output case #1: Y, mean, var, saved_mean,
saved_var (training mode)', '#2: Y (test mode)'; versions 1 and 6 also is_test): those versions run
in test mode only, since they give no formula for saved_mean and saved_var.
"""

import mpmath
import numpy as np

from onnx_conformance.generators.case import Declared, NotApplicable, Operator
from onnx_conformance.generators.norm_family import (
    DEFAULT_EPSILON,
    affine,
    float_attr,
    data,
    ex,
    inv_sqrt,
    magnitude,
    mean_var,
    mp,
    normalize,
    rounded,
    root_steps,
    scale_data,
    scaled_magnitude,
    tolerance,
    with_specials,
)
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("BatchNormalization", primary="T")

DEFAULT_MOMENTUM = 0.9


def stat_names(v):
    return ("mean", "var") if v.since_version < 14 else ("input_mean", "input_var")


def param_types(v, t):
    """(scale and B's type, mean and var's type) in version v's binding t."""
    if v.since_version >= 15:
        return t["T1"], t["T2"]
    if v.since_version == 14:
        return t.dtype, t["U"]
    return t.dtype, t.dtype


def mode_attrs(v, training: bool) -> dict:
    if v.since_version >= 14:
        return {"training_mode": 1} if training else {}
    attrs = {}
    if v.has_attribute("is_test"):
        attrs["is_test"] = 1  # 'If set to nonzero, run spatial batch normalization in test mode'
    if v.since_version == 1:
        attrs["consumed_inputs"] = [0, 0, 0, 0, 0]  # required ('legacy optimization attribute'): nothing in place
    return attrs


def test_mode(v, attrs: dict, x, scale, bias, mean, var):
    """Y = (X - mean) / sqrt(var + epsilon) * scale + B with the given statistics, in mpmath at PREC bits;
    also the tolerance's magnitude (the largest |Normalized * scale| plus the largest |B|). The statistics
    are (C) ('C is assumed to be 1' for a 1-D X, version 9 on), or (C x D1 x ... x Dn) where spatial is 0
    (versions 7 and 8)."""
    if v.since_version == 1 and x.ndim != 4:
        raise Rejected("X: 'The input 4-dimensional tensor of shape NCHW.'")
    if x.ndim < (1 if v.since_version >= 9 else 2):
        raise Rejected("X: '(N x C x D1 x D2 ... Dn)'")
    spatial = attr(attrs, "spatial", 1)
    if not spatial and v.since_version < 7:
        raise Undefined(f"BatchNormalization-{v.since_version} gives scale, B, mean and var as '1-dimensional tensor "
                        "of size C' whatever spatial is: spatial = 0 has no stated meaning there")
    if x.ndim == 1:
        shape = (1,)
    else:
        shape = (x.shape[1],) if spatial else tuple(x.shape[1:])
    for name, t in (("scale", scale), ("B", bias), ("mean", mean), ("var", var)):
        if t.shape != shape:
            raise Rejected(f"{name}: of shape (C){'' if spatial else ' or, spatial false, (C x D1 x ... x Dn)'}")
    eps = float_attr(attr(attrs, "epsilon", DEFAULT_EPSILON))
    lead = 0 if x.ndim == 1 else 1  # 'single dimension input of size N in which case C is assumed to be 1'
    per = shape + (1,) * (x.ndim - lead - len(shape))

    def put(a):
        return ex(a).reshape(per)

    xe = ex(x)
    inv = inv_sqrt(put(var), eps)
    with mpmath.workprec(PREC):
        norm = np.vectorize(mp, otypes=[object])(xe - put(mean)) * inv
    y = affine(norm, put(scale), put(bias))
    with mpmath.workprec(PREC):
        terms = np.vectorize(lambda e: abs(e), otypes=[object])(norm * np.vectorize(mp, otypes=[object])(put(scale)))
    return y, magnitude(terms) + magnitude(ex(bias))


def training_mode(attrs: dict, x, scale, bias, in_mean, in_var):
    """Version 14 on, training_mode 1: Y normalized with the batch's own mean and population variance over
    every axis but 1 ('ReduceMean(X, axis=all_except_channel_index)', 'the population size (N)'), and
    running = input * momentum + current * (1 - momentum) (momentum default 0.9); in mpmath at PREC bits,
    the statistics exact. Also the tolerance's magnitude and the count each statistic averages."""
    xs = x.reshape(-1, 1) if x.ndim == 1 else x  # 'C is assumed to be 1'
    c = xs.shape[1]
    for name, t in (("scale", scale), ("B", bias), ("input_mean", in_mean), ("input_var", in_var)):
        if t.shape != (c,):
            raise Rejected(f"{name}: 'tensor of shape (C)'")
    eps = float_attr(attr(attrs, "epsilon", DEFAULT_EPSILON))
    mom = float_attr(attr(attrs, "momentum", DEFAULT_MOMENTUM))
    per = (c,) + (1,) * (xs.ndim - 2)
    xe = ex(xs)
    axes = (0,) + tuple(range(2, xs.ndim))
    norm, cur_mean, inv, n = normalize(xe, axes, eps)
    _, cur_var, _ = mean_var(xe, axes)
    se, be = ex(scale).reshape(per), ex(bias).reshape(per)
    y = affine(norm, se, be).reshape(x.shape)
    run_mean = ex(in_mean) * mom + cur_mean.reshape(-1) * (1 - mom)
    run_var = ex(in_var) * mom + cur_var.reshape(-1) * (1 - mom)
    mag = max(scaled_magnitude(xe, cur_mean, inv, se, be, axes, stats=True), magnitude(run_var))
    return y, run_mean, run_var, mag, n


@OPERATOR.semantics
def batch_normalization(v, attrs, inputs, asked=None):
    """Test mode: Y from the given mean and var. Version 14 on with training_mode 1: Y from the batch's
    statistics, running_mean and running_var (in input_mean's type). Each rounded once. Before version
    14 only test mode has a value: versions 1 and 6 run it with is_test nonzero, versions 7 to 13 when
    the node asks for Y alone ('Output case #2: Y (test mode)'), and no version before 14 gives a formula
    for its training outputs (saved_mean, saved_var). From 14, training_mode 0 with more outputs asked
    for is refused."""
    x, scale, bias = inputs["X"], inputs["scale"], inputs["B"]
    m_name, v_name = stat_names(v)
    mean, var = inputs[m_name], inputs[v_name]
    out_type = name_of_numpy(x.dtype)
    more = asked is not None and any(asked[1:])
    if v.since_version >= 14 and not attr(attrs, "training_mode", 0) and more:
        raise Rejected("When training_mode=False, extra outputs are invalid.")
    if 7 <= v.since_version < 14 and more:
        raise Undefined(f"BatchNormalization-{v.since_version} asked for more than Y runs in training mode, whose "
                        "outputs it gives no formula for")
    if v.since_version >= 14 and attr(attrs, "training_mode", 0):
        y, run_mean, run_var, _, _ = training_mode(attrs, x, scale, bias, mean, var)
        stat_type = name_of_numpy(mean.dtype)
        return {"Y": rounded(y, out_type), "running_mean": rounded(run_mean, stat_type),
                "running_var": rounded(run_var, stat_type)}
    if v.has_attribute("is_test") and not attr(attrs, "is_test", 0):
        raise Undefined(f"BatchNormalization-{v.since_version} with is_test 0 (the default) runs in training mode, "
                        "whose statistics and outputs it gives no formula for")
    y, _ = test_mode(v, attrs, x, scale, bias, mean, var)
    return {"Y": rounded(y, out_type)}


def inference(v, t, x, stat_shape=None, epsilon=None, spatial=None, rng=None):
    """A test-mode case: random scale, B, mean and (positive) var of the statistics' shape, the semantics'
    Y, the tolerance of this data's normalization."""
    if v.since_version == 1 and x.ndim != 4:
        return NotApplicable("BatchNormalization-1's X is 'The input 4-dimensional tensor of shape NCHW.'")
    st, mt = param_types(v, t)
    c = 1 if x.ndim == 1 else x.shape[1]
    shape = (c,) if stat_shape is None else stat_shape
    scale, bias = scale_data(st, shape, rng), scale_data(st, shape, rng)
    mean, var = scale_data(mt, shape, rng), scale_data(mt, shape, rng, positive=True)
    attrs = mode_attrs(v, False)
    if epsilon is not None:
        attrs["epsilon"] = epsilon
    if spatial is not None:
        attrs["spatial"] = spatial
    _, mag = test_mode(v, attrs, x, scale, bias, mean, var)
    m_name, v_name = stat_names(v)
    inputs = {"X": x, "scale": scale, "B": bias, m_name: mean, v_name: var}
    return OPERATOR.expect(v, inputs, attrs, outputs=["Y"],
                           tolerance=tolerance([t.dtype], 1, mag, after=root_steps(t.dtype)))


def training(v, t, x, epsilon=None, momentum=None, rng=None):
    """A training-mode case (version 14 on): the semantics' Y, running_mean and running_var, the tolerance of
    this data's statistics ('The computation of ReduceMean and ReduceVar uses float', version 15)."""
    if v.since_version < 14:
        return NotApplicable(f"BatchNormalization-{v.since_version}'s training mode outputs saved_mean and "
                             "saved_var ('Output case #1: Y, mean, var, saved_mean, saved_var (training mode)') "
                             "with no formula for them; training_mode and its formulas are version 14's")
    st, mt = param_types(v, t)
    c = x.shape[1]
    scale, bias = scale_data(st, (c,), rng), scale_data(st, (c,), rng)
    in_mean, in_var = scale_data(mt, (c,), rng), scale_data(mt, (c,), rng, positive=True)
    attrs = mode_attrs(v, True)
    if epsilon is not None:
        attrs["epsilon"] = epsilon
    if momentum is not None:
        attrs["momentum"] = momentum
    _, _, _, mag, n = training_mode(attrs, x, scale, bias, in_mean, in_var)
    inputs = {"X": x, "scale": scale, "B": bias, "input_mean": in_mean, "input_var": in_var}
    return OPERATOR.expect(v, inputs, attrs,
                           tolerance=tolerance([t.dtype, mt], n, mag, after=root_steps(t.dtype), stash="float"))


@OPERATOR.example
def example(v, t, rng):
    """onnx's example: X (2, 3, 4, 5), the given mean and var (test mode)."""
    return inference(v, t, data(t.dtype, (2, 3, 4, 5), rng), rng=rng)


@OPERATOR.example
def epsilon(v, t, rng):
    return inference(v, t, data(t.dtype, (2, 3, 4, 5), rng), epsilon=1e-2, rng=rng)


@OPERATOR.example
def example_training_mode(v, t, rng):
    """onnx's training example: the batch's mean and variance, running statistics with momentum 0.9."""
    return training(v, t, data(t.dtype, (2, 3, 4, 5), rng), rng=rng)


@OPERATOR.example
def epsilon_training_mode(v, t, rng):
    return training(v, t, data(t.dtype, (2, 3, 4, 5), rng), epsilon=1e-2, momentum=0.9, rng=rng)


@OPERATOR.example
def momentum_training_mode(v, t, rng):
    """momentum 0.25: running = input * 0.25 + current * 0.75."""
    return training(v, t, data(t.dtype, (3, 2, 5), rng), momentum=0.25, rng=rng)


@OPERATOR.example
def rank2(v, t, rng):
    """(N x C): no spatial dimensions."""
    return inference(v, t, data(t.dtype, (4, 3), rng), rng=rng)


@OPERATOR.example
def rank1(v, t, rng):
    """'The op also accepts single dimension input of size N in which case C is assumed to be 1' (from version 9)."""
    if v.since_version < 9:
        return NotApplicable(f"BatchNormalization-{v.since_version} states no single-dimension input "
                             "('C is assumed to be 1' is version 9's)")
    return inference(v, t, data(t.dtype, (7,), rng), rng=rng)


@OPERATOR.example
def spatial_0(v, t, rng):
    """spatial = 0: statistics per activation, scale, B, mean and var of shape (C x D1 x ... x Dn)."""
    if not v.has_attribute("spatial"):
        return NotApplicable(f"BatchNormalization-{v.since_version} has no spatial attribute")
    if v.since_version < 7:
        return NotApplicable(f"BatchNormalization-{v.since_version} gives scale, B, mean and var as "
                             "'1-dimensional tensor of size C' whatever spatial is; the (C x D1 x ... x Dn) "
                             "shapes of spatial = 0 are version 7's")
    return inference(v, t, data(t.dtype, (2, 3, 2, 2), rng), stat_shape=(3, 2, 2), spatial=0, rng=rng)


@OPERATOR.example
def ieee_specials(v, t, rng):
    """NaN, +inf and -inf in X (test mode, elementwise): NaN stays NaN, an infinity becomes an infinity
    of its sign times scale's (IEEE 754 through (X - mean) / sqrt(var + epsilon) * scale + B)."""
    x = with_specials(data(t.dtype, (1, 3, 2, 2), rng),
                      {(0, 0, 0, 1): float("nan"), (0, 1, 1, 0): float("inf"), (0, 2, 0, 0): float("-inf"),
                       (0, 2, 1, 1): float("inf")})
    return inference(v, t, x, rng=rng)


@OPERATOR.rejection
def training_outputs_in_inference_mode(v, t, rng):
    """training_mode 0 (the default) with running_mean and running_var asked for."""
    if v.since_version < 14:
        return NotApplicable(f"BatchNormalization-{v.since_version} chooses its mode by its outputs")
    x = data(t.dtype, (2, 3, 2), rng)
    st, mt = param_types(v, t)
    inputs = {"X": x, "scale": scale_data(st, (3,), rng), "B": scale_data(st, (3,), rng),
              "input_mean": scale_data(mt, (3,), rng), "input_var": scale_data(mt, (3,), rng, positive=True)}
    outputs = {"Y": Declared(t.dtype, x.shape), "running_mean": Declared(mt, (3,)), "running_var": Declared(mt, (3,))}
    return OPERATOR.reject(v, inputs, {}, outputs)


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"No implementation for operator 'BatchNormalization' domain '' and version [1-5],",
    "the evaluator implements BatchNormalization from version 6 only",
)
OPERATOR.reference_differs(
    r"class 'BatchNormalization_6' is a tuple",
    "the evaluator runs versions 7-8 (no is_test) in its training branch and returns a nested tuple; with Y "
    "the only output the spec's 'Output case #2: Y (test mode)' applies",
)
OPERATOR.reference_differs(
    r"^\w+ double: .*max abs err \d(\.\d+)?e-0[5-9]",
    "with X in double and the statistics in float (U/T2 at their default), the evaluator computes "
    "var + epsilon and its root in float; ours is exact, rounded once to double",
)
OPERATOR.reference_differs(
    r"^(example|epsilon|rank1|rank2|ieee_specials) \w+: .*values differ",
    "the evaluator's BatchNormalization_9 (versions 9-13) normalizes with the momentum-mixed running "
    "statistics whenever momentum is set, and its default 0.9 always is; with Y the only output the spec's "
    "test mode uses the given mean and var (onnxruntime agrees with ours)",
)
OPERATOR.reference_differs(
    r"output [12] dtype \w+ != expected",
    "the evaluator returns running_mean and running_var in X's type; the schema types them U (version 14) "
    "or T2 (version 15), as the graph declares",
)
OPERATOR.reference_differs(
    r"^\w+_training_mode b?float16: .*values differ",
    "the evaluator computes float16 and bfloat16 in the type itself (its float16 sum of squares overflows: "
    "'The computation of ReduceMean and ReduceVar uses float to avoid overflow for float16 inputs'); ours is "
    "exact, rounded once",
)
OPERATOR.reference_differs(
    r"^rank1 \w+: .*IndexError: index 1 is out of bounds",
    "the evaluator's BatchNormalization_9 takes its momentum (training) branch and reduces over all axes "
    "but 1, which a 1-D X lacks; the spec's test mode needs no reduction ('C is assumed to be 1')",
)
OPERATOR.reference_differs(
    r"^spatial_0 \w+: .*could not be broadcast",
    "the evaluator ignores spatial and reshapes the statistics to (C, 1, ...); spatial = 0 gives them "
    "the shape (C x D1 x ... x Dn)",
)
