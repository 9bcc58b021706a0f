"""Normalizations: BatchNormalization (test and training mode), Dropout (its deterministic forms), GroupNormalization, InstanceNormalization, LayerNormalization, LpNormalization, LRN, MeanVarianceNormalization, RMSNormalization and SwiGLU.

Each drawn node is finished the way its operator module finishes its examples (generators/ops/<op>.py):
the expected outputs are the semantics, the tolerance is norm_family.tolerance over the group this data
normalizes, with the magnitude the module's own `standardized` (or `normalized`, `response`) computes,
so a long normalized axis (31, 127, 509, ...) gets the accumulation budget its length calls for.
LpNormalization's outputs are marked (`warn`) where its L2 sum of squares falls below the normal range
(the Reduce family's rule for ReduceL2).

Values: a float input's edges are those whose square, summed over the group, stays within the type the
computation runs in (the type itself, float for float16 and bfloat16, as the family judges them): the
spec names no precision for a sum of squares (stash_type's 'casts all input variables to 32-bit float'
even puts one in float), so an intermediate overflow is not a wrong answer. NaN, the infinities, zeros,
subnormals and the neighbours of 1 are drawn; epsilon is positive ('to avoid division by zero').
Dropout draws only what has one value: test mode (is_test 1; versions 7 and 10, without the mask, whose
test-mode value they do not state), training_mode false or absent, or ratio 0; a random dropout
(training with ratio > 0) has no expected output here and is left out.
"""

from __future__ import annotations

import math
from functools import lru_cache
from importlib import import_module

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.harness.dtypes import numpy_of
from onnx_conformance.harness.strategies import common
from onnx_conformance.harness.strategies.common import (
    IEEE,
    Discard,
    Family,
    Probe,
    edges,
    element_values,
    ordinary,
    shapes,
    tensors,
    unidirectional_shape,
)
from onnx_conformance.harness.strategies.indices import negative_spelling

# X's elements at most, by the cost of the exact semantics (Fractions and mpmath, element by element: 60
# to 200 microseconds an element), so that a search runs at 5 draws/s or more; Dropout's is a copy.
ELEMENTS = {"Dropout": common.MAX_ELEMENTS, "BatchNormalization": 1024, "GroupNormalization": 1024,
            "MeanVarianceNormalization": 1024, "SwiGLU": 1024, "InstanceNormalization": 512,
            "LayerNormalization": 512, "LpNormalization": 512, "LRN": 512, "RMSNormalization": 512}
SUMMED = 4096  # the most terms a drawn group sums (`bounded`)
EPSILONS = (1e-5, 1e-2, 0.1, 1.0, 1e-3, 1e-6, 0.5)  # positive: 'to avoid division by zero'
MOMENTA = (0.9, 0.0, 1.0, 0.25, 0.5, 0.999)


class Normalizations(Family):
    name = "normalization"
    operators = ("BatchNormalization", "Dropout", "GroupNormalization", "InstanceNormalization",
                 "LayerNormalization", "LpNormalization", "LRN", "MeanVarianceNormalization", "RMSNormalization",
                 "SwiGLU")

    def covers(self, op, v):
        if op.name == "GroupNormalization" and v.since_version < 21:
            return ("GroupNormalization-18 (scale and bias per group) is deprecated: onnx's checker refuses "
                    "every model of it")
        return super().covers(op, v)

    def strategy(self, op, v, t):
        return {"BatchNormalization": _batch_norm, "Dropout": _dropout, "GroupNormalization": _group_norm,
                "InstanceNormalization": _instance_norm, "LayerNormalization": _layer_norm,
                "LpNormalization": _lp_norm, "LRN": _lrn, "MeanVarianceNormalization": _mvn,
                "RMSNormalization": _rms_norm, "SwiGLU": _swiglu}[op.name](op, v, t)

    def case(self, op, v, t, probe):
        finish = probe.extra.get("finish")
        if finish is None:
            return super().case(op, v, t, probe)
        case = finish(op, v, t, probe)
        if isinstance(case, NotApplicable):
            raise Discard(case.reason)
        return case


def _module(op):
    from onnx_conformance.generators.ops import snake

    return import_module(f"onnx_conformance.generators.ops.{snake(op.name)}")


# ---------------------------------------------------------------------------------------------
# values


def _compute_type(type_name: str) -> str:
    return "float" if type_name in ("float16", "bfloat16") else type_name


