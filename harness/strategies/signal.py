"""Signal processing: DFT (real and complex input, axis as attribute or input and negative, dft_length shorter and longer than the axis, inverse, onesided), STFT (frame_step, window, frame_length, onesided), the Hann, Hamming and Blackman windows (periodic, output_datatype, sizes 0, 1 and primes) and MelWeightMatrix.

DFT and STFT are finished by their operator modules' own `node` functions, so their tolerance is
the corpus's (an accumulation over the transform's terms, then the twiddles' cos/sin budget); the
transforms are exact sums in mpmath, bounded by WORK. Not drawn, as the spec leaves them open: a
complex input to an IRFFT is the only one ('When onesided=1 and inverse=1 (inverse DFT), only complex
input is supported'), a dft_length below 1, an IRFFT of one bin without dft_length (its default
2 * (n - 1) is 0), an STFT frame longer than the signal (no frame: 'frames = floor((signal_length -
frame_length) / frame_step) + 1' is 0 or less) or a frame_step below 1, a symmetric window of one
point (its formula divides by size - 1 = 0), a window size below 0, a mel corner above the
Nyquist frequency (the weights' rows stop at dft_length // 2). Values are moderate (|x| <= 8 with up to
16 drawn ones of at most 64, never an infinity or NaN: where one meets a twiddle the spec names no
order in which the sum meets it).
"""

from __future__ import annotations

from importlib import import_module

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators import values
from onnx_conformance.harness.dtypes import numpy_of
from onnx_conformance.harness.strategies.common import Discard, Family, Probe
from onnx_conformance.harness.strategies.recurrent import moderate

WORK = 6000  # complex multiply-adds of one transform in mpmath, at most (rows x length x bins)
LENGTHS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 19, 23, 31, 32, 33, 37, 61, 63, 64, 65)
WINDOW_SIZES = (0, 1, 2, 3, 4, 5, 7, 8, 11, 16, 17, 31, 32, 33, 61, 64, 127, 128, 129, 251, 256, 257)
WINDOWS = ("HannWindow", "HammingWindow", "BlackmanWindow")
RATES = (8000, 16000, 22050, 44100, 48000, 1000, 7919)


class Signal(Family):
    name = "signal"
    operators = ("DFT", "STFT", *WINDOWS, "MelWeightMatrix")

    def strategy(self, op, v, t):
        if op.name in WINDOWS:
            return _window(op, v, t)
        return {"DFT": _dft, "STFT": _stft, "MelWeightMatrix": _mel}[op.name](op, v, t)

    def case(self, op, v, t, probe):
        from onnx_conformance.generators.case import NotApplicable
        from onnx_conformance.generators.ops import snake

        module = import_module(f"onnx_conformance.generators.ops.{snake(op.name)}")
        if op.name in WINDOWS:
            return _window_case(op, v, t, probe)
        if op.name == "MelWeightMatrix":
            t2 = numpy_of(t["T2"])
            if float(np.array(probe.extra["upper"]).astype(t2)) > probe.extra["sample_rate"] / 2:
                raise Discard("upper_edge_hertz rounds past the Nyquist frequency in T2")
            try:
                case = module.case(v, t, **probe.extra)
            except ValueError as e:  # mel_bins: a corner on a bin boundary, which the runtime's rounding decides
                raise Discard(str(e)) from None
        else:
            case = module.node(v, t, **probe.extra)
        if isinstance(case, NotApplicable):
            raise Discard(case.reason)
        return case


def _lengths(limit: int):
    return st.one_of(st.integers(1, max(1, min(4, limit))), st.sampled_from([n for n in LENGTHS if n <= limit] or [1]))


