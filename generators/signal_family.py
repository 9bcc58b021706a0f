"""Windows, DFT, STFT and MelWeightMatrix: oracles in mpmath at rounding.PREC bits (or exact), rounded once.

Windows (Harris's cosine-sum windows, the paper the schemas cite): w[n] = sum_k (-1)^k a_k cos(2 pi k n / N),
N = size (periodic) or size - 1 (symmetric); coefficients as onnx's documented examples write them: Hann
(1/2, 1/2), Hamming (25/46, 21/46), Blackman (0.42, 0.5, 0.08), exact rationals.
DFT and STFT: y[k] = sum_n x[n] e^(-2 pi j k n / N) (1/N and e^(+...) for the inverse), complex values in the
[..., 2] layout, computed in mpmath; tolerance `accuracy.accumulation(type, N, magnitude, after=cos/sin budget)`.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import mpmath
import numpy as np
from onnx import TensorProto, helper

from onnx_conformance.generators.accuracy import accumulation, budget
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.rounding import PREC, round_to
from onnx_conformance.generators.semantics import Undefined, attr
from onnx_conformance.harness.dtypes import name_of, numpy_of

WINDOWS = {
    "HannWindow": (Fraction(1, 2), Fraction(1, 2)),
    "HammingWindow": (Fraction(25, 46), Fraction(21, 46)),
    "BlackmanWindow": (Fraction(21, 50), Fraction(1, 2), Fraction(2, 25)),
}
FLOATS = ("float16", "bfloat16", "float", "double")


def window_values(op: str, size: int, periodic: bool) -> list:
    """The exact window of `size` points: a Fraction where every cosine is +-1 (an exact multiple of pi),
    else an mpmath value at PREC bits. A symmetric window of one point has none: the cited paper's cosine
    terms take 2 pi k n / (N - 1), 0 / 0 at N = 1, and the schema says nothing of that size (the limit
    along n = 0 gives the edge value, a0 - a1 + a2; numpy and torch give 1)."""
    coeffs = WINDOWS[op]
    n_div = size if periodic else size - 1
    if size == 1 and not periodic:
        raise Undefined(f"{op} of size 1 with periodic=0: the symmetric window's cosine terms take "
                        "2 pi k n / (size - 1) = 0 / 0, and the spec gives no value for a one-point symmetric window")
    out = []
    with mpmath.workprec(PREC):
        for n in range(size):
            exact, inexact = Fraction(0), mpmath.mpf(0)
            for k, a in enumerate(coeffs):
                sign = -1 if k % 2 else 1
                if (k * n) % n_div == 0:
                    exact += sign * a
                elif (2 * k * n) % n_div == 0:
                    exact -= sign * a
                else:
                    inexact += sign * mpmath.mpf(a.numerator) / a.denominator * mpmath.cos(2 * mpmath.pi * k * n / n_div)
            out.append(exact if inexact == 0 else mpmath.mpf(exact.numerator) / exact.denominator + inexact)
    return out


def to_array(xs, type_name: str, shape=None) -> np.ndarray:
    arr = np.array([round_to(x, type_name) for x in xs], dtype=numpy_of(type_name))
    return arr.reshape(shape if shape is not None else (len(xs),))


class WindowOp(Operator):
    """One window operator: size (T1 scalar) in, the window in T2 (output_datatype) out."""

    def __init__(self, name: str):
        super().__init__(name, primary="T2", defaults={"T1": "int32"})
        self.window = name
        self.semantics(self.window_semantics)
        for ex_name, size, periodic in (("periodic", 10, None), ("symmetric", 10, 0), ("odd_symmetric", 7, 0),
                                        ("odd_periodic", 9, 1), ("size_1_periodic", 1, 1), ("empty", 0, None)):
            self.example(self._example(size, periodic), name=ex_name)
        # Where the function body, run node by node, differs from our value (cases/expanded.md).
        self.body_differs("double: ", "the body computes in float (Cast <to = 1> of size, 2*pi as float "
                                      "6.2831855, float coefficients) and casts the window to output_datatype at "
                                      "the end: a double window carries float's rounding; the formula is exact")

    def _example(self, size, periodic):
        def fn(v, t, rng):
            return self.build(v, t, size, periodic)
        fn.__doc__ = f"size {size}, periodic={'default (1)' if periodic is None else periodic}"
        return fn

    def window_semantics(self, v, attrs, inputs) -> dict:
        """The window of `size` points (periodic by default) in output_datatype (float by default); an
        integer type only where every value is a whole number."""
        size = int(np.asarray(inputs["size"]).reshape(-1)[0])
        out_type = name_of(attr(attrs, "output_datatype", TensorProto.FLOAT))
        if size < 0:
            raise Undefined("a negative size: the spec gives no window")
        w = window_values(self.window, size, bool(attr(attrs, "periodic", 1)))
        if out_type in FLOATS:
            return {"output": to_array(w, out_type)}
        if not all(isinstance(x, Fraction) and x.denominator == 1 for x in w):
            raise Undefined(FRACTIONAL)
        return {"output": np.array([int(x) for x in w], dtype=numpy_of(out_type))}

    def build(self, v, t, size, periodic):
        out_type = t["T2"]
        w = window_values(self.window, size, periodic in (None, 1))
        integral = all(isinstance(x, Fraction) and x.denominator == 1 for x in w)
        if out_type not in FLOATS and not integral:
            return NotApplicable(FRACTIONAL)
        if t["T1"] != "int32" and (out_type != "float" or size != 10):
            return NotApplicable("the size type (T1) is covered by the size-10 examples in float")
        if out_type in FLOATS and out_type != "float" and size in (0, 1):
            return NotApplicable("the edge sizes run in float and the integer types; the other float types are "
                                 "covered by the longer windows")
        attrs = {}
        if periodic is not None:
            attrs["periodic"] = periodic
        if out_type != "float":
            attrs["output_datatype"] = helper.np_dtype_to_tensor_dtype(numpy_of(out_type))
        tol = budget("cos", out_type, cancels=True) if out_type in FLOATS else None
        return self.expect(v, {"size": np.array(size, dtype=numpy_of(t["T1"]))}, attrs, tolerance=tol)


FRACTIONAL = ("output_datatype: the schema and the cited paper give the window's real values in "
              "[0, 1] only; they do not say how a value strictly between 0 and 1 becomes an "
              "integer (the integer types are covered where every value is a whole number: "
              "the empty window, and the one-point periodic window where it is 0)")


# ---------------------------------------------------------------------------------------------
# DFT


def _mp(x) -> mpmath.mpf:
    return mpmath.mpf(float(x))


@lru_cache(maxsize=None)
def _twiddle(n_fft: int, kn: int, sign: int):
    """cos and sin of sign * 2 pi kn / n_fft at PREC bits."""
    with mpmath.workprec(PREC):
        ang = sign * 2 * mpmath.pi * kn / n_fft
        return mpmath.cos(ang), mpmath.sin(ang)


def spectrum(sig_re, sig_im, n_fft: int, inverse: bool, bins: int):
    """The first `bins` values of the DFT of length n_fft of the (already padded) complex signal, in mpmath,
    each with the sum of its terms' magnitudes."""
    sign = 1 if inverse else -1
    out = []
    with mpmath.workprec(PREC):
        for k in range(bins):
            re = im = mpmath.mpf(0)
            mag = 0.0
            for n in range(n_fft):
                a, b = sig_re[n], sig_im[n]
                if a == 0 and b == 0:
                    continue
                c, s = _twiddle(n_fft, (k * n) % n_fft, sign)
                re += a * c - b * s
                im += a * s + b * c
                mag += float(abs(a) + abs(b))
            if inverse:
                re, im, mag = re / n_fft, im / n_fft, mag / n_fft
            out.append((re, im, mag))
    return out