@lru_cache(maxsize=None)
def bounded(type_name: str, specials: bool = True):
    """One element (in common's storage) of a float type: ordinary values, or the type's edges whose
    square summed over SUMMED terms stays finite in the type the computation runs in (with NaN
    and the infinities where `specials`)."""
    if type_name not in IEEE:
        return element_values(type_name)
    limit = math.sqrt(float(np.finfo(numpy_of(_compute_type(type_name))).max) / SUMMED)
    listed = edges(type_name)
    store = np.dtype(f"uint{numpy_of(type_name).itemsize * 8}")
    with np.errstate(invalid="ignore", over="ignore"):
        decoded = np.array(listed, dtype=store).view(numpy_of(type_name)).astype(np.float64)
    keep = tuple(e for e, x in zip(listed, decoded)
                 if (specials and not np.isfinite(x)) or (np.isfinite(x) and abs(x) <= limit))
    return st.one_of(ordinary(type_name), st.sampled_from(keep))


def _tensor(draw, type_name, shape, label, operand=0, specials=True, role="distinct"):
    return draw(tensors(type_name, tuple(shape), role=role, operand=operand, elements=bounded(type_name, specials)),
                label=label)


def _epsilon(draw, attrs, v):
    if v.has_attribute("epsilon") and draw(st.booleans(), label="give epsilon"):
        attrs["epsilon"] = draw(st.sampled_from(EPSILONS), label="epsilon")


def _channels_shape(draw, op, min_rank: int, exact_rank: int | None = None):
    """(N, C, D1, ...) of at most the operator's ELEMENTS."""
    rank = exact_rank if exact_rank is not None else draw(st.integers(min_rank, common.MAX_RANK), label="rank")
    return draw(shapes(rank, rank, ELEMENTS[op.name]), label="X shape")


# ---------------------------------------------------------------------------------------------
# BatchNormalization


@st.composite
def _batch_norm(draw, op, v, t):
    bn = _module(op)
    scale_type, stat_type = bn.param_types(v, t)
    training = v.since_version >= 14 and draw(st.booleans(), label="training_mode")
    if v.since_version == 1:
        shape = _channels_shape(draw, op, 4, exact_rank=4)  # 'The input 4-dimensional tensor of shape NCHW.'
    else:  # 'C is assumed to be 1' for a single dimension from version 9
        shape = _channels_shape(draw, op, 1 if v.since_version >= 9 else 2)
    x = _tensor(draw, t.dtype, shape, "X")
    attrs = bn.mode_attrs(v, training)
    spatial = 1
    # spatial 0 has its (C x D1 x ... x Dn) statistics from version 7 (before, no stated shapes)
    if v.has_attribute("spatial") and v.since_version >= 7 and len(shape) > 2 and draw(st.booleans(), label="spatial"):
        spatial = draw(st.sampled_from([0, 1]), label="spatial value")
        attrs["spatial"] = spatial
    if len(shape) == 1:
        stat_shape = (1,)
    else:
        stat_shape = (shape[1],) if spatial else tuple(shape[1:])
    scale = _tensor(draw, scale_type, stat_shape, "scale", 1)
    bias = _tensor(draw, scale_type, stat_shape, "B", 2)
    mean = _tensor(draw, stat_type, stat_shape, "mean", 3)
    var = np.abs(_tensor(draw, stat_type, stat_shape, "var", 4))  # a variance: not below 0
    _epsilon(draw, attrs, v)
    if v.has_attribute("momentum") and draw(st.booleans(), label="give momentum"):
        attrs["momentum"] = draw(st.sampled_from(MOMENTA), label="momentum")
    m_name, v_name = bn.stat_names(v)
    inputs = {"X": x, "scale": scale, "B": bias, m_name: mean, v_name: var}
    # onnx's inference: 'This number of op outputs should be 3 when Training_mode = True'
    outputs = ["Y", "running_mean", "running_var"] if training else ["Y"]
    return Probe(inputs, attrs, outputs, extra={"finish": _finish_batch_norm, "training": training})


def _finish_batch_norm(op, v, t, probe):
    from onnx_conformance.generators.norm_family import root_steps, tolerance

    bn = _module(op)
    m_name, v_name = bn.stat_names(v)
    i = probe.inputs
    if probe.extra["training"]:
        _, _, _, mag, n = bn.training_mode(probe.attrs, i["X"], i["scale"], i["B"], i[m_name], i[v_name])
        tol = tolerance([t.dtype, bn.param_types(v, t)[1]], n, mag, after=root_steps(t.dtype), stash="float")
    else:
        _, mag = bn.test_mode(v, probe.attrs, i["X"], i["scale"], i["B"], i[m_name], i[v_name])
        tol = tolerance([t.dtype], 1, mag, after=root_steps(t.dtype))
    return op.expect(v, i, probe.attrs, outputs=probe.outputs, tolerance=tol)


