"""STFT: frames of frame_length every frame_step samples, times the window, each DFT'd (onesided by default);
computed in mpmath, rounded once (signal_family.stft)."""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Declared, Operator, type_of
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.generators.signal_family import stft, stft_tolerance
from onnx_conformance.harness.dtypes import numpy_of

OPERATOR = Operator("STFT", primary="T1", defaults={"T2": "int64"})

WINDOW_LENGTH = ("If both `frame_length` and `window` are provided, the length of the `window` must equal "
                 "`frame_length`.")
NOT_ONESIDED = "Note if the input or window tensors are complex, then onesided output is not possible."


@OPERATOR.semantics
def stft_semantics(v, attrs, inputs):
    """Frames of frame_length every frame_step samples ('frames = floor((signal_length - frame_length) /
    frame_step) + 1'), each times the window (rectangular when omitted), DFT'd; onesided by default.
    frame_length defaults to the window's length, else to the signal's."""
    signal, window = np.asarray(inputs["signal"]), inputs.get("window")
    if signal.ndim != 3 or signal.shape[-1] not in (1, 2):
        raise Rejected("The tensor is expected to have rank 3.")
    step = int(np.asarray(inputs["frame_step"]).reshape(-1)[0])
    given = inputs.get("frame_length")
    length = int(np.asarray(given).reshape(-1)[0]) if given is not None else None
    if window is not None and length is not None and len(window) != length:
        raise Rejected(WINDOW_LENGTH)
    if length is None:
        length = len(window) if window is not None else signal.shape[1]
    onesided = attr(attrs, "onesided", 1)
    if onesided and signal.shape[-1] == 2:
        raise Rejected(NOT_ONESIDED)
    return {"output": stft(signal, step, length, window, bool(onesided), type_of(signal))}


def node(v, t, signal, frame_step, window=None, frame_length=None, onesided=None):
    signal = np.asarray(signal).astype(numpy_of(t["T1"]))
    win = None if window is None else np.asarray(window).astype(numpy_of(t["T1"]))
    length = frame_length if frame_length is not None else (len(win) if win is not None else signal.shape[1])
    tol = stft_tolerance(signal, frame_step, length, win, t["T1"])
    t2 = numpy_of(t["T2"])
    inputs = {"signal": signal, "frame_step": np.array(frame_step, t2), "window": win,
              "frame_length": None if frame_length is None else np.array(frame_length, t2)}
    attrs = {} if onesided is None else {"onesided": onesided}
    return OPERATOR.expect(v, inputs, attrs, tolerance=tol)


def arange_signal():
    return np.arange(128, dtype=np.float64).reshape(1, 128, 1)


@OPERATOR.example
def default(v, t, rng):
    """onnx's test_stft: 0..127, frame_length 16, frame_step 8, no window (rectangular), onesided."""
    return node(v, t, arange_signal(), 8, frame_length=16)


@OPERATOR.example
def with_window(v, t, rng):
    """onnx's test_stft_with_window: the window 0.5 + 0.5 cos(2 pi n / 16) (as float32 computes it), no
    frame_length (the window's length)."""
    w = (0.5 + 0.5 * np.cos(2 * np.pi * np.arange(0, 16, 1, dtype=np.float32) / 16)).astype(np.float32)
    return node(v, t, arange_signal(), 8, window=w)


def data(t, shape, rng):
    return (values.sample(t["T1"], shape, rng, specials=False) / 8).astype(numpy_of(t["T1"]))


@OPERATOR.example
def complex_two_sided(v, t, rng):
    """A complex signal (batch 2, 11 samples), window and frame_length 5 given, step 3, onesided = 0."""
    w = np.array([0.25, 0.75, 1.0, 0.75, 0.25])
    return node(v, t, data(t, (2, 11, 2), rng), 3, window=w, frame_length=5, onesided=0)


@OPERATOR.example
def trailing_samples_dropped(v, t, rng):
    """13 samples, frame_length 6, step 4: floor((13 - 6) / 4) + 1 = 2 frames; the last 3 samples unused."""
    return node(v, t, data(t, (1, 13, 1), rng), 4, frame_length=6)


@OPERATOR.example
def whole_signal_one_frame(v, t, rng):
    """Neither window nor frame_length: 'frame_length defaults to signal_length' (one frame of 9, odd)."""
    return node(v, t, data(t, (2, 9, 1), rng), 1)


@OPERATOR.rejection
def window_length_differs(v, t, rng):
    """A window of 5 with frame_length 6."""
    return OPERATOR.reject(v, {"signal": np.zeros((1, 16, 1), np.float32), "frame_step": np.array(4, np.int64),
                               "window": np.ones(5, np.float32), "frame_length": np.array(6, np.int64)},
                           {}, {"output": Declared("float", (1, 3, 4, 2))})


@OPERATOR.rejection
def onesided_complex_signal(v, t, rng):
    """A complex signal with onesided = 1."""
    return OPERATOR.reject(v, {"signal": np.zeros((1, 8, 2), np.float32), "frame_step": np.array(4, np.int64),
                               "window": None, "frame_length": np.array(4, np.int64)},
                           {"onesided": 1}, {"output": Declared("float", (1, 2, 3, 2))})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^\w+ (float16|bfloat16): reference evaluator: output 0",
    "the evaluator computes float16 and bfloat16 STFTs in that type (each product and partial sum rounded to "
    "3-4 significant digits, which cancels in sums of up to 16 terms); ours is the exact transform rounded once, "
    "which a float computation reaches within the case's tolerance")
OPERATOR.reference_differs(
    r"^(window_length_differs|onesided_complex_signal) .*returned outputs for an expect-error case",
    "the evaluator checks neither the window's length against frame_length nor onesided with a complex signal")
