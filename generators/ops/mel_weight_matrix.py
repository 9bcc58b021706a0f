"""MelWeightMatrix: triangular filters between mel-spaced corners (mel(f) = 2595 log10(1 + f/700)), peak 1.0,
over the dft_length // 2 + 1 one-sided bins; corners at PREC bits, weights exact fractions rounded once
(signal_family.mel_weight_matrix, the algorithm onnx's documented example spells out)."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from onnx_conformance.generators import values
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.linalg_family import to_type
from onnx_conformance.generators.semantics import Undefined, attr
from onnx_conformance.generators.signal_family import mel_weight_matrix
from onnx_conformance.harness.dtypes import name_of, numpy_of

OPERATOR = Operator("MelWeightMatrix", primary="T3", defaults={"T1": "int32", "T2": "float"})

FRACTIONAL = ("output_datatype: weights strictly between 0 and 1 have no integer value, and the "
              "spec does not say how they become integers")


@OPERATOR.semantics
def mel_weight_matrix_semantics(v, attrs, inputs):
    """[dft_length // 2 + 1, num_mel_bins] triangles between mel-spaced corners, peak 1.0, in output_datatype
    (float by default); an integer type only where every weight is 0 or 1."""
    def scalar(name):
        return np.asarray(inputs[name]).reshape(-1)[0]

    out_type = name_of(attr(attrs, "output_datatype", TensorProto.FLOAT))
    w = weights(int(scalar("num_mel_bins")), int(scalar("dft_length")), int(scalar("sample_rate")),
                float(scalar("lower_edge_hertz")), float(scalar("upper_edge_hertz")))
    if values.is_int(out_type) and any(e.denominator != 1 for e in w.reshape(-1)):
        raise Undefined(FRACTIONAL)
    return {"output": to_type(w, out_type)}


def weights(num_mel_bins, dft_length, sample_rate, lower, upper):
    """signal_family.mel_weight_matrix, with a corner on a bin boundary (the runtime's rounding decides it)
    as Undefined."""
    try:
        return mel_weight_matrix(num_mel_bins, dft_length, sample_rate, lower, upper)
    except ValueError:
        raise Undefined("a mel corner lies on a bin boundary: floor((dft_length + 1) * f / sample_rate) of a whole "
                        "number, which the runtime's rounding of the corner decides") from None


def case(v, t, num_mel_bins, dft_length, sample_rate, lower, upper, spread_t1_t2=True):
    out_type = t["T3"]
    if not spread_t1_t2 and (t["T1"] != "int32" or t["T2"] != "float"):
        return NotApplicable("the input types (T1, T2) are covered by the documented example")
    t2 = numpy_of(t["T2"])
    lo, hi = np.array(lower, np.float64).astype(t2), np.array(upper, np.float64).astype(t2)
    if values.is_int(out_type):
        w = weights(num_mel_bins, dft_length, sample_rate, float(lo), float(hi))
        if any(e.denominator != 1 for e in w.reshape(-1)):
            return NotApplicable(FRACTIONAL)
    attrs = {} if out_type == "float" else {"output_datatype": helper.np_dtype_to_tensor_dtype(numpy_of(out_type))}
    t1 = numpy_of(t["T1"])
    inputs = {"num_mel_bins": np.array(num_mel_bins, t1), "dft_length": np.array(dft_length, t1),
              "sample_rate": np.array(sample_rate, t1), "lower_edge_hertz": lo, "upper_edge_hertz": hi}
    return OPERATOR.expect(v, inputs, attrs, tolerance={"ulp": 0} if values.is_float(out_type) else None)


@OPERATOR.example
def default(v, t, rng):
    """onnx's test_melweightmatrix: 8 mel bins, dft_length 16, 8192 Hz, 0 to 4096 Hz (every weight 0 or 1)."""
    return case(v, t, 8, 16, 8192, 0.0, 4096.0)


@OPERATOR.example
def wide_triangles(v, t, rng):
    """4 mel bins over 100 to 6000 Hz of a 64-point DFT at 16 kHz: triangles several bins wide, fractional weights."""
    return case(v, t, 4, 64, 16000, 100.0, 6000.0, spread_t1_t2=False)


@OPERATOR.example
def odd_dft_length(v, t, rng):
    """dft_length 25 (13 one-sided bins), 5 mel bins, 22050 Hz, 300 to 9000 Hz."""
    return case(v, t, 5, 25, 22050, 300.0, 9000.0, spread_t1_t2=False)