# ---------------------------------------------------------------------------------------------
# Dropout


@st.composite
def _dropout(draw, op, v, t):
    x = draw(tensors(t.dtype, draw(shapes(0, common.MAX_RANK, ELEMENTS[op.name]), label="data shape")), label="data")
    args = {"mask": False}
    if v.since_version < 7:
        # 'if nonzero, run dropout in test mode'; with is_test 0 (training) only ratio 0 has one value
        args["is_test"] = draw(st.sampled_from([1, 0]), label="is_test")
        if not args["is_test"]:
            args["ratio"] = 0.0
        elif draw(st.booleans(), label="give ratio"):
            args["ratio"] = draw(st.sampled_from([0.5, 0.0, 0.3, 0.999]), label="ratio")
    elif v.since_version < 12:
        # the mask is not asked for: versions 7 and 10 say only 'The output mask' (its test-mode value, all
        # ones, is version 12's sentence; onnxruntime gives zeros there)
        if draw(st.booleans(), label="give ratio"):
            args["ratio"] = draw(st.sampled_from([0.5, 0.0, 0.1, 0.999]), label="ratio")
    else:
        args["mask"] = draw(st.booleans(), label="ask mask")
        how = draw(st.sampled_from(["none", "false", "true"]), label="training_mode")
        if how != "none":
            args["training_mode"] = how == "true"
        if how == "true":  # only 'if it was set to 0, the output would be a simple copy of the input'
            args["ratio"] = 0.0
        elif draw(st.booleans(), label="give ratio"):
            args["ratio"] = draw(st.sampled_from([0.5, 0.0, 0.1, 0.75]), label="ratio")
        if draw(st.booleans(), label="give seed"):
            args["seed"] = draw(st.sampled_from([0, 1, -1, 2**31 - 1, 12345]), label="seed")
    return Probe({}, extra={"finish": _finish_dropout, "x": x, "args": args})


def _finish_dropout(op, v, t, probe):
    return _module(op).dropout_case(v, t, probe.extra["x"], **probe.extra["args"])


# ---------------------------------------------------------------------------------------------
# GroupNormalization, InstanceNormalization, LayerNormalization, RMSNormalization


@st.composite
def _group_norm(draw, op, v, t):
    shape = _channels_shape(draw, op, 2)
    c = shape[1]
    divisors = [g for g in range(1, max(c, 1) + 1) if c % g == 0] or [1]
    groups = draw(st.sampled_from(divisors), label="num_groups")
    attrs = {"num_groups": groups}
    x = _tensor(draw, t.dtype, shape, "X")
    scale, bias = _tensor(draw, t.dtype, (c,), "scale", 1), _tensor(draw, t.dtype, (c,), "bias", 2)
    _epsilon(draw, attrs, v)
    stash = "float"
    if v.has_attribute("stash_type") and draw(st.booleans(), label="give stash_type"):
        stash = draw(st.sampled_from(["float", "double"]), label="stash_type")
        attrs["stash_type"] = 1 if stash == "float" else 11
    return Probe({"X": x, "scale": scale, "bias": bias}, attrs, extra={"finish": _finish_group_norm, "stash": stash})


def _finish_group_norm(op, v, t, probe):
    from onnx_conformance.generators.norm_family import root_steps, tolerance

    i, stash = probe.inputs, probe.extra["stash"]
    _, mag, n = _module(op).standardized(v, probe.attrs, i["X"], i["scale"], i["bias"])
    tol = tolerance([t.dtype], n, mag, after=root_steps(stash), stash=stash, stage_two=[t.dtype])
    return op.expect(v, i, probe.attrs, tolerance=tol)


@st.composite
def _instance_norm(draw, op, v, t):
    # version 1: 'The input 4-dimensional tensor of shape NCHW'; later '(N x C x D1 x D2 ... Dn)'
    shape = _channels_shape(draw, op, 3, exact_rank=4 if v.since_version == 1 else None)
    c = shape[1]
    attrs = {}
    _epsilon(draw, attrs, v)
    inputs = {"input": _tensor(draw, t.dtype, shape, "input"), "scale": _tensor(draw, t.dtype, (c,), "scale", 1),
              "B": _tensor(draw, t.dtype, (c,), "B", 2)}
    return Probe(inputs, attrs, extra={"finish": _finish_instance_norm})