def _dft_rows(x: np.ndarray, axis: int, dft_length: int | None, inverse: bool, onesided: bool):
    """The layout of a DFT of x ([..., 1] real or [..., 2] complex) along `axis` (a normalised signal axis):
    (moved x, n_fft, output length, output width), and each row's padded complex signal as a generator of
    (index, re, im) in mpmath (an IRFFT's row already completed by conjugate symmetry)."""
    complex_in = x.shape[-1] == 2
    moved = np.moveaxis(x, axis, -2)
    length = moved.shape[-2]
    irfft = onesided and inverse
    n_fft = dft_length if dft_length is not None else (2 * (length - 1) if irfft else length)
    if irfft:
        out_len, width = n_fft, 1
    elif onesided:
        out_len, width = n_fft // 2 + 1, 2
    else:
        out_len, width = n_fft, 2

    def rows():
        with mpmath.workprec(PREC):
            for idx in np.ndindex(*moved.shape[:-2]):
                row = moved[idx]
                re = [_mp(row[i, 0]) if i < length else mpmath.mpf(0) for i in range(n_fft)]
                im = [(_mp(row[i, 1]) if complex_in else mpmath.mpf(0)) if i < length else mpmath.mpf(0)
                      for i in range(n_fft)]
                if irfft:
                    # the one-sided spectrum: bins 0 .. n_fft // 2 (zero-padded or cut), the rest by conjugate symmetry
                    half = n_fft // 2 + 1
                    re = [re[i] if i < length else mpmath.mpf(0) for i in range(half)]
                    im = [im[i] if i < length else mpmath.mpf(0) for i in range(half)]
                    re, im = ([re[k] if k < half else re[n_fft - k] for k in range(n_fft)],
                              [im[k] if k < half else -im[n_fft - k] for k in range(n_fft)])
                yield idx, re, im

    return moved, n_fft, out_len, width, rows