@st.composite
def _dft(draw, op, v, t):
    signal_rank = draw(st.integers(1, 3), label="signal rank")  # the batch dimension and 0 to 2 more
    rank = signal_rank + 1
    axis = draw(st.integers(0, rank - 2), label="axis")
    inverse = draw(st.booleans(), label="inverse")
    onesided = draw(st.booleans(), label="onesided")
    complex_in = True if onesided and inverse else False if onesided else draw(st.booleans(), label="complex")
    length = draw(_lengths(64), label="axis length")
    if onesided and inverse and length < 2:
        length = 2  # the default dft_length 2 * (n - 1) of one bin is 0
    given = draw(st.sampled_from(["none", "shorter", "longer", "any"]), label="dft_length")
    if t["T2"] != "int64" and given == "none":
        given = "any"  # T2 types only dft_length
    n_fft = None
    if given == "shorter":
        n_fft = draw(st.integers(1, length), label="dft_length shorter")
    elif given == "longer":
        n_fft = length + draw(st.integers(1, 40), label="dft_length beyond")
    elif given == "any":
        n_fft = draw(_lengths(128), label="dft_length")
    transform = n_fft or (2 * (length - 1) if onesided and inverse else length)
    # the other dimensions: as many rows as WORK leaves for a transform this long
    rows = max(1, WORK // (transform * transform))
    shape = []
    for d in range(signal_rank):
        if d == axis:
            shape.append(length)
        else:
            size = draw(st.integers(1, max(1, min(4, rows))), label="dim")
            shape.append(size)
            rows = max(1, rows // size)
    x = draw(moderate(t["T1"], tuple(shape) + (2 if complex_in else 1,), 3, 0, "input"), label="input")
    default_axis = 1 if v.since_version == 17 else -2
    spelled = None
    if axis % rank != default_axis % rank or draw(st.booleans(), label="spell the axis"):
        spelled = axis - rank if draw(st.booleans(), label="negative axis") else axis
    extra = {"x": x, "axis": spelled, "dft_length": n_fft, "inverse": 1 if inverse else None,
             "onesided": 1 if onesided else None}
    for name in ("inverse", "onesided"):
        if extra[name] is None and draw(st.booleans(), label=f"spell {name}=0"):
            extra[name] = 0
    return Probe({"input": x}, extra=extra)


@st.composite
def _stft(draw, op, v, t):
    complex_in = draw(st.booleans(), label="complex")
    frame = draw(_lengths(64), label="frame_length")
    frames = draw(st.integers(1, max(1, min(6, WORK // (2 * frame * frame)))), label="frames")
    step = draw(st.one_of(st.integers(1, 4), st.sampled_from([frame, frame + 1, 2 * frame + 3])), label="frame_step")
    length = frame + (frames - 1) * step + draw(st.integers(0, max(0, step - 1)), label="leftover")
    batch = draw(st.integers(1, max(1, min(3, WORK // (2 * frames * frame * frame)))), label="batch")
    signal = draw(moderate(t["T1"], (batch, length, 2 if complex_in else 1), 3, 0, "signal"), label="signal")
    how = draw(st.sampled_from(["frame_length", "window", "both", "neither"]), label="frame given by")
    if how == "neither":
        signal = signal[:, :frame]  # the whole signal is one frame
    window = None
    if how in ("window", "both"):
        window = draw(moderate(t["T1"], (frame,), 6, 1, "window"), label="window")
    onesided = None if complex_in else draw(st.sampled_from([None, 1, 0]), label="onesided")
    if complex_in:
        onesided = 0  # 'if the input or window tensors are complex, then onesided output is not possible'
    extra = {"signal": signal, "frame_step": step, "window": window,
             "frame_length": frame if how in ("frame_length", "both") else None, "onesided": onesided}
    return Probe({"signal": signal}, extra=extra)


@st.composite
def _window(draw, op, v, t):
    # an integer output_datatype: only where every value is a whole number (the empty window, a periodic one
    # of one point): 'the schema and the cited paper give the window's real values in [0, 1] only'
    size = draw(st.sampled_from((0, 1) if values.is_int(t["T2"]) else WINDOW_SIZES), label="size")
    periodic = draw(st.sampled_from([None, 0, 1]), label="periodic")
    if size == 1 and periodic == 0:
        periodic = 1  # a symmetric window of one point divides by size - 1 = 0
    return Probe({"size": np.array(size, numpy_of(t["T1"]))}, extra={"periodic": periodic})


def _window_case(op, v, t, probe):
    from onnx import helper

    from onnx_conformance.generators.accuracy import budget
    from onnx_conformance.generators.signal_family import FLOATS

    out_type = t["T2"]
    attrs = {} if probe.extra["periodic"] is None else {"periodic": probe.extra["periodic"]}
    if out_type != "float":
        attrs["output_datatype"] = helper.np_dtype_to_tensor_dtype(numpy_of(out_type))
    tol = budget("cos", out_type, cancels=True) if out_type in FLOATS else None
    return op.expect(v, probe.inputs, attrs, tolerance=tol)


@st.composite
def _mel(draw, op, v, t):
    rate = draw(st.sampled_from(RATES), label="sample_rate")
    dft_length = draw(_lengths(65), label="dft_length")
    bins = draw(st.integers(1, 16), label="num_mel_bins")
    nyquist = rate / 2
    lower = draw(st.sampled_from([0.0, 20.0, 100.0, 300.0, nyquist / 4]), label="lower_edge_hertz")
    upper = draw(st.sampled_from([nyquist, nyquist / 2, lower + 1000.0, nyquist * 0.9]), label="upper_edge_hertz")
    if not lower < upper <= nyquist:
        upper = nyquist
    return Probe({}, extra={"num_mel_bins": bins, "dft_length": dft_length, "sample_rate": rate, "lower": lower,
                            "upper": upper})