def _finish_instance_norm(op, v, t, probe):
    from onnx_conformance.generators.norm_family import root_steps, tolerance

    i = probe.inputs
    _, mag, n = _module(op).standardized(v, probe.attrs, i["input"], i["scale"], i["B"])
    return op.expect(v, i, probe.attrs, tolerance=tolerance([t.dtype], n, mag, after=root_steps(t.dtype)))


@st.composite
def _axis_and_trailing(draw, v, shape):
    """A normalized range [axis, r) (axis drawn, or left at its default -1) and its shape."""
    r = len(shape)
    axis = draw(st.integers(0, r - 1), label="axis")
    given = axis != r - 1 or draw(st.booleans(), label="give axis")
    spelled = negative_spelling(draw, axis, r) if given else None
    return spelled, tuple(shape[axis:])


@st.composite
def _layer_norm(draw, op, v, t):
    shape = draw(shapes(1, common.MAX_RANK, ELEMENTS[op.name]), label="X shape")
    axis, trailing = draw(_axis_and_trailing(v, shape), label="axis")
    attrs = {} if axis is None else {"axis": axis}
    u = t["U"]
    if u != "float" or draw(st.booleans(), label="give stash_type"):
        attrs["stash_type"] = 1 if u == "float" else 16  # 'Type of Mean and InvStdDev': U is the stash type
    _epsilon(draw, attrs, v)
    # Scale and B 'should be unidirectional broadcastable to tensor X': the normalized shape, some axes 1
    scale = _tensor(draw, t.dtype, draw(unidirectional_shape(trailing), label="Scale shape"), "Scale", 1)
    inputs = {"X": _tensor(draw, t.dtype, shape, "X"), "Scale": scale}
    if draw(st.booleans(), label="give B"):
        inputs["B"] = _tensor(draw, t.dtype, draw(unidirectional_shape(trailing), label="B shape"), "B", 2)
    outputs = draw(st.sampled_from([["Y"], ["Y", "Mean", "InvStdDev"], ["Y", "Mean"], ["Y", None, "InvStdDev"]]),
                   label="outputs")
    return Probe(inputs, attrs, outputs, extra={"finish": _finish_layer_norm})


def _finish_layer_norm(op, v, t, probe):
    from onnx_conformance.generators.norm_family import root_steps, tolerance

    i, u = probe.inputs, t["U"]
    _, _, _, mag, n = _module(op).standardized(probe.attrs, i["X"], i["Scale"], i.get("B"))
    tol = tolerance([t.dtype, u], n, mag, after=root_steps(u), stash=u, stage_two=[t.dtype])
    return op.expect(v, i, probe.attrs, outputs=probe.outputs, tolerance=tol)


@st.composite
def _rms_norm(draw, op, v, t):
    shape = draw(shapes(1, common.MAX_RANK, ELEMENTS[op.name]), label="X shape")
    axis, trailing = draw(_axis_and_trailing(v, shape), label="axis")
    attrs = {} if axis is None else {"axis": axis}
    stash = "float"
    if draw(st.booleans(), label="give stash_type"):
        stash = draw(st.sampled_from(["float", "double"]), label="stash_type")
        attrs["stash_type"] = 1 if stash == "float" else 11
    _epsilon(draw, attrs, v)
    # 'Scale tensor shape should be broadcastable to the normalized shape'
    scale = _tensor(draw, t["V"], draw(unidirectional_shape(trailing), label="scale shape"), "scale", 1)
    return Probe({"X": _tensor(draw, t.dtype, shape, "X"), "scale": scale}, attrs,
                 extra={"finish": _finish_rms_norm, "stash": stash})


def _finish_rms_norm(op, v, t, probe):
    from onnx_conformance.generators.norm_family import magnitude, root_steps, tolerance

    rms = _module(op)
    if t["V"] != t.dtype:
        raise Discard(rms.MIXED)
    y, n = rms.normalized(probe.attrs, probe.inputs["X"], probe.inputs["scale"])
    tol = tolerance([t["V"]], n, magnitude(y), after=root_steps("float"), stash=probe.extra["stash"],
                    stage_two=[t.dtype, t["V"]])
    return op.expect(v, probe.inputs, probe.attrs, tolerance=tol)


# ---------------------------------------------------------------------------------------------
# LpNormalization, LRN, MeanVarianceNormalization, SwiGLU: their modules' own case functions