def dft(x: np.ndarray, axis: int, type_name: str, dft_length: int | None = None, inverse: bool = False,
        onesided: bool = False) -> np.ndarray:
    """The DFT of x ([..., 1] real or [..., 2] complex) along `axis` (a normalised signal axis), rounded once."""
    moved, n_fft, out_len, width, rows = _dft_rows(x, axis, dft_length, inverse, onesided)
    y = np.empty(moved.shape[:-2] + (out_len, width), dtype=object)
    for idx, re, im in rows():
        for k, (r, i, _) in enumerate(spectrum(re, im, n_fft, inverse, out_len)):
            y[idx + (k, 0)] = r
            if width == 2:
                y[idx + (k, 1)] = i
    flat = [round_to(v, type_name) for v in y.reshape(-1)]
    out = np.array(flat, dtype=numpy_of(type_name)).reshape(y.shape)
    return np.moveaxis(out, -2, axis)


def dft_tolerance(x: np.ndarray, axis: int, type_name: str, dft_length: int | None = None, inverse: bool = False,
                  onesided: bool = False) -> dict:
    """The budget of a DFT: n_fft terms per output, M the largest sum of their magnitudes, then the
    twiddles' cos/sin budget (`accuracy.accumulation`)."""
    _, n_fft, _, _, rows = _dft_rows(x, axis, dft_length, inverse, onesided)
    mag_max = max((_magnitude(re, im, n_fft, inverse) for _, re, im in rows()), default=0.0)
    trig = budget("cos", type_name) or {"ulp": 0}
    return accumulation(type_name, n_fft, mag_max, after=trig["ulp"] if type_name in ("float", "double") else 0)


def _magnitude(re: list, im: list, n_fft: int, inverse: bool) -> float:
    """The sum over one row's terms of |re| + |im| (each at PREC bits, then a double, added in order), / N when inverse."""
    mag = 0.0
    with mpmath.workprec(PREC):
        for a, b in zip(re, im):
            if a == 0 and b == 0:
                continue
            mag += float(abs(a) + abs(b))
    return mag / n_fft if inverse else mag


# ---------------------------------------------------------------------------------------------
# STFT


def _frames(signal: np.ndarray, frame_step: int, frame_length: int, window: np.ndarray | None):
    """Each frame of frame_length every frame_step samples times the window (all ones when absent), as
    (batch, frame, re, im) in mpmath."""
    batch, length, width = signal.shape
    frames = (length - frame_length) // frame_step + 1
    with mpmath.workprec(PREC):
        w = [_mp(e) for e in window] if window is not None else [mpmath.mpf(1)] * frame_length
        for b in range(batch):
            for f in range(frames):
                start = f * frame_step
                re = [_mp(signal[b, start + n, 0]) * w[n] for n in range(frame_length)]
                im = [(_mp(signal[b, start + n, 1]) if width == 2 else mpmath.mpf(0)) * w[n]
                      for n in range(frame_length)]
                yield b, f, re, im


