"""Mutants of the signal operators: symmetric windows for periodic ones, Hamming's textbook
coefficients, onesided spectra one bin short, lengths, windows and inverse flags not honoured, and the
DFT axis of version 17 at version 20."""

from __future__ import annotations

import numpy as np

from onnx_conformance.harness.mutants._shared import Mutant, default, ignored, result, with_inputs

FAMILY = "Signal"

PERIODIC = "If 1, returns a window to be used as periodic function. If 0, return a symmetric window."


def _hamming_textbook(y, size, **attrs):
    """0.54 - 0.46 cos(...) (the textbook rounding) instead of 25/46 and 21/46."""
    n = int(np.asarray(size))
    if n <= 1:
        return y
    span = n if attrs.get("periodic", 1) else n - 1
    k = np.arange(n, dtype=np.float64)
    return 0.54 - 0.46 * np.cos(2 * np.pi * k / span)


def _dft_axis(call, inputs, attrs) -> int:
    """The axis of the DFT, non-negative: an attribute (default 1) before version 20, an input (default -2) from 20."""
    x = inputs[0]
    if call.since < 20:
        return int(attrs.get("axis", 1)) % x.ndim
    axis = inputs[2] if len(inputs) > 2 and inputs[2] is not None else -2
    return int(np.asarray(axis)) % x.ndim


def _dft_nyquist_dropped(call, *inputs, **attrs):
    """A onesided spectrum of floor(n/2) bins, the Nyquist bin (k = n/2) left out."""
    outs = call.run(*inputs, **attrs)
    if not attrs.get("onesided") or attrs.get("inverse"):
        return outs
    axis = _dft_axis(call, inputs, attrs)
    y = outs[0]
    if y.shape[axis] < 2:
        return outs
    return (np.ascontiguousarray(np.take(y, np.arange(y.shape[axis] - 1), axis=axis)), *outs[1:])


def _dft_without_length(*xs, **_):
    return xs[:1] + ((None,) if len(xs) > 1 else ()) + xs[2:]


def _dft_axis_of_17(*xs, **_):
    """The axis input absent read as version 17's default, 1."""
    if len(xs) > 2 and xs[2] is not None:
        return xs
    x = xs[0]
    rest = list(xs[1:2]) or [None]
    return (x, *rest, np.asarray(1, np.int64))


def _mel_nyquist_dropped(y, *_, **__):
    """floor(dft_length / 2) spectrogram bins instead of floor(dft_length / 2) + 1."""
    return y[:-1] if y.shape[0] > 1 else y


def _zero_lower_edge(*xs, **_):
    xs = list(xs)
    xs[3] = np.zeros_like(np.asarray(xs[3]))
    return tuple(xs)


def _stft_without_window(x, step, *rest, **_):
    """The window input not applied (rectangular); its length still gives the frame length."""
    rest = list(rest)
    if rest and rest[0] is not None:
        window = np.asarray(rest[0])
        if len(rest) < 2 or rest[1] is None:
            rest = [None, np.asarray(window.shape[0], np.int64)]
        else:
            rest[0] = None
    return (x, step, *rest)


MUTANTS = [
    Mutant("BlackmanWindow.ignores_periodic", "BlackmanWindow", "ignored attributes", PERIODIC,
           ignored("periodic")),
    Mutant("HammingWindow.textbook_coefficients", "HammingWindow", "wrong defaults",
           "Generates a Hamming window as described in the paper https://ieeexplore.ieee.org/document/1455106.",
           result(_hamming_textbook), note="onnx's reference and the paper give alpha = 25/46, beta = 21/46"),
    Mutant("HammingWindow.symmetric_by_default", "HammingWindow", "wrong defaults", PERIODIC,
           default("periodic", 0)),
    Mutant("HannWindow.symmetric_by_default", "HannWindow", "wrong defaults", PERIODIC, default("periodic", 0),
           note="numpy.hanning and scipy's default are symmetric"),
    Mutant("DFT.ignores_inverse", "DFT", "ignored attributes",
           "Whether to perform the inverse discrete Fourier Transform.", ignored("inverse")),
    Mutant("DFT.onesided_without_nyquist", "DFT", "off-by-one windows",
           "the real-to-complex Fourier transform satisfies the conjugate symmetry", _dft_nyquist_dropped),
    Mutant("DFT.ignores_dft_length", "DFT", "ignored attributes",
           "If greater than the axis dimension, the signal will be zero-padded up to `dft_length`.",
           with_inputs(_dft_without_length)),
    Mutant("DFT.axis_of_version_17", "DFT", "version confusion", "Default is `-2` (last signal axis).",
           with_inputs(_dft_axis_of_17), since=(20, None)),
    Mutant("MelWeightMatrix.nyquist_bin_dropped", "MelWeightMatrix", "off-by-one windows",
           "The output has the shape: [floor(dft_length/2) + 1][num_mel_bins].", result(_mel_nyquist_dropped)),
    Mutant("MelWeightMatrix.ignores_lower_edge", "MelWeightMatrix", "ignored attributes",
           "Lower bound on the frequencies to be included in the mel spectrum.", with_inputs(_zero_lower_edge)),
    Mutant("STFT.ignores_window", "STFT", "ignored attributes",
           "An optional 1-D tensor representing the window function to be applied to each frame of the signal "
           "before computing the DFT.", with_inputs(_stft_without_window)),
    Mutant("STFT.two_sided_by_default", "STFT", "wrong defaults",
           "If onesided is 1, only values for w in [0, 1, 2, ..., floor(n_fft/2) + 1] are returned",
           default("onesided", 0)),
]