@st.composite
def _lp_norm(draw, op, v, t):
    x = _tensor(draw, t.dtype, draw(shapes(1, common.MAX_RANK, ELEMENTS[op.name]), label="input shape"), "input")
    r = x.ndim
    args = {}
    if draw(st.booleans(), label="give p"):
        args["p"] = draw(st.sampled_from([2, 1]), label="p")  # 'only 1 or 2 are supported'
    axis = draw(st.integers(0, r - 1), label="axis")
    if axis != r - 1 or draw(st.booleans(), label="give axis"):
        args["axis"] = negative_spelling(draw, axis, r)
    if x.size and draw(st.booleans(), label="a zero line"):  # 'When the Lp norm is zero ... defined to be zero'
        line = [0] * r
        line[axis] = slice(None)
        x[tuple(line)] = 0
    return Probe({}, extra={"finish": lambda op, v, t, p: _lp_marked(_module(op).lp_norm(v, t, x, **args), t, x, args)})


def _lp_marked(case, t, x, args):
    """The case, its outputs marked (reduce.UNDERFLOW, the Reduce family's words) along the lines whose L2
    sum of squares falls below the normal range of the type the work runs in: a runtime that sums the
    squares there gets 0, a zero norm, and outputs 0 ('defined to be zero')."""
    from onnx_conformance.harness.strategies.reduce import UNDERFLOW

    if isinstance(case, NotApplicable) or args.get("p", 2) != 2 or not x.size or t.dtype not in IEEE:
        return case
    a = args.get("axis", -1) % x.ndim
    tiny = float(np.finfo(numpy_of(_compute_type(t.dtype))).smallest_normal)
    with np.errstate(all="ignore"):
        wide = x.astype(np.longdouble)
        squares = np.sum(wide * wide, axis=a, keepdims=True)
    hit = np.broadcast_to((squares > 0) & (squares < tiny), x.shape).reshape(-1)
    flat = [int(i) for i in np.flatnonzero(hit)]
    if flat:
        reason = UNDERFLOW.format(what="the sum of squares", type=_compute_type(t.dtype))
        case.quality = {"reason": reason, "outputs": {"0": flat}}
    return case


@st.composite
def _lrn(draw, op, v, t):
    # X: '(N x C x D1 x D2 ... Dn)'; half the draws of rank 4, the image case, where kernels are written
    # (onnxruntime's takes rank 4 only, so other ranks alone would spend a search on that one error)
    four = draw(st.booleans(), label="rank 4")
    shape = _channels_shape(draw, op, 2, exact_rank=4 if four else None)
    size = draw(st.one_of(st.sampled_from([1, 2, 3, 5]), st.integers(1, 2 * max(shape[1], 1) + 1)), label="size")
    args = {"size": size}
    for name, choices in (("alpha", [1e-4, 0.001, 0.5, 1.0, 2.0, 0.0]), ("beta", [0.75, 0.5, 1.0, 2.0, 0.0, -0.5]),
                          ("bias", [1.0, 2.0, 0.5, 1e-3, 10.0])):
        if draw(st.booleans(), label=f"give {name}"):
            args[name] = draw(st.sampled_from(choices), label=name)
    # no infinity under a negative beta: lrn.response divides by power(inf, beta) = 0 (ZeroDivisionError)
    x = _tensor(draw, t.dtype, shape, "X", specials=args.get("beta", 0.75) >= 0)
    return Probe({}, extra={"finish": lambda op, v, t, p: _module(op).case(v, t, x, **args)})


@st.composite
def _mvn(draw, op, v, t):
    x = _tensor(draw, t.dtype, draw(shapes(1, common.MAX_RANK, ELEMENTS[op.name]), label="X shape"), "X")
    r = x.ndim
    axes = None
    # 'The default is to calculate along axes [0,2,3]': left out for a rank-4 X before version 13 (from 13
    # the function body gets no axes then, see mean_variance_normalization.NO_AXES)
    if not (r == 4 and v.since_version < 13 and draw(st.booleans(), label="default axes")):
        picked = draw(st.lists(st.integers(0, r - 1), min_size=1, max_size=r, unique=True), label="axes")
        axes = [negative_spelling(draw, a, r) for a in picked]
    return Probe({}, extra={"finish": lambda op, v, t, p: _module(op).mvn(v, t, x, axes)})


@st.composite
def _swiglu(draw, op, v, t):
    shape = draw(shapes(0, common.MAX_RANK, ELEMENTS[op.name]), label="shape")  # 'identical shapes'
    a = draw(tensors(t.dtype, shape), label="A")
    b = draw(tensors(t.dtype, shape, operand=1), label="B")
    alpha = draw(st.one_of(st.none(), st.sampled_from([1.0, 0.5, 1.702, -1.0, 0.0, 4.0])), label="alpha")
    return Probe({}, extra={"finish": lambda op, v, t, p: _module(op).case(v, t, a, b, alpha)})