def stft(signal: np.ndarray, frame_step: int, frame_length: int, window: np.ndarray | None, onesided: bool,
         type_name: str) -> np.ndarray:
    """Frames of frame_length every frame_step samples, each times the window (all ones when absent), DFT of
    length frame_length; [batch][frames][bins][2], rounded once."""
    batch, length, _ = signal.shape
    frames = (length - frame_length) // frame_step + 1
    bins = frame_length // 2 + 1 if onesided else frame_length
    out = np.empty((batch, frames, bins, 2), dtype=object)
    for b, f, re, im in _frames(signal, frame_step, frame_length, window):
        for k, (r, i, _) in enumerate(spectrum(re, im, frame_length, False, bins)):
            out[b, f, k, 0], out[b, f, k, 1] = r, i
    flat = [round_to(v, type_name) for v in out.reshape(-1)]
    return np.array(flat, dtype=numpy_of(type_name)).reshape(out.shape)


def stft_tolerance(signal: np.ndarray, frame_step: int, frame_length: int, window: np.ndarray | None,
                   type_name: str) -> dict:
    """The budget of an STFT: frame_length terms per output, M the largest sum of their magnitudes."""
    mag_max = max((_magnitude(re, im, frame_length, False)
                   for _, _, re, im in _frames(signal, frame_step, frame_length, window)), default=0.0)
    trig = budget("cos", type_name) or {"ulp": 0}
    return accumulation(type_name, frame_length, mag_max,
                        after=trig["ulp"] if type_name in ("float", "double") else 0)


# ---------------------------------------------------------------------------------------------
# MelWeightMatrix


def mel_bins(num_mel_bins: int, dft_length: int, sample_rate: int, lower: float, upper: float) -> list[int]:
    """The num_mel_bins + 2 triangle corners as spectrogram bins, the way onnx's documented example computes
    them: mel(f) = 2595 log10(1 + f / 700) of both edges, num_mel_bins + 2 equal mel steps from the lower edge,
    back to hertz, bin = floor((dft_length + 1) * f / sample_rate). Computed at PREC bits; a corner within
    1e-9 of an integer would depend on the runtime's rounding, and is refused."""
    with mpmath.workprec(PREC):
        def mel(f):
            return 2595 * mpmath.log10(1 + mpmath.mpf(f) / 700)
        lo, hi = mel(lower), mel(upper)
        step = (hi - lo) / (num_mel_bins + 2)
        out = []
        for i in range(num_mel_bins + 2):
            hz = 700 * (mpmath.power(10, (lo + i * step) / 2595) - 1)
            b = (dft_length + 1) * hz / sample_rate
            if b != 0 and abs(b - mpmath.nint(b)) < mpmath.mpf(10) ** -9:
                raise ValueError("a mel corner lies on a bin boundary: pick other parameters")
            out.append(int(mpmath.floor(b)))
        return out


def mel_weight_matrix(num_mel_bins: int, dft_length: int, sample_rate: int, lower: float, upper: float):
    """[dft_length // 2 + 1, num_mel_bins] exact Fractions: triangle i rises from corner i to 1 at corner i + 1
    and falls to corner i + 2 ('all the triangles (filterbanks) have a peak value of 1.0')."""
    corners = mel_bins(num_mel_bins, dft_length, sample_rate, lower, upper)
    out = np.full((dft_length // 2 + 1, num_mel_bins), Fraction(0), dtype=object)
    for i in range(num_mel_bins):
        left, centre, right = corners[i], corners[i + 1], corners[i + 2]
        if centre == left:
            out[centre, i] = Fraction(1)
        else:
            for j in range(left, centre + 1):
                out[j, i] = Fraction(j - left, centre - left)
        for j in range(centre, right):
            out[j, i] = Fraction(right - j, right - centre)
    return out
