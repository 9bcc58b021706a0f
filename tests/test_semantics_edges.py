"""Edge inputs the exploration strategies met, each once a Python error inside an operator's semantics: every
one now gives the spec's value, or says no with Rejected or Undefined and its reason."""

from __future__ import annotations

import math

import numpy as np
import pytest

from onnx_conformance.generators.case import Map, Types
from onnx_conformance.generators.exact import operator, version_in_force
from onnx_conformance.generators.semantics import Rejected, Undefined, named_outputs
from onnx_conformance.generators.spec import versions

nan, inf = math.nan, math.inf
F32 = np.float32


def semantics(op, opset, attrs, inputs, domain=""):
    return operator(domain, op).meaning_of(version_in_force(op, domain, opset), attrs, inputs, None)


def resize(x, sizes, roi=None, **attrs):
    inputs = {"X": x, "sizes": np.array(sizes, np.int64)}
    if roi is not None:
        inputs["roi"] = np.array(roi, F32)
    return semantics("Resize", 19, attrs, inputs)["Y"]


CROP = {"coordinate_transformation_mode": "tf_crop_and_resize"}
ROW = [[0 + 10j, 1 + 11j, 2 + 12j, 3 + 13j]]  # x_original -1.5, 0.5, 2.5, 4.5: the ends extrapolated


def recurrent(op, opset, activations, alpha=None, beta=None):
    rng = np.random.default_rng(0)
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    per = {"RNN": 1, "GRU": 2, "LSTM": 3}[op]
    r = rng.standard_normal((1, gates * 2, 2)).astype(F32)
    if opset == 1:  # R as GRU-1 reads it: symmetric gate blocks
        r = np.concatenate([np.triu(b) + np.triu(b, 1).T for b in np.split(r[0], gates)])[None]
    attrs = {"hidden_size": 2, "activations": activations * per}
    if alpha is not None:
        attrs["activation_alpha"] = alpha * per
    if beta is not None:
        attrs["activation_beta"] = beta * per
    inputs = {"X": rng.standard_normal((2, 1, 3)).astype(F32), "W": rng.standard_normal((1, gates * 2, 3)).astype(F32),
              "R": r}
    return semantics(op, opset, attrs, inputs)["Y_h"]


def attention(mask, opset=23):
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal(s).astype(F32) for s in ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)))
    return semantics("Attention", opset, {}, {"Q": q, "K": k, "V": v, "attn_mask": mask})["Y"]


def nll(x, target, weight, reduction):
    inputs = {"input": np.array(x, F32), "target": np.array(target, np.int64), "weight": np.array(weight, F32)}
    return semantics("NegativeLogLikelihoodLoss", 13, {"reduction": reduction}, inputs)["loss"]


def sce(x, labels, weights, reduction):
    inputs = {"scores": np.array(x, F32), "labels": np.array(labels, np.int64), "weights": np.array(weights, F32)}
    return semantics("SoftmaxCrossEntropyLoss", 13, {"reduction": reduction}, inputs)["output"]


def lrn(x, beta):
    return semantics("LRN", 13, {"size": 3, "alpha": 1.0, "beta": beta, "bias": 0.0},
                     {"X": np.array(x, F32).reshape(1, -1, 1)})["Y"].reshape(-1)


def optimizer(op, first):
    groups = 4 if op == "Adam" else 3
    attrs = {"mode": "standard", "alpha": 0.9, "beta": 0.1, "norm_coefficient": 0.0} if op == "Momentum" else {}
    inputs = {"R": np.array(0.1, F32), "T": np.array(0, np.int64), "inputs": [first, np.ones(2, F32)] * groups}
    return [a.shape for a in semantics(op, 1, attrs, inputs, "ai.onnx.preview.training")["outputs"]]


def irfft(opset, last):
    """An inverse one-sided DFT of 4 bins, real (last 1) or complex (last 2) input."""
    return semantics("DFT", opset, {"onesided": 1, "inverse": 1}, {"input": np.ones((1, 4, last), F32)})["output"]


def dropout(opset, names):
    """The node's outputs by name, as the exact backend asks for them: an Undefined output raised where named."""
    computed = semantics("Dropout", opset, {}, {"data": np.ones(2, F32)})
    return named_outputs(version_in_force("Dropout", "", opset).schema, computed, names)


def causal_case(x):
    from onnx_conformance.generators.ops import causal_conv_with_state as ccws

    v = versions("CausalConvWithState", ccws.OPERATOR.domain)[0]
    return ccws.causal(v, Types({"T": "float"}, "T", ()), x, np.ones((2, 1, 3), F32)).outputs["output"].shape


def mel_int32(*args):
    from onnx_conformance.generators.ops import mel_weight_matrix as mel

    t = Types({"T1": "int32", "T2": "float", "T3": "int32"}, "T3", ())
    return mel.case(versions("MelWeightMatrix")[0], t, *args)


