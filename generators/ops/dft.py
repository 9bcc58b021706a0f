"""DFT: y[k] = sum_n x[n] e^(-2 pi j k n / N) along one signal axis (inverse: 1/N and e^(+...)), real or complex
input in the [..., 2] layout, RFFT and IRFFT by onesided; computed in mpmath, rounded once (signal_family)."""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Declared, NotApplicable, Operator, type_of
from onnx_conformance.generators.rounding import round_to
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.generators.signal_family import dft, dft_tolerance
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = Operator("DFT", primary="T1", defaults={"T2": "int64"})

REAL_ONLY = "When onesided=1 and inverse=0 (forward DFT), only real input is supported"
COMPLEX_ONLY = "When onesided=1 and inverse=1 (inverse DFT), only complex input is supported"
COMPLEX_AXIS = "The last dimension is for representing complex numbers and thus is an invalid axis."


@OPERATOR.semantics
def dft_semantics(v, attrs, inputs):
    """The DFT along one signal axis (DFT-17: the `axis` attribute, default 1; DFT-20: the `axis` input,
    default -2), zero-padded or cut to dft_length; inverse: 1/N and e^(+...); onesided: RFFT (forward,
    real input only) or IRFFT (inverse, complex input only: a full real signal from the one-sided spectrum)."""
    x = np.asarray(inputs["input"])
    if x.ndim < 2 or x.shape[-1] not in (1, 2):
        raise Rejected("The final dimension represents the real and imaginary parts of the value in that order.")
    inverse, onesided = bool(attr(attrs, "inverse", 0)), bool(attr(attrs, "onesided", 0))
    if v.since_version == 17:
        axis = attr(attrs, "axis", 1)
    else:
        given = inputs.get("axis")
        axis = -2 if given is None else int(np.asarray(given).reshape(-1)[0])
    r = x.ndim
    if not (-r <= axis <= -2 or 0 <= axis <= r - 2):
        raise Rejected(COMPLEX_AXIS)
    if onesided and not inverse and x.shape[-1] == 2:
        raise Rejected(REAL_ONLY)
    if onesided and inverse and x.shape[-1] == 1:
        raise Rejected(COMPLEX_ONLY)
    length = inputs.get("dft_length")
    length = None if length is None else int(np.asarray(length).reshape(-1)[0])
    return {"output": dft(x, axis % r, type_of(x), length, inverse, onesided)}

NO_LENGTH = "T2 types only dft_length, which this example leaves out; dft_length_pad and dft_length_cut cover them"


def node(v, t, x, axis=None, dft_length=None, inverse=None, onesided=None):
    """The node by version: axis an attribute (DFT-17, default 1) or an input (DFT-20, default -2)."""
    if dft_length is None and t["T2"] != "int64":
        return NotApplicable(NO_LENGTH)
    x = np.asarray(x).astype(numpy_of(t["T1"]))
    rank = x.ndim
    default_axis = 1 if v.since_version == 17 else -2
    use = default_axis if axis is None else axis
    tol = dft_tolerance(x, use % rank, t["T1"], dft_length, bool(inverse), bool(onesided))
    attrs = {k: a for k, a in (("inverse", inverse), ("onesided", onesided)) if a is not None}
    inputs = {"input": x, "dft_length": None if dft_length is None else np.array(dft_length, numpy_of(t["T2"]))}
    if v.since_version == 17:
        if axis is not None:
            attrs["axis"] = axis
    elif axis is not None:
        inputs["axis"] = np.array(axis, np.int64)
    return OPERATOR.expect(v, inputs, attrs, tolerance=tol)


def arange_real():
    return np.arange(100, dtype=np.float64).reshape(1, 10, 10, 1)


# onnx's documented examples (test_dft, test_dft_axis, ... at DFT-20 with the axis input; test_dft_opset19,
# test_dft_axis_opset19, ... at DFT-17 with the axis attribute): the same example written by version


@OPERATOR.example
def default(v, t, rng):
    """test_dft / test_dft_opset19: 0..99 as 10x10, along the first signal axis (axis 1)."""
    return node(v, t, arange_real(), axis=1)