def cast_map(value):
    x = Map({0: F32(value), 1: F32(2.0)}, "int64", "float")
    return semantics("CastMap", 1, {"cast_to": "TO_INT64"}, {"X": x}, "ai.onnx.ml")["Y"].tolist()


def same(got, expected) -> bool:
    got, expected = np.asarray(got), np.asarray(expected)
    return got.shape == expected.shape and got.dtype == expected.dtype and bool(
        np.all((got == expected) | (np.isnan(got) & np.isnan(expected)) if got.dtype.kind in "fc" else got == expected))


# (id, computation, what it gives: a value, or (exception type, a phrase of its reason))
EDGES = [
    ("resize_sizes_empty_axis", lambda: resize(np.zeros((33, 0, 0), F32), [33, 0, 0]), np.zeros((33, 0, 0), F32)),
    ("resize_empty_output_from_empty_axis", lambda: resize(np.zeros((0, 2), F32), [4, 0]), np.zeros((4, 0), F32)),
    ("resize_elements_from_empty_axis", lambda: resize(np.zeros((3, 0, 2), F32), [3, 4, 2]),
     (Undefined, "empty input axis")),
    ("resize_policy_empty_axis",
     lambda: resize(np.zeros((2, 0), F32), [4, 4], keep_aspect_ratio_policy="not_larger"), (Undefined, "length 0")),
    ("resize_crop_extrapolates_complex", lambda: resize(np.array(ROW, np.complex64), [1, 4], [0, -.5, 1, 1.5], **CROP),
     np.array([[0, 10j, 2 + 12j, 0]], np.complex64)),
    ("resize_crop_extrapolates_bool_0", lambda: resize(np.array([[True, False, True, True]]), [1, 4], [0, -.5, 1, 1.5],
                                                       **CROP), np.array([[False, True, True, False]])),
    ("resize_crop_extrapolates_bool_1", lambda: resize(np.array([[True, False, False, True]]), [1, 4],
                                                       [0, -.5, 1, 1.5], extrapolation_value=1.0, **CROP),
     np.array([[True, True, False, True]])),
    ("resize_crop_bool_of_half", lambda: resize(np.array([[True, False, True, True]]), [1, 4], [0, -.5, 1, 1.5],
                                                extrapolation_value=0.5, **CROP), (Undefined, "no bool value")),
    ("resize_crop_string", lambda: resize(np.array([["a", "b", "c", "d"]], object), [1, 4], [0, -.5, 1, 1.5], **CROP),
     (Undefined, "no string value")),
    ("resize_crop_int8_out_of_range", lambda: resize(np.array([[1, 2, 3, 4]], np.int8), [1, 4], [0, -.5, 1, 1.5],
                                                     extrapolation_value=300.0, **CROP), (Undefined, "no int8 value")),
    ("resize_crop_int8", lambda: resize(np.array([[1, 2, 3, 4]], np.int8), [1, 4], [0, -.5, 1, 1.5],
                                        extrapolation_value=-7.0, **CROP), np.array([[-7, 1, 3, -7]], np.int8)),
    ("causal_conv_length_0", lambda: causal_case(np.zeros((1, 2, 0), F32)), (1, 2, 0)),
    ("hann_size_1_symmetric", lambda: semantics("HannWindow", 17, {"periodic": 0}, {"size": np.array(1, np.int32)}),
     (Undefined, "0 / 0")),
    ("hann_size_1_periodic", lambda: semantics("HannWindow", 17, {}, {"size": np.array(1, np.int32)})["output"],
     np.zeros(1, F32)),
    ("dft17_irfft_real_input", lambda: irfft(17, 1), (Rejected, "only complex input")),
    ("dft20_irfft_real_input", lambda: irfft(20, 1), (Rejected, "only complex input")),
    ("dft20_irfft_complex_input", lambda: irfft(20, 2).shape, (1, 6, 1)),
    ("rnn_leaky_relu_default_alpha", lambda: recurrent("RNN", 14, ["LeakyRelu"]),
     lambda: recurrent("RNN", 14, ["LeakyRelu"], [0.01])),
    ("gru_hard_sigmoid_default_alpha_beta", lambda: recurrent("GRU", 14, ["HardSigmoid"]),
     lambda: recurrent("GRU", 14, ["HardSigmoid"], [0.2], [0.5])),
    ("lstm_elu_default_alpha", lambda: recurrent("LSTM", 14, ["Elu"]), lambda: recurrent("LSTM", 14, ["Elu"], [1.0])),
    ("rnn_affine_no_default", lambda: recurrent("RNN", 14, ["Affine"]), (Undefined, "no operator Affine")),
    ("gru1_no_stated_default", lambda: recurrent("GRU", 1, ["LeakyRelu"]), (Undefined, "states no default")),
    ("attention_rank0_float_mask", lambda: attention(np.array(0.5, F32)),
     lambda: attention(np.full((1, 1, 1, 5), 0.5, F32))),
    ("attention_rank0_false_mask", lambda: attention(np.array(False)), np.zeros((1, 2, 3, 4), F32)),
    ("attention23_mask_width_1_broadcasts", lambda: attention(np.full((1, 1, 1, 1), 0.5, F32)),
     lambda: attention(np.full((1, 1, 1, 5), 0.5, F32))),
    ("attention23_mask_width_3", lambda: attention(np.full((1, 1, 1, 3), 0.5, F32)), (Rejected, "broadcastable")),
    ("mel_corner_on_bin_boundary_int32", lambda: mel_int32(1, 7, 8000, 1000.0, 4000.0), (Undefined, "bin boundary")),
    ("nll_nan_input", lambda: nll([[1, nan, 3], [inf, 2, -1]], [1, 0], [1, .5, 2], "none"),
     np.array([nan, -inf], F32)),
    ("nll_inf_weight_times_0", lambda: nll([[0, 0, 0], [0, 0, 0]], [1, 0], [inf, 1, 1], "none"),
     np.array([0, nan], F32)),
    ("nll_inf_sum", lambda: nll([[-1, 0, 0], [0, 0, 0]], [0, 1], [inf, 1, 1], "sum"), np.array(inf, F32)),
    ("nll_inf_weight_mean", lambda: nll([[-1, 0, 0], [-2, 0, 0]], [0, 0], [inf, 1, 1], "mean"), np.array(nan, F32)),
    ("nll_finite_over_inf_weights_mean", lambda: nll([[-1, 0, 0], [0, 0, 0]], [1, 0], [inf, 1, 1], "mean"),
     np.array(nan, F32)),
    ("sce_inf_weight", lambda: sce([[0, 0, 0], [0, 0, 0]], [1, 0], [inf, 1, 1], "sum"), np.array(inf, F32)),
    ("sce_nan_score", lambda: sce([[nan, 0, 0], [0, 0, 0]], [1, 0], [1, 1, 1], "none"),
     np.array([nan, math.log(3)], F32)),
    ("sce_plus_inf_score", lambda: sce([[inf, 0, 0], [0, 0, 0]], [1, 0], [1, 1, 1], "none"),
     (Undefined, "holding +inf")),
    ("sce_empty_batch", lambda: semantics("SoftmaxCrossEntropyLoss", 13, {"reduction": "sum"}, {
        "scores": np.zeros((0, 3), F32), "labels": np.zeros(0, np.int64)})["log_prob"], np.zeros((0, 3), F32)),
    ("lrn_inf_negative_beta", lambda: lrn([1, inf, 2], -0.5), np.array([inf, inf, inf], F32)),
    ("lrn_inf_zero_beta", lambda: lrn([1, inf, 0], 0.0), np.array([1, inf, 0], F32)),
    ("lrn_zero_over_zero", lambda: lrn([inf, -inf, 0], -0.5), np.array([inf, -inf, nan], F32)),
    ("dropout10_mask", lambda: dropout(10, ["y", "mask"])["mask"], (Undefined, "Dropout-10's mask")),
    ("dropout10_output_alone", lambda: dropout(10, ["y"])["y"], np.ones(2, F32)),
    ("dropout12_mask", lambda: dropout(12, ["y", "mask"])["mask"], np.ones(2, bool)),
    ("softmax_zero_all_zero", lambda: ml_row([0.0, 0.0]), (Undefined, "row of zeros")),
    ("adagrad_first_tensor_empty", lambda: optimizer("Adagrad", np.zeros((0, 255, 0), F32)),
     [(0, 255, 0), (2,), (0, 255, 0), (2,)]),
    ("momentum_first_tensor_empty", lambda: optimizer("Momentum", np.zeros((0, 3), F32)),
     [(0, 3), (2,), (0, 3), (2,)]),
    ("adam_first_tensor_empty", lambda: optimizer("Adam", np.zeros((0,), F32)), [(0,), (2,)] * 3),
    ("cast_map_to_int64_overflow", lambda: cast_map(1e19), (Undefined, "outside int64's range")),
    ("cast_map_to_int64_min", lambda: cast_map(-2.0 ** 63), [-2 ** 63, 2]),
]


def ml_row(row):
    from onnx_conformance.generators.ml_family import transform_row

    return transform_row(row, "SOFTMAX_ZERO")


@pytest.mark.parametrize("compute, expected", [e[1:] for e in EDGES], ids=[e[0] for e in EDGES])
def test_semantics_edge(compute, expected):
    if isinstance(expected, tuple) and isinstance(expected[0], type):
        kind, phrase = expected
        with pytest.raises(kind) as raised:
            compute()
        assert phrase in str(raised.value), str(raised.value)
        return
    got = compute()
    if callable(expected):
        expected = expected()
    if isinstance(expected, np.ndarray):
        assert same(got, expected), f"got {got!r}, expected {expected!r}"
    else:
        assert got == expected, f"got {got!r}, expected {expected!r}"