@OPERATOR.example
def axis(v, t, rng):
    return node(v, t, arange_real(), axis=2)


@OPERATOR.example
def inverse(v, t, rng):
    """0..99 as complex values (imaginary parts 0), inverse."""
    x = np.stack([np.arange(100.0).reshape(10, 10), np.zeros((10, 10))], axis=-1)[None]
    return node(v, t, x, axis=1, inverse=1)


@OPERATOR.example
def rfft(v, t, rng):
    return node(v, t, arange_real(), axis=1, onesided=1)


@OPERATOR.example
def irfft(v, t, rng):
    """The one-sided spectrum of 0..99 (10x10 along axis 1), rounded to the type, back to a real signal of 10."""
    exact = dft(np.arange(100, dtype=np.float64).reshape(1, 10, 10, 1), 1, "double", onesided=True)
    spectrum = exact.astype(np.float64)
    spectrum = np.array([round_to(float(e), t["T1"]) for e in spectrum.reshape(-1)],
                        dtype=numpy_of(t["T1"])).reshape(spectrum.shape)
    return node(v, t, spectrum, axis=1, onesided=1, inverse=1)


# the rest of the spec: dft_length, negative axes, complex input, odd lengths


def signal(t, shape, rng, complex_in=False):
    x = values.sample(t["T1"], shape + ((2,) if complex_in else (1,)), rng, specials=False) / 8
    return x.astype(numpy_of(t["T1"]))


@OPERATOR.example
def dft_length_pad(v, t, rng):
    """dft_length 9 over a signal axis of 6: zero-padded."""
    return node(v, t, signal(t, (2, 6, 3), rng, complex_in=True), axis=1, dft_length=9)


@OPERATOR.example
def dft_length_cut(v, t, rng):
    """dft_length 5 over 7: only the first 5 values are used; onesided (RFFT) of an odd length."""
    return node(v, t, signal(t, (2, 3, 7), rng), axis=2, dft_length=5, onesided=1)


@OPERATOR.example
def negative_axis_complex(v, t, rng):
    """axis -3 of a rank-4 input (the first signal axis), complex input, 15 complex values."""
    return node(v, t, signal(t, (1, 5, 3), rng, complex_in=True), axis=-3)


@OPERATOR.example
def default_axis_rank4(v, t, rng):
    """The axis left out of a rank-4 input [2, 5, 6, 1]: DFT-17's default 1 (length 5), DFT-20's -2 (the last
    signal axis, length 6); at rank 3 the two defaults name the same axis."""
    return node(v, t, signal(t, (2, 5, 6), rng))


@OPERATOR.example
def inverse_real_input(v, t, rng):
    """An inverse DFT of a real signal of 7 (odd): complex output, 1/N scaled."""
    return node(v, t, signal(t, (3, 7), rng), axis=1, inverse=1)


@OPERATOR.example
def irfft_odd_length(v, t, rng):
    """IRFFT to an odd dft_length 7 from 4 one-sided bins (no Nyquist bin); bin 0 real."""
    x = signal(t, (2, 4), rng, complex_in=True)
    x[:, 0, 1] = 0
    return node(v, t, x, axis=1, dft_length=7, onesided=1, inverse=1)


@OPERATOR.rejection
def rfft_complex_input(v, t, rng):
    """onesided=1, inverse=0 with a complex input."""
    x = np.zeros((1, 4, 2), np.float32)
    return OPERATOR.reject(v, {"input": x}, {"onesided": 1}, {"output": Declared("float", (1, 3, 2))})


@OPERATOR.rejection
def axis_is_the_complex_dimension(v, t, rng):
    """axis = r - 1, the [real, imaginary] dimension."""
    x = np.zeros((1, 4, 2), np.float32)
    inputs, attrs = {"input": x}, {}
    if v.since_version == 17:
        attrs["axis"] = 2
    else:
        inputs.update(dft_length=None, axis=np.array(2, np.int64))
    return OPERATOR.reject(v, inputs, attrs, {"output": Declared("float", (1, 4, 2))})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^rfft_complex_input .*returned outputs for an expect-error case",
    "the evaluator's RFFT takes the real parts of a complex input instead of refusing it")
